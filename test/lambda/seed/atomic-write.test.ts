import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { writeUnseenFile, writtenIdentity } from '../../../lambda/seed/atomic-write';
import { LocalFileContent } from '../../../lambda/seed/entry';
import { FileSystemCalls } from '../../../lambda/seed/file-system-calls';
import { TargetTree } from '../../../lambda/seed/target-tree';

// A local file's copy onto real directories, both ways it is made: synchronously while the file
// systems answer in microseconds (tmpfs, the page cache), and through the thread pool
// (CDK_EFS_KIT_SYNC_CALLS=0, as on a slow file system).
let work: string;
let source: string;
let tree: TargetTree;
beforeEach(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk-efs-kit-atomic-'));
  source = path.join(work, 'source');
  fs.mkdirSync(source);
  fs.mkdirSync(path.join(work, 'target'));
  tree = (await TargetTree.open(new FileSystemCalls(FileSystemCalls.TARGET), path.join(work, 'target')))!;
});
afterEach(async () => {
  await tree.close();
  jest.restoreAllMocks();
  fs.rmSync(work, { recursive: true, force: true });
});

function callsFor(mode: string): FileSystemCalls {
  const saved = process.env.CDK_EFS_KIT_SYNC_CALLS;
  if (mode === 'thread pool') process.env.CDK_EFS_KIT_SYNC_CALLS = '0';
  try {
    return new FileSystemCalls(FileSystemCalls.SOURCE);
  } finally {
    if (saved === undefined) delete process.env.CDK_EFS_KIT_SYNC_CALLS;
    else process.env.CDK_EFS_KIT_SYNC_CALLS = saved;
  }
}

function sourceFile(name: string, content: string, size = Buffer.byteLength(content), mode = 'synchronous'): LocalFileContent {
  fs.writeFileSync(path.join(source, name), content);
  return new LocalFileContent(path.join(source, name), size, callsFor(mode));
}

const target = (name: string) => path.join(work, 'target', name);

describe.each(['synchronous', 'thread pool'])('a local file, calls %s', (mode) => {
  const calls = () => (mode === 'synchronous' ? tree.calls : callsFor(mode));

  test('is copied whole, and its identity is the written file\'s', async () => {
    const written = await writeUnseenFile(calls(), tree.root, 'a.txt', sourceFile('a.txt', 'hello', undefined, mode), { mode: 0o640 }, false);
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

/** Source calls that count what the copy asks of the source. */
class CountedCalls extends FileSystemCalls {
  made = 0;
  now<T>(syncCall: () => T): T {
    this.made++;
    return super.now(syncCall);
  }
}

test('a small file at the size the walk saw takes one read; a larger one reads on until a read finds nothing', async () => {
  const small = new CountedCalls(FileSystemCalls.SOURCE);
  fs.writeFileSync(path.join(source, 'small'), 'x'.repeat(1000));
  await writeUnseenFile(tree.calls, tree.root, 'small', new LocalFileContent(path.join(source, 'small'), 1000, small), { mode: 0o644 }, false);
  expect(small.made).toBe(3); // open, one read, close

  const large = new CountedCalls(FileSystemCalls.SOURCE);
  const size = 3 * 1024 * 1024;
  fs.writeFileSync(path.join(source, 'large'), Buffer.alloc(size, 1));
  await writeUnseenFile(tree.calls, tree.root, 'large', new LocalFileContent(path.join(source, 'large'), size, large), { mode: 0o644 }, false);
  expect(fs.statSync(target('large')).size).toBe(size);
  expect(large.made).toBe(6); // open, three full 1 MiB reads and one that finds nothing, close
});
