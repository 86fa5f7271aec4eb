import * as fs from 'fs';
import * as path from 'path';
import { FileSystemCalls } from '../../../lambda/seed/boundary/file-system-calls';
import { HeldNameCalls } from '../../../lambda/seed/boundary/held-name-calls';
import { loadNativeAddon } from '../../../lambda/seed/boundary/native-writer';
import { Directory } from '../../../lambda/seed/boundary/held-name';
import { OPEN_DIRECTORY } from '../../../lambda/seed/boundary/target-tree';
import { NATIVE_BUILD } from '../../helpers/native-writer';
import { makeSentinel, snapshot } from '../../helpers/sentinel';
import { tempDir } from '../../helpers/seed-fixtures';

// The target's calls on a name in a directory the seed holds, by each backend of FileSystemCalls:
// the native addon's, on the directory's descriptor (openat2 with RESOLVE_BENEATH |
// RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS for an open, mkdirat, unlinkat ...), and Node's on
// /proc/self/fd/<fd>/<name> where there is no addon. Links to a sentinel tree are planted at names
// in the held directory after the seed opened it (as another process could, mid-run): no call may
// follow one, and the sentinel must not change.
const addon = loadNativeAddon([NATIVE_BUILD]);
const BACKENDS: Array<[string, () => FileSystemCalls]> = [
  ['the addon, on the descriptor', () => new FileSystemCalls(FileSystemCalls.TARGET, null, new HeldNameCalls(addon!))],
  ['Node, through /proc/self/fd', () => new FileSystemCalls(FileSystemCalls.TARGET, null, null)],
];

let work: string;
let outside: string;
let held: Directory;
beforeEach(() => {
  expect(addon).not.toBeNull(); // built by npm run build
  work = tempDir('held-names-');
  outside = path.join(work, 'outside');
  makeSentinel(outside);
  fs.mkdirSync(path.join(work, 'target'));
  held = new Directory(fs.openSync(path.join(work, 'target'), OPEN_DIRECTORY));
  // Planted after the seed holds the directory.
  fs.symlinkSync(outside, path.join(work, 'target', 'dir-link'));
  fs.symlinkSync(path.join(outside, 'file'), path.join(work, 'target', 'file-link'));
});
afterEach(() => {
  fs.closeSync(held.fd);
  fs.rmSync(work, { recursive: true, force: true });
});

const codeOf = (call: Promise<unknown>) => call.then(() => 'done', (err: NodeJS.ErrnoException) => err.code);

describe.each(BACKENDS)('by %s', (_backend, make) => {
  test('a planted link is never followed: opened (ELOOP, or ENOTDIR as a directory), written through, made over, listed or timed', async () => {
    const calls = make();
    const before = snapshot(outside);
    // O_NOFOLLOW with O_DIRECTORY: the link itself is what the name holds, and it is not a directory.
    expect(await codeOf(calls.open(held.at('dir-link'), OPEN_DIRECTORY))).toBe('ENOTDIR');
    expect(await codeOf(calls.open(held.at('file-link'), fs.constants.O_WRONLY | fs.constants.O_TRUNC | fs.constants.O_NOFOLLOW))).toBe('ELOOP');
    expect(await codeOf(calls.open(held.at('file-link'), fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o644))).toBe('EEXIST');
    expect(await codeOf(calls.mkdir(held.at('dir-link'), 0o755))).toBe('EEXIST');
    expect(await codeOf(calls.rmdir(held.at('dir-link')))).toBe('ENOTDIR');
    expect((await calls.lstat(held.at('file-link'))).isSymbolicLink()).toBe(true);
    expect((await calls.lstatExact(held.at('dir-link'))).isSymbolicLink()).toBe(true);
    expect(await calls.readlink(held.at('dir-link'))).toBe(outside);
    // A lock's lease renewed at a name swapped for a link renews the link, not what it points to.
    expect(await codeOf(calls.utimes(held.at('file-link'), new Date(1e12)))).toBe('done');
    const listed = (await calls.readdir(held.self)).map((d) => [d.name, d.isSymbolicLink()]).sort();
    expect(listed).toEqual([['dir-link', true], ['file-link', true]]);
    await calls.unlink(held.at('dir-link'));
    await calls.rename(held.at('file-link'), held.at('moved'));
    expect(snapshot(outside)).toEqual(before);
    expect(fs.readdirSync(path.join(work, 'target'))).toEqual(['moved']);
  });

  test('the same once calls go to the thread pool', async () => {
    const calls = make();
    // As on a slow file system: every later call is asynchronous.
    Object.assign(calls, { async: true });
    expect(calls.fast).toBe(false);
    const before = snapshot(outside);
    expect(await codeOf(calls.open(held.at('dir-link'), OPEN_DIRECTORY))).toBe('ENOTDIR');
    expect(await codeOf(calls.open(held.at('file-link'), fs.constants.O_WRONLY | fs.constants.O_TRUNC | fs.constants.O_NOFOLLOW))).toBe('ELOOP');
    expect(await codeOf(calls.utimes(held.at('file-link'), new Date(1e12)))).toBe('done');
    expect((await calls.lstat(held.at('file-link'))).isSymbolicLink()).toBe(true);
    const fd = await calls.open(held.at('new'), fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
    await calls.write(fd, Buffer.from('ours'));
    await calls.close(fd);
    await calls.link(held.at('new'), held.at('hard'));
    await calls.symlink('new', held.at('soft'));
    await calls.unlink(held.at('file-link'));
    expect(snapshot(outside)).toEqual(before);
    expect(fs.readFileSync(path.join(work, 'target', 'hard'), 'utf8')).toBe('ours');
    expect(fs.readlinkSync(path.join(work, 'target', 'soft'))).toBe('new');
  });
});

test('the addon\'s calls name the path as Node\'s do in their errors', async () => {
  const calls = BACKENDS[0][1]();
  await expect(calls.mkdir(held.at('dir-link'), 0o755)).rejects.toMatchObject({ code: 'EEXIST', syscall: 'mkdir', path: held.at('dir-link').path, message: `EEXIST: file already exists, mkdir '${held.at('dir-link').path}'` });
  await expect(calls.open(held.at('missing'), fs.constants.O_RDONLY)).rejects.toMatchObject({ code: 'ENOENT', syscall: 'open', path: held.at('missing').path });
});

test('the addon\'s lstat (statx, no descriptor) reads what Node\'s lstat reads, field by field', async () => {
  const calls = new HeldNameCalls(addon!);
  fs.writeFileSync(path.join(work, 'target', 'file'), 'twelve bytes');
  fs.mkdirSync(path.join(work, 'target', 'dir'), 0o750);
  fs.utimesSync(path.join(work, 'target', 'file'), 1_600_000_000.123456, 1_700_000_000.987654);
  const fields = (s: object) => Object.fromEntries(['dev', 'ino', 'mode', 'nlink', 'uid', 'gid', 'rdev', 'size', 'blksize', 'blocks',
    'atimeMs', 'mtimeMs', 'ctimeMs', 'atimeNs', 'mtimeNs', 'ctimeNs'].filter((k) => k in s).map((k) => [k, (s as Record<string, unknown>)[k]]));
  for (const name of ['file', 'dir', 'dir-link', 'file-link']) {
    const node = fs.lstatSync(path.join(work, 'target', name));
    const nodeExact = fs.lstatSync(path.join(work, 'target', name), { bigint: true });
    for (const ours of [calls.lstatSync(held.at(name)), await calls.lstat(held.at(name))]) {
      expect(fields(ours)).toEqual(fields(node));
      expect([ours.isFile(), ours.isDirectory(), ours.isSymbolicLink(), ours.mtime.getTime()]).toEqual([node.isFile(), node.isDirectory(), node.isSymbolicLink(), node.mtime.getTime()]);
    }
    for (const ours of [calls.lstatSync(held.at(name), { bigint: true }), await calls.lstat(held.at(name), { bigint: true })]) {
      expect(fields(ours)).toEqual(fields(nodeExact));
    }
  }
  // The held directory itself ('' names it) is never a name the addon stats: one component only.
  expect(() => calls.lstatSync(held.self)).toThrow('the name must be one path component');
});

test('a HeldName is one name: a path, . and .. are refused before any call', () => {
  for (const name of ['a/b', '.', '..', 'a\0b']) expect(() => held.at(name)).toThrow(`internal: ${JSON.stringify(name)} is not one name in a directory`);
  expect(held.at('a').path).toBe(`/proc/self/fd/${held.fd}/a`);
  expect(held.self.path).toBe(`/proc/self/fd/${held.fd}`);
});
