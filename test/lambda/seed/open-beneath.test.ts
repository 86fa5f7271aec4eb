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
