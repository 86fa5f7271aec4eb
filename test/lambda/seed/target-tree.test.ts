import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { FileSystemCalls } from '../../../lambda/seed/boundary/file-system-calls';
import { idleDescriptorsFor, openFileLimit, TargetTree } from '../../../lambda/seed/boundary/target-tree';

// The target as the seed holds it, on real directories: what a descriptor it holds resolves to after
// the path that led there changes, and what a descriptor closed by the bounded cache is opened again to.
let work: string;
let root: string;
let outside: string;
beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'target-tree-'));
  root = path.join(work, 'root');
  outside = path.join(work, 'outside');
  for (const dir of ['a', 'b', 'c']) fs.mkdirSync(path.join(root, dir), { recursive: true });
  fs.mkdirSync(outside);
});
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

const open = async (maxIdle?: number) => (await TargetTree.open(new FileSystemCalls(FileSystemCalls.TARGET), root, '', false, maxIdle))!;
const write = (tree: TargetTree, key: string, name: string) => tree.using(key, (dir) => fs.writeFileSync(dir.at(name).path, key));

test('a directory it holds stays the one it opened: swapped for a link to outside, a write still lands inside', async () => {
  const tree = await open();
  expect(await tree.find('a')).toBe('real');
  const held = await tree.pin('a');
  try {
    fs.renameSync(path.join(root, 'a'), path.join(root, 'a-moved'));
    fs.symlinkSync(outside, path.join(root, 'a'));
    fs.writeFileSync(held.at('x').path, 'x');
  } finally {
    tree.unpin('a');
  }
  expect(fs.readdirSync(outside)).toEqual([]);
  expect(fs.readFileSync(path.join(root, 'a-moved', 'x'), 'utf8')).toBe('x');
  await tree.close();
});

test('find never follows a link: a link to a directory is "not a directory", a missing part "missing"', async () => {
  fs.symlinkSync(outside, path.join(root, 'link'));
  const tree = await open();
  expect(await tree.find('link')).toBe('not a directory');
  expect(await tree.find('link/below')).toBe('not a directory');
  expect(await tree.find('nowhere/below')).toBe('missing');
  expect(await tree.find('a')).toBe('real');
  await tree.close();
});

describe('with one idle descriptor at most', () => {
  test('a directory whose descriptor was closed is opened again, the same directory', async () => {
    const tree = await open(1);
    for (const key of ['a', 'b', 'c']) expect(await tree.find(key)).toBe('real');
    for (const key of ['a', 'b', 'c']) await write(tree, key, 'f');
    for (const key of ['a', 'b', 'c']) expect(fs.readFileSync(path.join(root, key, 'f'), 'utf8')).toBe(key);
    await tree.close();
  });

  test('refused when another directory took its name meanwhile', async () => {
    const tree = await open(1);
    for (const key of ['a', 'b', 'c']) expect(await tree.find(key)).toBe('real'); // 'a' is closed by now
    fs.renameSync(path.join(root, 'a'), path.join(root, 'a-old'));
    fs.mkdirSync(path.join(root, 'a'));
    await expect(write(tree, 'a', 'f')).rejects.toThrow(/was replaced by another directory during the seed/);
    expect(fs.readdirSync(path.join(root, 'a'))).toEqual([]);
    await tree.close();
  });

  test('refused when the swap came before its descriptor was closed: what is checked is what the descriptor held', async () => {
    const tree = await open(1);
    expect(await tree.find('a')).toBe('real');
    fs.renameSync(path.join(root, 'a'), path.join(root, 'a-old'));
    fs.mkdirSync(path.join(root, 'a'));
    for (const key of ['b', 'c']) expect(await tree.find(key)).toBe('real'); // 'a' is closed now
    await expect(write(tree, 'a', 'f')).rejects.toThrow(/was replaced by another directory during the seed/);
    expect(fs.readdirSync(path.join(root, 'a'))).toEqual([]);
    await tree.close();
  });

  test('a directory is read (fstat) once, when its descriptor is first closed; one never closed, never', async () => {
    const calls = new CountingCalls();
    const tree = (await TargetTree.open(calls, root, '', false, 1))!;
    const rootReads = calls.fstats;
    for (const key of ['a', 'b', 'c']) expect(await tree.find(key)).toBe('real'); // 'a' and 'b' closed: read
    await write(tree, 'a', 'f'); // 'a' opened again and checked; 'c' closed: read
    await write(tree, 'b', 'f'); // 'b' opened again and checked; 'a' closed again: not read again
    expect(calls.fstats - rootReads).toBe(3 + 2);
    await tree.close();
  });

  test('refused when a link took its name meanwhile, and nothing is written where it points', async () => {
    const tree = await open(1);
    for (const key of ['a', 'b', 'c']) expect(await tree.find(key)).toBe('real');
    fs.renameSync(path.join(root, 'a'), path.join(root, 'a-old'));
    fs.symlinkSync(outside, path.join(root, 'a'));
    await expect(write(tree, 'a', 'f')).rejects.toThrow(/is no longer a directory on the target/);
    expect(fs.readdirSync(outside)).toEqual([]);
    await tree.close();
  });
});

test('make: a new directory is made and held; one already there is adopted (false); a link there is refused', async () => {
  const tree = await open();
  expect(await tree.make('new', '', 'new', 0o750)).toBe(true);
  expect(fs.statSync(path.join(root, 'new')).mode & 0o777).toBe(0o750 & ~process.umask());
  expect(await tree.make('a', '', 'a', 0o755)).toBe(false);
  expect(tree.has('a')).toBe(true);
  fs.symlinkSync(outside, path.join(root, 'link'));
  await expect(tree.make('link', '', 'link', 0o755)).rejects.toMatchObject({ code: expect.stringMatching(/^(ENOTDIR|ELOOP)$/) });
  expect(tree.has('link')).toBe(false);
  await write(tree, 'new', 'f');
  expect(fs.readFileSync(path.join(root, 'new', 'f'), 'utf8')).toBe('new');
  await tree.close();
});

class CountingCalls extends FileSystemCalls {
  fstats = 0;
  constructor() {
    super(FileSystemCalls.TARGET);
  }

  fstat(fd: number): Promise<fs.BigIntStats> {
    this.fstats++;
    return super.fstat(fd);
  }
}

test('idle descriptors fit in Lambda\'s 1,024 beside three for each copy in flight', () => {
  expect(idleDescriptorsFor(64, 1024)).toBe(512);
  expect(idleDescriptorsFor(200, 1024)).toBe(168);
  expect(idleDescriptorsFor(1024, 1024)).toBe(64);
  // Up to the concurrency where the copies alone leave less than 64 of the 768.
  for (const concurrency of [1, 64, 85, 128, 200, 234]) expect(idleDescriptorsFor(concurrency, 1024) + 3 * concurrency).toBeLessThanOrEqual(768);
});

test('a higher limit on open files keeps more directories open: half of it, up to 4,096', () => {
  expect(idleDescriptorsFor(64, 2048)).toBe(1024);
  expect(idleDescriptorsFor(400, 2048)).toBe(592);
  expect(idleDescriptorsFor(64, 1048576)).toBe(4096);
  expect(openFileLimit()).toBe(Number(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim()));
});
