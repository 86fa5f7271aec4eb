/**
 * `npm run demo:s3-files`: S3 Files seeded and probed locally. moto's S3 on 127.0.0.1 is the
 * bucket, efs-sim's s3files profile the file system over it (its sync agent exports and imports
 * with S3 Files' lags, shortened); `cdk-efs-kit seed` fills the bucket until every file shows
 * through the mount, the demo lists what the bucket and the mount hold, and `cdk-efs-kit probe`
 * runs S3 Files' canary on the mount. It installs moto's .venv where it is missing
 * (tools/setup.sh moto). Where efs-sim cannot run, one line says so: the seed fills the bucket on
 * moto alone, and the mount and the probe are left out. Everything it started is stopped at the end.
 */
import { CreateBucketCommand, PutBucketVersioningCommand, S3Client } from '@aws-sdk/client-s3';
import { spawnSync } from 'child_process';
import * as os from 'os';
import * as path from 'path';
import { smallFileTree, Workload } from '../bench/lib/workloads';
import { EfsSim, startEfsSim } from '../tools/efs-sim/mount';
import { Moto, motoInstalled, startMoto } from '../tools/moto/server';
import { efsSimRemedy, prepareEfsSim } from './demo-efs-sim';
import { stopRunningClis } from './demo-cli';
import { probeOutcome, probeS3FilesMount } from './demo-s3-files-probe';
import { DemoBucket, differences, filesUnder, objectsInBucket, seedBucket, viewThroughMount } from './demo-s3-files-seed';

const BUCKET = 'cdk-efs-kit-demo';
const PREFIX = 'www';
/** Shorter than S3 Files' (about 60 s to export, 30 s to show a bucket change) so the demo takes a minute or two. */
const EXPORT_WINDOW_SECONDS = 10;
const IMPORT_DELAY_SECONDS = 5;

/** What to undo, last started first; undone once, at the end or on Ctrl-C, whichever comes first. */
const cleanups: Array<{ action: string; done: string; undo: () => Promise<void> }> = [];
let cleaning: Promise<void> | undefined;

function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    console.log('\n== Cleaning up');
    await stopRunningClis();
    for (let c = cleanups.pop(); c; c = cleanups.pop()) {
      try {
        await c.undo();
        console.log(`  ${c.done}`);
      } catch (err) {
        console.error(`  could not ${c.action}: ${(err as Error).message}`);
      }
    }
  })();
  return cleaning;
}

/** moto's server from the .venv, installed first where it is missing; undefined (and one line why) where it cannot be. */
async function motoHere(): Promise<Moto | undefined> {
  if (!motoInstalled()) {
    console.log('\n== Installing moto\'s S3 server into .venv (bash tools/setup.sh moto)');
    spawnSync('bash', [path.join(__dirname, '..', 'tools', 'setup.sh'), 'moto'], { stdio: 'inherit' });
  }
  if (!motoInstalled()) {
    console.log('\nmoto not installed (bash tools/setup.sh moto failed: it needs python3 with venv and pip, and PyPI): the S3 Files demo has no bucket to seed; install it and run npm run demo:s3-files again');
    return undefined;
  }
  return startMoto();
}

/** The last line a failed command printed (efs-sim says what stopped it there). */
const lastLine = (err: unknown) => String((err as { stderr?: string }).stderr || (err as Error).message).trim().split('\n').pop();

/**
 * efs-sim's s3files profile over the bucket; where it cannot run or does not start, undefined and
 * one line on what is left out and what brings it back.
 */
async function mountHere(bucket: DemoBucket): Promise<EfsSim | undefined> {
  const blocker = prepareEfsSim();
  let why = blocker && { reason: blocker.reason, remedy: efsSimRemedy(blocker, 'demo:s3-files') };
  if (!why) {
    try {
      return await mountOver(bucket);
    } catch (err) {
      why = { reason: `it did not start: ${lastLine(err)}`, remedy: 'see why with sudo tools/efs-sim/efs-sim start <dir> --profile s3files (docs/efs-sim.md)' };
    }
  }
  console.log(`\nefs-sim skipped (${why.reason}): the seed fills the bucket on moto without an S3 Files mount over it; the files through the mount and the probe are left out; to see them on efs-sim's s3files profile, ${why.remedy}`);
  return undefined;
}

async function createBucket(moto: Moto): Promise<DemoBucket> {
  const client = new S3Client(moto.clientConfig);
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
  // S3 Files requires versioning on its bucket.
  await client.send(new PutBucketVersioningCommand({ Bucket: BUCKET, VersioningConfiguration: { Status: 'Enabled' } }));
  cleanups.push({ action: 'close the S3 client', done: 'S3 client closed', undo: async () => client.destroy() });
  return { client, endpoint: moto.endpoint, name: BUCKET, prefix: PREFIX };
}

async function mountOver(bucket: DemoBucket): Promise<EfsSim> {
  const sim = await startEfsSim({
    profile: 's3files',
    flags: [`--s3-endpoint=${bucket.endpoint}`, `--bucket=${bucket.name}`, `--export-window=${EXPORT_WINDOW_SECONDS}`, `--import-delay=${IMPORT_DELAY_SECONDS}`],
  });
  cleanups.push({ action: `unmount efs-sim from ${sim.mount}`, done: `efs-sim unmounted from ${sim.mount}`, undo: () => sim.stop() });
  console.log(`\n== efs-sim --profile s3files mounts s3://${bucket.name}/ at ${sim.mount}`);
  console.log(`  changes through the mount reach the bucket after ${EXPORT_WINDOW_SECONDS} s, the bucket's show in the mount after ${IMPORT_DELAY_SECONDS} s (S3 Files: about 60 s and 30 s, third-party figures)`);
  return sim;
}

function showMount(tree: Workload, mountDir: string): string {
  const view = viewThroughMount(tree, mountDir);
  console.log(`\n== Through the mount, ${mountDir}`);
  console.log(`  ${view.directories.slice(0, 4).map((d) => `${d}/`).join('  ')}${view.directories.length > 4 ? `  ... (${view.directories.length} directories)` : ''}`);
  console.log(`  ${view.files} files; ${view.readBack.path} read back: ${view.readBack.same ? 'the source\'s bytes' : 'DIFFERENT from the source'}`);
  if (view.differing.length) console.log(`  missing or of another size: ${view.differing.slice(0, 5).join(', ')}${view.differing.length > 5 ? ', ...' : ''}`);
  return `through the S3 Files mount: ${view.files - view.differing.length} of ${tree.files} files with the source's size${view.readBack.same ? `, ${view.readBack.path} byte for byte` : ''}`;
}

async function runProbe(sim: EfsSim, bucket: DemoBucket): Promise<string> {
  console.log('\n== Probing the mount with S3 Files\' canary (what BenchmarkProbe runs on S3 Files)');
  const outcome = probeOutcome(await probeS3FilesMount(sim.mount, `s3://${bucket.name}/`, bucket.endpoint));
  const errors = outcome.reduce((n, s) => n + s.errors, 0);
  const failed = outcome.filter((s) => s.failure).map((s) => s.scenario);
  return `the probe: ${outcome.length} scenarios (${outcome.map((s) => s.scenario).join(', ')}), ${outcome.reduce((n, s) => n + s.operations, 0)} operations measured, ${errors} errors${failed.length ? `, failed: ${failed.join(', ')}` : ''}`;
}

async function main(): Promise<void> {
  console.log('cdk-efs-kit S3 Files demo');
  // moto takes any credentials; set, they keep the SDK from looking elsewhere (no instance metadata).
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1', AWS_EC2_METADATA_DISABLED: 'true' });
  const moto = await motoHere();
  if (!moto) {
    process.exitCode = 1;
    return;
  }
  cleanups.push({ action: 'stop moto', done: 'moto stopped', undo: () => moto.stop() });
  console.log(`\n== moto's S3 at ${moto.endpoint}: bucket ${BUCKET}, versioned as S3 Files requires`);
  const bucket = await createBucket(moto);
  const sim = await mountHere(bucket);
  const mountDir = sim && path.join(sim.mount, PREFIX);

  const tree = smallFileTree(path.join(os.tmpdir(), 'cdk-efs-kit-bench-data'), 200, 10);
  console.log(`\n== Seeding ${tree.description} into s3://${bucket.name}/${PREFIX}${mountDir ? ', until each shows through the mount' : ''}`);
  await seedBucket(tree, bucket, mountDir);
  const objects = await objectsInBucket(bucket);
  const notInBucket = differences(filesUnder(tree.dir), objects);
  const summary = [`the bucket, s3://${bucket.name}/${PREFIX}/: ${tree.files - notInBucket.length} of ${tree.files} files as objects of the source's size (and the seed's manifest)`];
  if (sim && mountDir) {
    summary.push(showMount(tree, mountDir), await runProbe(sim, bucket));
  } else {
    summary.push('through the S3 Files mount: skipped (no efs-sim)', 'the probe: skipped (no mount to probe)');
  }
  console.log('\n== Summary');
  for (const line of summary) console.log(`  ${line}`);
}

// Ctrl-C: efs-sim's daemon and mount outlive this process unless stopped.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: cleaning up`);
    void cleanUp().finally(() => process.exit(130));
  });
}

main()
  .catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  })
  .finally(cleanUp);
