import { ChildProcess, execFileSync, spawn, spawnSync } from 'child_process';
import { once } from 'events';
import * as fs from 'fs';
import * as path from 'path';
import { makeSentinel, snapshot } from '../../helpers/sentinel';
import { tempDir } from '../../helpers/seed-fixtures';

// The seed's boundary on its source side (issue 39, finding 1): whoever can write a local source
// directory (`sudo cdk-efs-kit seed /home/<user>/site /var/www/site`) swaps a subdirectory for a
// link while the seed runs. The built command line runs as root against a swapper racing it; every
// attempt must read nothing outside the source (no outside content in the target, the outside trees
// unchanged by type, mode, owner, size, mtime, hash and link target), and an attempt the race hits
// must fail the swapped entries by name. Races are retried a bounded number of times until one hits.

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'bin', 'cdk-efs-kit.js');
const isRoot = process.getuid?.() === 0;
const rootTest = isRoot ? test : test.skip;
const FILES = 40;
const ATTEMPTS = 20;

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

/** Races the swapper against the seed until a run is hit; each run must have read nothing outside. */
async function raceUntilHit(linkTarget: string, env: Record<string, string> = {}): Promise<{ hits: number; attempts: number; failures: string[] }> {
  const before = snapshot(outside);
  let hits = 0;
  let attempts = 0;
  const failures: string[] = [];
  startSwapper(linkTarget);
  try {
    while (attempts < ATTEMPTS && hits === 0) {
      attempts++;
      const run = seed(env);
      expect({ attempt: attempts, parsed: run.summary !== undefined, output: run.summary ? '' : run.output }).toEqual({ attempt: attempts, parsed: true, output: '' });
      // Whatever the race did, every file written holds the source's content, no more than its size.
      for (const { file, size, head } of targetFiles()) {
        expect({ file, size: size <= 16, content: /^(public \d+|sixteen bytes\.\.\.|top)$/.test(head) }).toEqual({ file, size: true, content: true });
      }
      const swapped = run.summary!.failed.filter((f) => /symlink/.test(f.error));
      if (swapped.length > 0) {
        hits++;
        failures.push(...swapped.map((f) => f.path));
        // A failure names the entry it refused: the subdirectory or a file in it.
        for (const f of swapped) expect(f.path).toMatch(/^sub(\/|$)/);
        expect(run.status).toBe(1);
      }
    }
  } finally {
    await stopSwapper();
  }
  expect(snapshot(outside)).toEqual(before);
  return { hits, attempts, failures };
}

describe('a source subdirectory swapped for a link while the seed runs (the CLI as root)', () => {
  rootTest('to root-only files outside the source: none is read, and the swapped entries fail by name', async () => {
    const { hits } = await raceUntilHit(path.join(outside, 'private'));
    expect(hits).toBeGreaterThan(0);
  });

  rootTest('to /dev: no device is read, and the copy ends', async () => {
    const { hits } = await raceUntilHit('/dev');
    expect(hits).toBeGreaterThan(0);
  });

  rootTest('the same by the descriptor walk, where openat2 is refused (CDK_EFS_KIT_OPENAT2=0)', async () => {
    const { hits } = await raceUntilHit(path.join(outside, 'private'), { CDK_EFS_KIT_OPENAT2: '0' });
    expect(hits).toBeGreaterThan(0);
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
