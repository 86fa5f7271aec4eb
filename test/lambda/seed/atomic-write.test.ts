import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Readable } from 'stream';
import { writeUnseenFile, writtenIdentity } from '../../../lambda/seed/target/atomic-write';
import { LocalFileContent } from '../../../lambda/seed/sources/entry';
import { FileSystemCalls } from '../../../lambda/seed/boundary/file-system-calls';
import { TargetTree } from '../../../lambda/seed/boundary/target-tree';
import { BeneathOpener } from '../../../lambda/seed/boundary/open-beneath';
import { builtNativeWriter } from '../../helpers/native-writer';

// A local file's copy onto real directories, every way it is made: synchronously while the file
// systems answer in microseconds (tmpfs, the page cache), and on a slow file system
// (CDK_EFS_KIT_SYNC_CALLS=0) through the thread pool, call by call or as the native writer's one job.
let work: string;
let source: string;
/** The source root, held as a local-directory source holds it. */
let sourceRoot: number;
let tree: TargetTree;
beforeEach(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk-efs-kit-atomic-'));
  source = path.join(work, 'source');
  fs.mkdirSync(source);
  sourceRoot = fs.openSync(source, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  fs.mkdirSync(path.join(work, 'target'));
  tree = (await TargetTree.open(new FileSystemCalls(FileSystemCalls.TARGET), path.join(work, 'target')))!;
});
afterEach(async () => {
  await tree.close();
  fs.closeSync(sourceRoot);
  jest.restoreAllMocks();
  fs.rmSync(work, { recursive: true, force: true });
});

const MODES = ['synchronous', 'thread pool', 'native writer'];

function callsFor(mode: string): FileSystemCalls {
  const saved = process.env.CDK_EFS_KIT_SYNC_CALLS;
  if (mode !== 'synchronous') process.env.CDK_EFS_KIT_SYNC_CALLS = '0';
  try {
    return new FileSystemCalls(FileSystemCalls.SOURCE, mode === 'native writer' ? builtNativeWriter() : null);
  } finally {
    if (saved === undefined) delete process.env.CDK_EFS_KIT_SYNC_CALLS;
    else process.env.CDK_EFS_KIT_SYNC_CALLS = saved;
  }
}

function sourceFile(name: string, content: string, size = Buffer.byteLength(content), mode = 'synchronous', fileMode = 0o640): LocalFileContent {
  fs.writeFileSync(path.join(source, name), content);
  fs.chmodSync(path.join(source, name), fileMode);
  return new LocalFileContent(sourceRoot, name, size, callsFor(mode));
}

const target = (name: string) => path.join(work, 'target', name);

describe.each(MODES)('a local file, calls %s', (mode) => {
  const calls = () => (mode === 'synchronous' ? tree.calls : callsFor(mode));

  test('is copied whole, with the mode its fstat gives, and its identity is the written file\'s', async () => {
    const written = await writeUnseenFile(calls(), tree.root, 'a.txt', sourceFile('a.txt', 'hello', undefined, mode, 0o640), { mode: 0o604 }, false);
    expect(fs.readFileSync(target('a.txt'), 'utf8')).toBe('hello');
    expect(fs.statSync(target('a.txt')).mode & 0o777).toBe(0o640);
    expect(written).toEqual({ bytes: 5, identity: writtenIdentity(fs.statSync(target('a.txt'))) });
  });

  test('that grew since the walk is refused, and nothing is left at its name', async () => {
    const grown = sourceFile('b.txt', 'twenty bytes of text', 10, mode);
    await expect(writeUnseenFile(calls(), tree.root, 'b.txt', grown, { mode: 0o644, expectedSize: 10 }, false))
      .rejects.toThrow('the source said 10 bytes but delivered 20');
    expect(fs.existsSync(target('b.txt'))).toBe(false);
  });

  test('that shrank since the walk is refused too', async () => {
    const shrunk = sourceFile('c.txt', 'short', 10, mode);
    await expect(writeUnseenFile(calls(), tree.root, 'c.txt', shrunk, { mode: 0o644, expectedSize: 10 }, false))
      .rejects.toThrow('the source said 10 bytes but delivered 5');
    expect(fs.existsSync(target('c.txt'))).toBe(false);
  });

  test('replaces a link planted at its name, never writing through it', async () => {
    fs.writeFileSync(path.join(work, 'outside'), 'secret');
    fs.symlinkSync(path.join(work, 'outside'), target('d.txt'));
    await writeUnseenFile(calls(), tree.root, 'd.txt', sourceFile('d.txt', 'new', undefined, mode), { mode: 0o644 }, true);
    expect(fs.lstatSync(target('d.txt')).isFile()).toBe(true);
    expect(fs.readFileSync(target('d.txt'), 'utf8')).toBe('new');
    expect(fs.readFileSync(path.join(work, 'outside'), 'utf8')).toBe('secret');
  });

  test('without replace, refuses a name that exists', async () => {
    fs.writeFileSync(target('e.txt'), 'theirs');
    await expect(writeUnseenFile(calls(), tree.root, 'e.txt', sourceFile('e.txt', 'ours', undefined, mode), { mode: 0o644 }, false)).rejects.toThrow(/EEXIST/);
    expect(fs.readFileSync(target('e.txt'), 'utf8')).toBe('theirs');
  });
});

describe.each(MODES)('content in memory, calls %s', (mode) => {
  const calls = () => (mode === 'synchronous' ? tree.calls : callsFor(mode));
  const stream = (...chunks: string[]) => Readable.from(chunks.map((chunk) => Buffer.from(chunk)));
  let nativeWrites: jest.SpyInstance | undefined;
  beforeEach(() => { nativeWrites = mode === 'native writer' ? jest.spyOn(builtNativeWriter(), 'writeNewFile') : undefined; });
  /** That the native writer made `count` tries, in its mode (none in the others). */
  const expectNativeWrites = (count: number) => expect(nativeWrites?.mock.calls.length ?? 0).toBe(mode === 'native writer' ? count : 0);

  test('a buffer is written whole, and its identity is the written file\'s', async () => {
    const written = await writeUnseenFile(calls(), tree.root, 'f.txt', Buffer.from('from memory'), { mode: 0o600, expectedSize: 11 }, false);
    expect(fs.readFileSync(target('f.txt'), 'utf8')).toBe('from memory');
    expect(fs.statSync(target('f.txt')).mode & 0o777).toBe(0o600);
    expect(written).toEqual({ bytes: 11, identity: writtenIdentity(fs.statSync(target('f.txt'))) });
    expectNativeWrites(1);
  });

  test('a stream is written whole', async () => {
    const written = await writeUnseenFile(calls(), tree.root, 'g.txt', stream('two ', 'chunks'), { mode: 0o644, expectedSize: 10 }, false);
    expect(fs.readFileSync(target('g.txt'), 'utf8')).toBe('two chunks');
    expect(written).toEqual({ bytes: 10, identity: writtenIdentity(fs.statSync(target('g.txt'))) });
    expectNativeWrites(1);
  });

  test('a buffer replaces a link planted at its name, never writing through it', async () => {
    fs.writeFileSync(path.join(work, 'outside'), 'secret');
    fs.symlinkSync(path.join(work, 'outside'), target('l.txt'));
    await writeUnseenFile(calls(), tree.root, 'l.txt', Buffer.from('new'), { mode: 0o644 }, true);
    expect(fs.lstatSync(target('l.txt')).isFile()).toBe(true);
    expect(fs.readFileSync(target('l.txt'), 'utf8')).toBe('new');
    expect(fs.readFileSync(path.join(work, 'outside'), 'utf8')).toBe('secret');
    expectNativeWrites(2); // the first try met the link (EEXIST); the second made the file
  });

  test('a stream that delivers more than it declared is refused, and nothing is left at its name', async () => {
    await expect(writeUnseenFile(calls(), tree.root, 'h.txt', stream('ten bytes!', ' and more'), { mode: 0o644, expectedSize: 10 }, false))
      .rejects.toThrow('the source said 10 bytes but delivered 19');
    expect(fs.readdirSync(path.join(work, 'target'))).toEqual([]);
    expectNativeWrites(0); // refused before any file is made
  });
});

test('on a slow file system the native writer makes a small file in one trip, and Node\'s calls make none of it', async () => {
  const native = builtNativeWriter();
  const write = jest.spyOn(native, 'writeNewFileBeneath');
  const calls = callsFor('native writer');
  const open = jest.spyOn(calls, 'open');
  // The source file is opened beneath its root and fstat'ed by the writer's job, not on this thread.
  const sourceOpen = jest.spyOn(BeneathOpener.shared(), 'openStatSync');
  await writeUnseenFile(calls, tree.root, 'i.txt', sourceFile('i.txt', 'one job', undefined, 'synchronous', 0o640), { mode: 0o644 }, false);
  expect(write).toHaveBeenCalledTimes(1);
  expect(open).not.toHaveBeenCalled();
  expect(sourceOpen).not.toHaveBeenCalled();
  expect(fs.readFileSync(target('i.txt'), 'utf8')).toBe('one job');
  expect(fs.statSync(target('i.txt')).mode & 0o777).toBe(0o640); // the source's bits, from the job's fstat
  sourceOpen.mockRestore();
  // A modification time to give (one more call) and a large file still go call by call.
  await writeUnseenFile(calls, tree.root, 'j.txt', sourceFile('j.txt', 'dated'), { mode: 0o644, mtimeMs: 1e12 }, false);
  await writeUnseenFile(calls, tree.root, 'k.bin', Buffer.alloc(2 * 1024 * 1024), { mode: 0o644 }, false);
  expect(write).toHaveBeenCalledTimes(1);
  expect(open).toHaveBeenCalledTimes(2);
  expect(fs.statSync(target('j.txt')).mtimeMs).toBe(1e12);
});

/** Source calls that count what the copy asks of the source. */
class CountedCalls extends FileSystemCalls {
  made = 0;
  now<T>(syncCall: () => T): T {
    this.made++;
    return super.now(syncCall);
  }
}

test('a file is read up to the size its fstat gave, no further: one read for a small file, no read that finds nothing', async () => {
  const small = new CountedCalls(FileSystemCalls.SOURCE);
  fs.writeFileSync(path.join(source, 'small'), 'x'.repeat(1000));
  await writeUnseenFile(tree.calls, tree.root, 'small', new LocalFileContent(sourceRoot, 'small', 1000, small), { mode: 0o644 }, false);
  expect(small.made).toBe(3); // open and fstat (one call), one read, close

  const large = new CountedCalls(FileSystemCalls.SOURCE);
  const size = 3 * 1024 * 1024;
  fs.writeFileSync(path.join(source, 'large'), Buffer.alloc(size, 1));
  await writeUnseenFile(tree.calls, tree.root, 'large', new LocalFileContent(sourceRoot, 'large', size, large), { mode: 0o644 }, false);
  expect(fs.statSync(target('large')).size).toBe(size);
  expect(large.made).toBe(5); // open and fstat (one call), three full 1 MiB reads, close
});
