import { ChildProcess, execFileSync, spawn, spawnSync } from 'child_process';
import { once } from 'events';
import * as fs from 'fs';
import * as path from 'path';
import { makeSentinel, snapshot } from '../../helpers/sentinel';
import { tempDir } from '../../helpers/seed-fixtures';

// The seed's boundary on its source side (issue 39, finding 1): whoever can write a local source
// directory (`sudo cdk-efs-kit seed /home/<user>/site /var/www/site`) swaps a subdirectory for a
// link while the seed runs. The built command line runs as root against two attackers: one with
// perfect timing (test/helpers/swap-on-open.c, preloaded: the swap lands just before the seed's
// open, every time, so the kernel's refusal under the seed's flags is what is tested), and a swapper
// racing it at random, for whatever interleavings that one does not make. Every run must read
// nothing outside the source (no outside content in the target, the outside trees unchanged by
// type, mode, owner, size, mtime, hash and link target); a run the swap hits fails the swapped
// entries by name.

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'bin', 'cdk-efs-kit.js');
const isRoot = process.getuid?.() === 0;
const rootTest = isRoot ? test : test.skip;
const FILES = 40;
const RACES = 5;

// The perfectly timed attacker, built once for the file.
let swapOnOpen: string;
beforeAll(() => {
  swapOnOpen = path.join(tempDir('swap-on-open-'), 'swap-on-open.so');
  execFileSync('gcc', ['-std=c11', '-Wall', '-Wextra', '-Werror', '-fPIC', '-shared', '-o', swapOnOpen, path.join(ROOT, 'test', 'helpers', 'swap-on-open.c'), '-ldl']);
});

let work: string;
let source: string;
let target: string;
let outside: string;
let swapper: ChildProcess | undefined;
beforeEach(() => {
  work = tempDir('source-boundary-');
  source = path.join(work, 'src');
  target = path.join(work, 't');
  outside = path.join(work, 'outside');
  makeSentinel(outside);
  // Root-only files outside the source, under the names the source's subdirectory has.
  fs.mkdirSync(path.join(outside, 'private'), { mode: 0o700 });
  fs.mkdirSync(path.join(source, 'sub'), { recursive: true });
  for (let i = 0; i < FILES; i++) {
    fs.writeFileSync(path.join(outside, 'private', `f${i}`), `secret ${i}`, { mode: 0o600 });
    fs.writeFileSync(path.join(source, 'sub', `f${i}`), `public ${i}`);
  }
  // And names a link to /dev would meet: endless or special files.
  for (const name of ['zero', 'urandom', 'full', 'null']) fs.writeFileSync(path.join(source, 'sub', name), 'sixteen bytes...');
  fs.writeFileSync(path.join(source, 'top.txt'), 'top');
});
afterEach(async () => {
  await stopSwapper();
  execFileSync('rm', ['-rf', work]);
});

/** Starts swapping the source's `sub` for a link to `linkTarget` and back, as fast as it can. */
function startSwapper(linkTarget: string): void {
  const script = `
import os, sys, time
sub, real, link = sys.argv[1], sys.argv[1] + '.real', sys.argv[2]
while True:
    os.rename(sub, real); os.symlink(link, sub); time.sleep(0.0002)
    os.unlink(sub); os.rename(real, sub); time.sleep(0.0002)`;
  swapper = spawn('python3', ['-c', script, path.join(source, 'sub'), linkTarget], { stdio: 'ignore' });
}

/** Stops the swapper (the process this test started) and puts the real directory back. */
async function stopSwapper(): Promise<void> {
  if (!swapper) return;
  const exited = once(swapper, 'exit');
  swapper.kill('SIGKILL');
  await exited;
  swapper = undefined;
  const sub = path.join(source, 'sub');
  if (fs.lstatSync(sub, { throwIfNoEntry: false })?.isSymbolicLink()) fs.unlinkSync(sub);
  if (fs.existsSync(`${sub}.real`)) fs.renameSync(`${sub}.real`, sub);
}

interface Summary { written: number; failed: Array<{ path: string; error: string }>; pathResolution: string }

function seed(env: Record<string, string> = {}): { status: number | null; summary?: Summary; output: string } {
  fs.rmSync(target, { recursive: true, force: true });
  const run = spawnSync(process.execPath, [CLI, 'seed', source, target, '--json', '--workers', '2'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } });
  let summary: Summary | undefined;
  try {
    summary = JSON.parse(run.stdout);
  } catch {
    // reported below with the output
  }
  return { status: run.status, summary, output: `${run.stdout}${run.stderr}` };
}

/** Every regular file in the target, with its content (at most 64 bytes of it) and size. */
function targetFiles(): Array<{ file: string; size: number; head: string }> {
  const out = execFileSync('find', ['.', '-path', './.cdk-efs-kit', '-prune', '-o', '-type', 'f', '-print'], { cwd: target, encoding: 'utf8' });
  return out.split('\n').filter(Boolean).map((file) => {
    const full = path.join(target, file);
    const size = fs.statSync(full).size;
    const fd = fs.openSync(full, 'r');
    const buffer = Buffer.alloc(64);
    const n = fs.readSync(fd, buffer, 0, 64, 0);
    fs.closeSync(fd);
    return { file, size, head: buffer.subarray(0, n).toString('latin1') };
  });
}

/** Every file written holds the source's content, no more than its size. */
function expectOnlySourceContent(): void {
  for (const { file, size, head } of targetFiles()) {
    expect({ file, size: size <= 16, content: /^(public \d+|sixteen bytes\.\.\.|top)$/.test(head) }).toEqual({ file, size: true, content: true });
  }
}

/** The entries a run refused as reached through a link: each the subdirectory or a file in it, and the run failed. */
function refusedLinks(run: ReturnType<typeof seed>): string[] {
  expect({ parsed: run.summary !== undefined, output: run.summary ? '' : run.output }).toEqual({ parsed: true, output: '' });
  const swapped = run.summary!.failed.filter((f) => /symlink/.test(f.error)).map((f) => f.path);
  for (const entry of swapped) expect(entry).toMatch(/^sub(\/|$)/);
  if (swapped.length > 0) expect(run.status).toBe(1);
  return swapped;
}

const PRIVATE = 'the root-only files outside';
const MOMENTS = { 'the walk opens it to list it': 1, 'the copy opens its first file': 2 } as const;

describe('a source subdirectory swapped for a link just before the seed opens it (the CLI as root)', () => {
  const cases = (['openat2', 'descriptor walk'] as const).flatMap((resolution) =>
    (Object.keys(MOMENTS) as Array<keyof typeof MOMENTS>).flatMap((moment) =>
      [PRIVATE, '/dev'].map((aim) => ({ resolution, moment, aim }))));
  rootTest.each(cases)('$resolution, when $moment, aimed at $aim: refused by name, nothing read outside', ({ resolution, moment, aim }) => {
    const before = snapshot(outside);
    const run = seed({
      ...(resolution === 'openat2' ? {} : { CDK_EFS_KIT_OPENAT2: '0' }),
      LD_PRELOAD: swapOnOpen,
      SWAP_ROOT: fs.realpathSync(source),
      SWAP_DIR: path.join(fs.realpathSync(source), 'sub'),
      SWAP_LINK: aim === PRIVATE ? path.join(outside, 'private') : aim,
      SWAP_AT: String(MOMENTS[moment]),
    });
    expect(run.output).toContain('swap-on-open: ');
    const refused = refusedLinks(run);
    // Listing refuses the directory itself; past it, every file in it is refused, each by name.
    expect(refused).toEqual(MOMENTS[moment] === 1 ? ['sub'] : expect.arrayContaining(['sub/f0']));
    if (MOMENTS[moment] === 2) expect(refused).toHaveLength(FILES + 4);
    expect(run.summary!.pathResolution).toMatch(resolution === 'openat2' ? /^openat2$/ : /^descriptor walk/);
    expectOnlySourceContent();
    expect(snapshot(outside)).toEqual(before);
  });
});

describe('a swapper racing the seed at random (the CLI as root)', () => {
  rootTest.each([PRIVATE, '/dev'])('aimed at %s: no run reads anything outside the source', async (aim) => {
    const before = snapshot(outside);
    startSwapper(aim === PRIVATE ? path.join(outside, 'private') : aim);
    try {
      for (let race = 1; race <= RACES; race++) {
        refusedLinks(seed());
        expectOnlySourceContent();
      }
    } finally {
      await stopSwapper();
    }
    expect(snapshot(outside)).toEqual(before);
  });
});

describe('how paths are resolved, as the summary says', () => {
  test('openat2 where the kernel allows it (this one, 6.18, does)', () => {
    const run = seed();
    expect(run.summary).toMatchObject({ written: FILES + 5, failed: [], pathResolution: 'openat2' });
  });

  test('the descriptor walk where openat2 is refused, with why', () => {
    const run = seed({ CDK_EFS_KIT_OPENAT2: '0' });
    expect(run.summary).toMatchObject({ written: FILES + 5, failed: [], pathResolution: 'descriptor walk (turned off by CDK_EFS_KIT_OPENAT2=0)' });
  });
});

describe('links in the source, left in place', () => {
  test('a link to a directory outside, or to /dev, is never followed: refused by name, nothing read through it', () => {
    fs.symlinkSync(path.join(outside, 'private'), path.join(source, 'away'));
    fs.symlinkSync('/dev', path.join(source, 'dev'));
    const before = snapshot(outside);
    const run = seed();
    expect(run.summary!.failed.map((f) => f.path).sort()).toEqual(['away', 'dev']);
    expect(run.summary!.failed.every((f) => /the link points to an absolute path/.test(f.error))).toBe(true);
    expect(fs.existsSync(path.join(target, 'away')) || fs.existsSync(path.join(target, 'dev'))).toBe(false);
    expect(targetFiles().filter(({ head }) => !/^(public \d+|sixteen bytes\.\.\.|top)$/.test(head))).toEqual([]);
    expect(snapshot(outside)).toEqual(before);
  });
});
