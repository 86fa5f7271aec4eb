import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { describeWithFuse } from '../helpers/efs-sim';
import { DEV_NULL_AS_FUSE, WITHOUT_DEV_FUSE } from '../helpers/no-dev-fuse';

// `npm run demo:s3-files` is `npm run build` (npm test has done it) then scripts/demo-s3-files.ts,
// run here as it is, end to end: moto from the .venv, efs-sim's s3files profile where FUSE works,
// the built CLI's seed and probe. Outcomes are asserted (what is in the bucket, what shows through the
// mount, what the probe measured, what is left running), never how long anything took.
const root = path.join(__dirname, '..', '..');
const isRoot = process.getuid?.() === 0;
const rootTest = isRoot ? test : test.skip;

interface DemoRun {
  status: number | null;
  out: string;
  /** The run's own temporary directory (its TMPDIR): efs-sim's mount points and the sample tree go there. */
  scratch: string;
}

const scratches: string[] = [];
afterAll(() => scratches.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function demo(prefix: string[] = []): DemoRun {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-s3-files-'));
  scratches.push(scratch);
  const [command, ...args] = [...prefix, path.join(root, 'node_modules', '.bin', 'tsx'), path.join(root, 'scripts', 'demo-s3-files.ts')];
  const result = spawnSync(command, args, {
    cwd: root, encoding: 'utf8', env: { ...process.env, TMPDIR: scratch }, maxBuffer: 16 * 1024 * 1024, timeout: 600_000,
  });
  return { status: result.status, out: `${result.stdout}${result.stderr}`, scratch };
}

/** The demo in a process group of its own, sent Ctrl-C's SIGINT (to the whole group, as a terminal does) once `marker` is printed. */
async function demoInterrupted(marker: string): Promise<DemoRun> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-s3-files-'));
  scratches.push(scratch);
  const child = spawn(path.join(root, 'node_modules', '.bin', 'tsx'), [path.join(root, 'scripts', 'demo-s3-files.ts')], {
    cwd: root, env: { ...process.env, TMPDIR: scratch }, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let sent = false;
  const take = (chunk: Buffer) => {
    out += chunk.toString('utf8');
    if (!sent && out.includes(marker)) {
      sent = true;
      process.kill(-child.pid!, 'SIGINT');
    }
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { status, out, scratch };
}

/** The moto server the demo started, still running: a moto_server process on the port the demo printed. */
function motoLeftRunning(out: string): boolean {
  const port = /moto's S3 at http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1];
  expect(port).toBeDefined();
  return fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).some((pid) => {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return argv.some((a) => a.endsWith('moto_server')) && argv.includes(port!);
    } catch {
      return false; // ended while we looked
    }
  });
}

/** What the demo left in its TMPDIR or mounted there. */
function leftBehind(run: DemoRun): { mountPoints: string[]; mounts: string[] } {
  return {
    mountPoints: fs.readdirSync(run.scratch).filter((n) => n.startsWith('efs-sim-')),
    mounts: fs.readFileSync('/proc/mounts', 'utf8').split('\n').filter((l) => l.includes(` ${run.scratch}/`)),
  };
}

const SUMMARY_BUCKET = '  the bucket, s3://cdk-efs-kit-demo/www/: 200 of 200 files as objects of the source\'s size (and the seed\'s manifest)';

/** Without a mount: the bucket seeded, the rest named as skipped in the one line and the summary, nothing left running. */
function expectBucketOnly(run: DemoRun, reason: RegExp): void {
  expect({ status: run.status, out: run.out }).toMatchObject({ status: 0 });
  const lines = run.out.split('\n');
  expect(lines.filter((l) => l.includes('efs-sim skipped'))).toEqual([expect.stringMatching(new RegExp(
    `^efs-sim skipped \\(${reason.source}\\): the seed fills the bucket on moto without an S3 Files mount over it; the files through the mount and the probe are left out; to see them on efs-sim's s3files profile, .+$`))]);
  expect(lines).toEqual(expect.arrayContaining([SUMMARY_BUCKET, '  through the S3 Files mount: skipped (no efs-sim)', '  the probe: skipped (no mount to probe)', '  moto stopped']));
  expect(run.out).not.toContain('== Probing');
  expect(motoLeftRunning(run.out)).toBe(false);
  expect(leftBehind(run)).toEqual({ mountPoints: [], mounts: [] });
}

describe('npm run demo:s3-files on a machine without FUSE', () => {
  rootTest('without /dev/fuse it seeds the bucket on moto, and says in one line that the mount and the probe are left out and what brings them back', () => {
    const run = demo(WITHOUT_DEV_FUSE);
    expectBucketOnly(run, /this machine has no \/dev\/fuse/);
    expect(run.out).toMatch(/to see them on efs-sim's s3files profile, use a machine with FUSE \(in Docker: --device \/dev\/fuse --cap-add SYS_ADMIN\)\n/);
    expect(run.out).toMatch(/\$ cdk-efs-kit seed \S+ s3:\/\/cdk-efs-kit-demo\/www --s3-endpoint http:\/\/127\.0\.0\.1:\d+\n/);
  }, 600_000);

  rootTest('where efs-sim passes its checks but does not mount (/dev/null bound over /dev/fuse), it says so in one line, seeds the bucket, and leaves no mount point', () => {
    const run = demo(DEV_NULL_AS_FUSE);
    expectBucketOnly(run, /it did not start: efs-sim: .+/);
  }, 600_000);
});

describeWithFuse('npm run demo:s3-files with efs-sim', () => {
  let run: DemoRun;
  beforeAll(() => {
    run = demo();
  }, 600_000);

  test('runs to the end, with the seed\'s files in the bucket and the mount over it', () => {
    expect({ status: run.status, out: run.out }).toMatchObject({ status: 0 });
    expect(run.out).not.toContain('efs-sim skipped');
    expect(run.out).toMatch(new RegExp(`== efs-sim --profile s3files mounts s3://cdk-efs-kit-demo/ at ${run.scratch}/efs-sim-\\w+\\n`));
    expect(run.out).toMatch(/\$ cdk-efs-kit seed \S+ s3:\/\/cdk-efs-kit-demo\/www --s3-endpoint http:\/\/127\.0\.0\.1:\d+ --mount \S+\/www\n/);
    expect(run.out.split('\n')).toContain(SUMMARY_BUCKET);
  });

  test('shows every seeded file through the mount with the source\'s size, and one read back byte for byte', () => {
    expect(run.out).toMatch(/^ {2}dir-00\/ {2}dir-01\/ {2}dir-02\/ {2}dir-03\/ {2}\.\.\. \(10 directories\)$/m);
    expect(run.out).toContain('  200 files; dir-00/file-0.dat read back: the source\'s bytes');
    expect(run.out.split('\n')).toContain('  through the S3 Files mount: 200 of 200 files with the source\'s size, dir-00/file-0.dat byte for byte');
  });

  test('probes the mount with S3 Files\' canary through the bucket: every scenario measured, no error', () => {
    expect(run.out).toMatch(/^ {2}the probe: 6 scenarios \(write-sizes, create-files, metadata, import, direct-read, export-lag\), \d+ operations measured, 0 errors$/m);
    // The probe's own tables: the import's first listing, a read from the bucket, each file's way back to it.
    expect(run.out).toMatch(/^first-listing +1 .* 0$/m);
    expect(run.out).toMatch(/^read-large +2 .* 0$/m);
    expect(run.out).toMatch(/^export +3 .* 0$/m);
  });

  test('unmounts efs-sim and stops moto', () => {
    expect(run.out).toMatch(/== Cleaning up\n {2}efs-sim unmounted from \S+\n {2}S3 client closed\n {2}moto stopped\n/);
    expect(motoLeftRunning(run.out)).toBe(false);
    expect(leftBehind(run)).toEqual({ mountPoints: [], mounts: [] });
  });
});

describeWithFuse('npm run demo:s3-files, interrupted', () => {
  test('Ctrl-C while the probe runs unmounts efs-sim and stops moto before it exits', async () => {
    const run = await demoInterrupted('== Probing the mount');
    expect(run.out).toMatch(/SIGINT: cleaning up\n/);
    expect(run.out).toMatch(/ {2}efs-sim unmounted from \S+\n/);
    expect(run.out).toMatch(/ {2}moto stopped\n/);
    expect(run.status).not.toBe(0);
    expect(motoLeftRunning(run.out)).toBe(false);
    expect(leftBehind(run)).toEqual({ mountPoints: [], mounts: [] });
  }, 600_000);
});
