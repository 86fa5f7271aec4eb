import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadNativeAddon } from '../../../lambda/seed/boundary/native-writer';
import { BeneathOpener } from '../../../lambda/seed/boundary/open-beneath';
import { NATIVE_BUILD } from '../../helpers/native-writer';

// The beneath-opener (lambda/seed/boundary/open-beneath.ts, native/open-beneath.c) on real directories, each
// way it opens: openat2 (this kernel, 6.18, allows it), the addon's openat walk where openat2 is
// refused (CDK_EFS_KIT_OPENAT2=0 stands in for a kernel or seccomp filter that refuses it: the
// addon decides once per process, so that way runs in a process of its own), and Node's walk
// through /proc/self/fd where there is no addon.
let work: string;
let root: number;
beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk-efs-kit-beneath-'));
  fs.mkdirSync(path.join(work, 'root', 'a', 'b'), { recursive: true });
  fs.writeFileSync(path.join(work, 'root', 'a', 'b', 'c.txt'), 'inside');
  fs.writeFileSync(path.join(work, 'secret'), 'outside');
  fs.symlinkSync(work, path.join(work, 'root', 'a', 'up'));
  fs.symlinkSync(path.join(work, 'secret'), path.join(work, 'root', 'a', 'secret'));
  fs.symlinkSync('/proc/self/root', path.join(work, 'root', 'proc-root'));
  root = fs.openSync(path.join(work, 'root'), fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
});
afterEach(() => {
  fs.closeSync(root);
  fs.rmSync(work, { recursive: true, force: true });
});

/** Each path, and the code its open fails with ('fd' where it opened). */
const CASES: Array<[string, string]> = [
  ['a/b/c.txt', 'fd'],
  ['a/up/secret', 'ELOOP'], // a link to a directory outside, on the way
  ['a/secret', 'ELOOP'], // a link as the last part
  ['proc-root/etc/passwd', 'ELOOP'], // a magic link's way out
  ['a/b/missing', 'ENOENT'],
  ['a/b/c.txt/x', 'ENOTDIR'],
  ['../secret', 'EXDEV'],
  ['a/../a/b/c.txt', 'EXDEV'], // refused before any call, though it stays inside
  ['/etc/passwd', 'EXDEV'],
];

function outcomes(opener: BeneathOpener): Array<[string, string]> {
  return CASES.map(([relative]) => {
    try {
      fs.closeSync(opener.openSync(root, relative, fs.constants.O_RDONLY));
      return [relative, 'fd'];
    } catch (err) {
      return [relative, (err as NodeJS.ErrnoException).code!];
    }
  });
}

test('by openat2, where the kernel allows it: a link anywhere on the way, a .. or an absolute path is refused', async () => {
  const opener = new BeneathOpener(loadNativeAddon([NATIVE_BUILD]));
  expect(opener.resolution).toEqual({ kind: 'openat2' });
  expect(outcomes(opener)).toEqual(CASES);
  // On the thread pool alike.
  await expect(opener.open(root, 'a/up/secret', fs.constants.O_RDONLY)).rejects.toMatchObject({ code: 'ELOOP', syscall: 'open', path: 'a/up/secret' });
  const fd = await opener.open(root, 'a/b/c.txt', fs.constants.O_RDONLY);
  expect(fs.readFileSync(fd, 'utf8')).toBe('inside');
  fs.closeSync(fd);
});

test('by Node\'s walk through /proc/self/fd where there is no addon: the same refusals', async () => {
  const opener = new BeneathOpener(null);
  expect(opener.resolution).toEqual({ kind: 'descriptor walk', reason: 'the native addon is not built for this platform' });
  expect(outcomes(opener)).toEqual(CASES);
  await expect(opener.open(root, 'a/up/secret', fs.constants.O_RDONLY)).rejects.toMatchObject({ code: 'ELOOP' });
});

test('by the addon\'s openat walk where openat2 is refused (decided once per process): the same refusals', () => {
  const script = `
    const fs = require('fs');
    const { BeneathOpener } = require(${JSON.stringify(path.join(__dirname, '..', '..', '..', 'lambda', 'seed', 'boundary', 'open-beneath.ts'))});
    const { loadNativeAddon } = require(${JSON.stringify(path.join(__dirname, '..', '..', '..', 'lambda', 'seed', 'boundary', 'native-writer.ts'))});
    const opener = new BeneathOpener(loadNativeAddon([${JSON.stringify(NATIVE_BUILD)}]));
    const root = fs.openSync(process.argv[1], fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
    const cases = JSON.parse(process.argv[2]).map(([relative]) => {
      try { fs.closeSync(opener.openSync(root, relative, fs.constants.O_RDONLY)); return [relative, 'fd']; } catch (err) { return [relative, err.code]; }
    });
    console.log(JSON.stringify({ resolution: opener.resolution, cases }));`;
  const tsx = path.join(__dirname, '..', '..', '..', 'node_modules', '.bin', 'tsx');
  const run = spawnSync(tsx, ['-e', script, path.join(work, 'root'), JSON.stringify(CASES)], { encoding: 'utf8', env: { ...process.env, CDK_EFS_KIT_OPENAT2: '0' } });
  expect(run.stderr).toBe('');
  expect(JSON.parse(run.stdout)).toEqual({ resolution: { kind: 'descriptor walk', reason: 'turned off by CDK_EFS_KIT_OPENAT2=0' }, cases: CASES });
});

// openStatSync: the open above and an fstat of what it opened, in one call of the addon
// (openBeneathStatSync); read as Node's fstat reads the same descriptor.
test.each([['the addon', true], ['Node\'s walk', false]])('openStatSync by %s: the same refusals, and the mode and size fs.fstat gives', (_how, withAddon) => {
  const opener = new BeneathOpener(withAddon ? loadNativeAddon([NATIVE_BUILD]) : null);
  const got = CASES.map(([relative]): [string, string] => {
    try {
      fs.closeSync(opener.openStatSync(root, relative, fs.constants.O_RDONLY).fd);
      return [relative, 'fd'];
    } catch (err) {
      return [relative, (err as NodeJS.ErrnoException).code!];
    }
  });
  expect(got).toEqual(CASES);
  for (const relative of ['a/b/c.txt', 'a/b']) {
    const opened = opener.openStatSync(root, relative, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    try {
      const node = fs.fstatSync(opened.fd);
      expect(opened).toEqual({ fd: opened.fd, mode: node.mode, size: node.size });
    } finally {
      fs.closeSync(opened.fd);
    }
  }
});

test('openBeneathStatSync fills every number as fs.fstat computes it, and creates nothing', () => {
  const addon = loadNativeAddon([NATIVE_BUILD])!;
  const into = new Float64Array(14);
  const fd = addon.openBeneathStatSync(root, 'a/b/c.txt', fs.constants.O_RDONLY, into);
  expect(fd).toBeGreaterThanOrEqual(0);
  const node = fs.fstatSync(fd);
  fs.closeSync(fd);
  expect([...into]).toEqual([node.dev, node.ino, node.mode, node.nlink, node.uid, node.gid, node.rdev, node.size, node.blksize, node.blocks,
    node.atimeMs, node.mtimeMs, node.ctimeMs, node.birthtimeMs]);
  // A refusal leaves the numbers as they were, and nothing open.
  const before = [...into];
  expect(addon.openBeneathStatSync(root, 'a/up/secret', fs.constants.O_RDONLY, into)).toBe(-os.constants.errno.ELOOP);
  expect([...into]).toEqual(before);
  expect(() => addon.openBeneathStatSync(root, 'a/new', fs.constants.O_WRONLY | fs.constants.O_CREAT, into)).toThrow('never creates');
  expect(fs.existsSync(path.join(work, 'root', 'a', 'new'))).toBe(false);
  expect(() => addon.openBeneathStatSync(root, 'a/b/c.txt', fs.constants.O_RDONLY, new Float64Array(13))).toThrow('a Float64Array of 14');
  expect(() => addon.openBeneathStatSync(root, 'a/b/c.txt', fs.constants.O_RDONLY, new BigInt64Array(14) as unknown as Float64Array)).toThrow('a Float64Array of 14');
  expect(() => addon.openBeneathStatSync(root, '', fs.constants.O_RDONLY, into)).toThrow('non-empty string');
});
