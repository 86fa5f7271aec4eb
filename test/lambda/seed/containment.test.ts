import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ChildProcess, execFileSync, spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { describeWithFuse, onEfsSim } from '../../helpers/efs-sim';
import { Moto, startMoto } from '../../helpers/moto';
import { snapshot } from '../../helpers/sentinel';
import { makeTree, tempDir, treeDigest, manifestPaths } from '../../helpers/seed-fixtures';
import { seedCreate } from '../../helpers/seed-create';

// The seed against someone who changes the target while it runs, and two seeds of one target at once.
// The racer is a real unprivileged process (nobody) that owns the target and, in a loop for the whole
// run, swaps a directory of it for a symlink to a root-owned directory outside and back; the seed
// runs as root (the CLI with --allow-root, and the bundled handler in this process). Every round must
// leave the directory outside exactly as it was: nothing created there, nothing deleted.

const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'bin', 'cdk-efs-kit.js');
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const ROUNDS = 5;

type Mode = 'once' | 'flap';

/**
 * The racer, as nobody. `flap`: swaps `target`/d for a link to `victim` and back, again and again;
 * `once`: waits until the seed has written into d, then swaps it for the link once and leaves it
 * (what a checked-once-then-trusted path falls to). It stops when the file `signals`/stop appears,
 * says it is under way with `signals`/ready, and prints the swaps it made.
 */
const RACER = `
const fs = require('fs');
const [mode, target, victim, signals] = process.argv.slice(1);
const d = target + '/d', aside = target + '/d.aside', stop = signals + '/stop';
const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
let swaps = 0;
fs.writeFileSync(signals + '/ready', '');
if (mode === 'once') {
  while (!fs.existsSync(stop) && !fs.existsSync(d + '/new-5')) pause(0.1);
  fs.renameSync(d, aside);
  fs.symlinkSync(victim, d);
  swaps++;
} else {
  while (!fs.existsSync(stop)) {
    try {
      fs.renameSync(d, aside);
      fs.symlinkSync(victim, d);
      swaps++;
      if (swaps % 4 === 0) pause(1); // now and then the link stays a little longer
      fs.unlinkSync(d);
      fs.renameSync(aside, d);
    } catch {
      try { if (fs.lstatSync(d).isSymbolicLink()) fs.unlinkSync(d); } catch {}
      try { if (!fs.existsSync(d)) fs.renameSync(aside, d); } catch {}
    }
  }
}
console.log(swaps);
`;

(isRoot ? describe : describe.skip)('a racer swapping a directory of the target for a link while root seeds it', () => {
  let base: string;
  let moto: Moto;
  let s3: S3Client;
  let handler: any;
  let uploads = 0;

  beforeAll(async () => {
    base = tempDir('race-');
    // nobody must reach its target: the test run's own temporary directories are private.
    for (let dir = base; dir !== path.dirname(dir) && dir.startsWith(os.tmpdir()); dir = path.dirname(dir)) fs.chmodSync(dir, fs.statSync(dir).mode | 0o711);
    moto = await startMoto();
    Object.assign(process.env, { AWS_ENDPOINT_URL: moto.endpoint, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' });
    handler = require(path.join(__dirname, '..', '..', '..', 'dist', 'handlers', 'seed', 'index.js'));
    s3 = new S3Client(moto.clientConfig);
    await s3.send(new CreateBucketCommand({ Bucket: 'race' }));
  }, 120_000);
  // A round that failed before it stopped its racer must not leave it running.
  const racers: ChildProcess[] = [];
  afterEach(() => racers.splice(0).forEach((racer) => racer.kill('SIGKILL')));
  afterAll(async () => {
    await moto.stop();
    fs.rmSync(base, { recursive: true, force: true });
  });

  /** A round's places: the target (nobody's), the victim outside (root's, with the names the seed writes and prunes), the sources. */
  function round(n: number) {
    const dir = path.join(base, `round-${n}`);
    const mountRoot = path.join(dir, 'mnt');
    const target = path.join(mountRoot, 't');
    const victim = path.join(dir, 'victim');
    const first = path.join(dir, 'first');
    const second = path.join(dir, 'second');
    for (let i = 0; i < 600; i++) {
      fs.mkdirSync(path.join(first, 'd'), { recursive: true });
      fs.writeFileSync(path.join(first, 'd', `old-${i}`), `old ${i}`);
      fs.mkdirSync(path.join(second, 'd'), { recursive: true });
      fs.writeFileSync(path.join(second, 'd', `new-${i}`), `new ${i}`);
    }
    makeTree(path.join(second, 'other'), 4, 25, [64, 256]);
    fs.mkdirSync(victim);
    for (let i = 0; i < 600; i++) fs.writeFileSync(path.join(victim, `old-${i}`), `root's ${i}`);
    fs.mkdirSync(target, { recursive: true });
    fs.chownSync(target, NOBODY, NOBODY);
    return { mountRoot, target, victim, first, second };
  }

  /** The racer, under way once this resolves, running until `stop()`, which resolves to the swaps it made. */
  async function startRacer(mode: Mode, target: string, victim: string): Promise<{ stop: () => Promise<number> }> {
    // Beside the target, in a directory of nobody's own.
    const signals = `${target}.signals`;
    fs.mkdirSync(signals);
    fs.chownSync(signals, NOBODY, NOBODY);
    const child = spawn('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, '-e', RACER, mode, target, victim, signals], { stdio: ['ignore', 'pipe', 'inherit'] });
    racers.push(child);
    let out = '';
    child.stdout!.on('data', (chunk) => { out += chunk; });
    const exited = new Promise<number>((resolve) => child.on('exit', () => resolve(Number(out.trim()))));
    await waitFor(() => fs.existsSync(path.join(signals, 'ready')));
    return { stop: () => { fs.writeFileSync(path.join(signals, 'stop'), ''); return exited; } };
  }

  /** The CLI in a child process (the racer runs meanwhile: not spawnSync, which would block this process). */
  const runCli = (...args: string[]) => new Promise<{ status: number | null }>((resolve) => {
    spawn(process.execPath, [CLI, 'seed', ...args], { stdio: 'ignore' }).on('exit', (status) => resolve({ status }));
  });

  async function zipped(dir: string): Promise<string> {
    const key = `source-${uploads++}.zip`;
    const file = path.join(base, key);
    execFileSync('zip', ['-qry', file, '.'], { cwd: dir });
    await s3.send(new PutObjectCommand({ Bucket: 'race', Key: key, Body: fs.readFileSync(file) }));
    return key;
  }

  const rounds = (['once', 'flap'] as const).flatMap((mode) => Array.from({ length: ROUNDS }, (_, n) => [mode, n + 1] as const));
  let places = 0;

  test.each(rounds)('through the CLI with --prune, the link put there %s, round %i: nothing outside is created or deleted', async (mode) => {
    const r = round(places++);
    expect(spawnSync(process.execPath, [CLI, 'seed', r.first, r.target, '--allow-root', '--json']).status).toBe(0);
    const before = snapshot(r.victim);
    const racer = await startRacer(mode, r.target, r.victim);
    const run = await runCli(r.second, r.target, '--allow-root', '--prune', '--json', '--concurrency', '32');
    const swaps = await racer.stop();
    expect([0, 1]).toContain(run.status);
    expect(snapshot(r.victim)).toEqual(before);
    // The race was on while the seed ran.
    expect(swaps).toBeGreaterThan(0);
  }, 180_000);

  test.each(rounds)('through the bundled handler, the link put there %s, round %i: nothing outside is created or deleted', async (mode) => {
    const r = round(places++);
    const mountPath = `/mnt/cdk-efs-kit-race-${process.pid}-${places}`;
    fs.symlinkSync(r.mountRoot, mountPath);
    try {
      const props = (key: string, prune: string) => ({
        Bucket: 'race', Key: key, Format: 'zip', Fingerprint: key, MountPath: mountPath, TargetSubPath: 't', Concurrency: '32', Prune: prune, RemoveOnDelete: 'false',
      });
      const context = { getRemainingTimeInMillis: () => 900_000 };
      const quiet = [jest.spyOn(console, 'log').mockImplementation(() => undefined), jest.spyOn(console, 'warn').mockImplementation(() => undefined)];
      try {
        await seedCreate(handler, { RequestType: 'Create', ResourceProperties: props(await zipped(r.first), 'false') }, context);
        const key = await zipped(r.second);
        const before = snapshot(r.victim);
        const racer = await startRacer(mode, r.target, r.victim);
        await seedCreate(handler, { RequestType: 'Create', ResourceProperties: props(key, 'true') }, context).catch(() => undefined);
        expect(await racer.stop()).toBeGreaterThan(0);
        expect(snapshot(r.victim)).toEqual(before);
      } finally {
        quiet.forEach((spy) => spy.mockRestore());
      }
    } finally {
      fs.rmSync(mountPath, { force: true });
    }
  }, 180_000);
});

describe('as root, on a target another user owns or can write', () => {
  let work: string;
  beforeEach(() => {
    work = tempDir('root-');
    for (let dir = work; dir !== path.dirname(dir) && dir.startsWith(os.tmpdir()); dir = path.dirname(dir)) fs.chmodSync(dir, fs.statSync(dir).mode | 0o711);
    makeTree(path.join(work, 'src'), 2, 3);
    execFileSync('chmod', ['-R', 'a+rX', path.join(work, 'src')]);
    fs.mkdirSync(path.join(work, 'dst'));
  });
  afterEach(() => fs.rmSync(work, { recursive: true, force: true }));
  const seedAs = (...args: string[]) => spawnSync(process.execPath, [CLI, 'seed', path.join(work, 'src'), path.join(work, 'dst'), ...args], { encoding: 'utf8' });

  (isRoot ? test : test.skip)('copies as the owner by default: the files and the seed\'s state are its own', () => {
    fs.chownSync(path.join(work, 'dst'), NOBODY, NOBODY);
    expect(seedAs()).toMatchObject({ status: 0 });
    expect(treeDigest(path.join(work, 'dst'))).toEqual(treeDigest(path.join(work, 'src')));
    for (const name of ['dir-0', 'dir-0/file-0.dat', '.cdk-efs-kit', '.cdk-efs-kit/seed-manifest.json']) {
      expect([name, fs.statSync(path.join(work, 'dst', name)).uid]).toEqual([name, NOBODY]);
    }
  });

  (isRoot ? test : test.skip)('--allow-root copies as root', () => {
    fs.chownSync(path.join(work, 'dst'), NOBODY, NOBODY);
    expect(seedAs('--allow-root')).toMatchObject({ status: 0 });
    expect(fs.statSync(path.join(work, 'dst', 'dir-0', 'file-0.dat')).uid).toBe(0);
  });

  (isRoot ? test : test.skip)('a target every user can write is refused too; only --allow-root goes on', () => {
    fs.chmodSync(path.join(work, 'dst'), 0o777);
    const run = seedAs();
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/every user can write .*; make it writable by root alone, or pass --allow-root to copy as root all the same/);
    expect(seedAs('--allow-root')).toMatchObject({ status: 0 });
  });

  test('as its owner, the seed runs with no flag', () => {
    expect(seedAs()).toMatchObject({ status: 0 });
  });
});

describeWithFuse('two seeds of one target at once', () => {
  let work: string;
  beforeEach(() => {
    work = tempDir('two-');
    makeTree(path.join(work, 'src'), 20, 10);
  });
  afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

  const run = (target: string, ...args: string[]) => new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [CLI, 'seed', path.join(work, 'src'), target, '--json', '--concurrency', '8', ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => { stdout += c; });
    child.stderr.on('data', (c) => { stderr += c; });
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });

  test('the second waits for the first: one writes every file, the other finds them all unchanged', async () => {
    // Round trips of 5 ms make the first run last long enough for the second to meet its lock.
    await onEfsSim({ profile: 'local', flags: ['--latency-any=5'] }, async (sim) => {
      const target = path.join(sim.mount, 'www');
      const first = run(target);
      await waitFor(() => fs.existsSync(path.join(target, '.cdk-efs-kit', 'lock')));
      const second = await run(target);
      const one = await first;
      expect([one.status, second.status]).toEqual([0, 0]);
      expect(second.stderr).toMatch(/another seed run holds .*'s lock \(.*pid \d+ on .*\); waiting up to 60 s/);
      const [a, b] = [JSON.parse(one.stdout), JSON.parse(second.stdout)];
      expect([a.written, b.written, b.skipped]).toEqual([200, 0, 200]);
      expect(treeDigest(target)).toEqual(treeDigest(path.join(work, 'src')));
      expect(manifestPaths(target)).toHaveLength(200);
      expect(JSON.parse(fs.readFileSync(path.join(target, '.cdk-efs-kit', 'seed-manifest.json'), 'utf8')).running).toBeUndefined();
    });
  }, 180_000);

  test('with --lock-wait 0 the second gives up at once, naming the run that holds the lock, and writes nothing', async () => {
    await onEfsSim({ profile: 'local', flags: ['--latency-any=5'] }, async (sim) => {
      const target = path.join(sim.mount, 'www');
      const first = run(target);
      await waitFor(() => fs.existsSync(path.join(target, '.cdk-efs-kit', 'lock')));
      const second = await run(target, '--lock-wait', '0');
      expect(second.status).toBe(3);
      expect(second.stderr).toMatch(/another seed run holds .*www's lock \(.*, pid \d+ on .*, since .*\) and did not finish within 0 s/);
      expect(JSON.parse((await first).stdout)).toMatchObject({ written: 200, failed: [] });
    });
  }, 180_000);
});

async function waitFor(condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
