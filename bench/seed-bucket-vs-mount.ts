/**
 * Seeding an S3 Files file system two ways, side by side in one run on efs-sim's s3files profile
 * (its calibrated latencies, its sync agent over moto's S3 on 127.0.0.1):
 *   - through the bucket: `cdk-efs-kit seed <dir> s3://bucket/via-bucket --mount <mount>/via-bucket`
 *     (objects written directly; the run ends once every file shows through the mount);
 *   - through the mount: `cdk-efs-kit seed <dir> <mount>/via-mount` (the EFS seed), then the wait
 *     until S3 Files has exported every file to the bucket (the bucket is the source of truth).
 * For each: files/s to the end of the seed command, files/s to "in the bucket and visible in the
 * mount", and the S3 requests (the seed's own, and efs-sim's count of what S3 Files would send).
 *
 *   npx tsx bench/seed-bucket-vs-mount.ts [--files 2000] [--export-window 60] [--import-delay 30]
 *
 * Needs root, /dev/fuse and `npm run build`. moto's S3 takes about 170 puts/s: the bucket path's
 * rate here is moto's, not S3's (S3 takes 3,500 PUTs/s per prefix partition).
 */
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { spawnSync } from 'child_process';
import * as os from 'os';
import * as path from 'path';
import { onEfsSim } from '../tools/efs-sim/mount';
import { smallFileTree } from './lib/workloads';

const ROOT = path.join(__dirname, '..');
const CLI = path.join(ROOT, 'dist', 'bin', 'cdk-efs-kit.js');
const args = process.argv.slice(2);
const flag = (name: string, fallback: string) => { const i = args.indexOf(name); return i === -1 ? fallback : args[i + 1]; };
const FILES = Number(flag('--files', '2000'));
const EXPORT_WINDOW = flag('--export-window', '60');
const IMPORT_DELAY = flag('--import-delay', '30');

async function main(): Promise<void> {
  const tree = smallFileTree(path.join(os.tmpdir(), 'cdk-efs-kit-bench'), FILES);
  console.log(`workload: ${tree.name}, ${tree.files} files, ${(tree.bytes / 1e6).toFixed(1)} MB; efs-sim --profile s3files --export-window=${EXPORT_WINDOW} --import-delay=${IMPORT_DELAY}`);
  await onEfsSim({ profile: 's3files', flags: [`--export-window=${EXPORT_WINDOW}`, `--import-delay=${IMPORT_DELAY}`] }, async (sim) => {
    const { endpoint, bucket } = sim.s3files!;
    const env = { ...process.env, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' };
    const s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    const objects = async (prefix: string) => {
      let n = 0;
      for (let token: string | undefined; ;) {
        const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
        n += page.KeyCount ?? 0;
        if (!page.IsTruncated) return n;
        token = page.NextContinuationToken;
      }
    };

    // Through the bucket.
    await sim.resetStats();
    let started = Date.now();
    const viaBucket = spawnSync(process.execPath, [CLI, 'seed', tree.dir, `s3://${bucket}/via-bucket`, '--s3-endpoint', endpoint, '--mount', path.join(sim.mount, 'via-bucket'), '--mount-wait', '300', '--json'], { env, encoding: 'utf8' });
    const bucketDone = (Date.now() - started) / 1000;
    if (viaBucket.status !== 0) throw new Error(`the bucket seed failed: ${viaBucket.stderr}`);
    const b = JSON.parse(viaBucket.stdout);
    const bucketSync = (await sim.stats()).s3files!;
    const writeSeconds = b.seconds as number;

    // Through the mount, with the EFS seed; then until S3 Files has exported every file.
    await sim.resetStats();
    started = Date.now();
    const viaMount = spawnSync(process.execPath, [CLI, 'seed', tree.dir, path.join(sim.mount, 'via-mount'), '--json'], { env, encoding: 'utf8' });
    const mountSeedSeconds = (Date.now() - started) / 1000;
    if (viaMount.status !== 0) throw new Error(`the mount seed failed: ${viaMount.stderr}`);
    for (;;) {
      const stats = (await sim.stats()).s3files!;
      if (stats.pendingExports === 0 && (await objects('via-mount/')) >= tree.files) break;
      if (Date.now() - started > 900_000) throw new Error('the export did not finish within 15 minutes');
      await new Promise((r) => setTimeout(r, 500));
    }
    const mountExported = (Date.now() - started) / 1000;
    const mountSync = (await sim.stats()).s3files!;
    const mountOps = (await sim.stats()).ops;
    s3.destroy();

    const rate = (s: number) => (tree.files / s).toFixed(0);
    console.log('\n| path | seed command | files/s (command) | until in the bucket and visible in the mount | files/s (end to end) | the seed\'s S3 requests | S3 Files\' S3 requests (efs-sim) |');
    console.log('|---|---:|---:|---:|---:|---|---|');
    console.log(`| through the bucket (${b.written} written) | ${bucketDone.toFixed(1)} s (writes ${writeSeconds.toFixed(1)} s) | ${rate(writeSeconds)} (writes) | ${bucketDone.toFixed(1)} s (visibility check ${b.visibility.seconds.toFixed(1)} s) | ${rate(bucketDone)} | ${JSON.stringify(b.requests)} | ${JSON.stringify(bucketSync.s3Requests)}, ${bucketSync.directoryImports} directory imports |`);
    console.log(`| through the mount (EFS seed) | ${mountSeedSeconds.toFixed(1)} s | ${rate(mountSeedSeconds)} | ${mountExported.toFixed(1)} s | ${rate(mountExported)} | none | ${JSON.stringify(mountSync.s3Requests)}, ${mountSync.exportBatches} export batches; NFS ops: create ${mountOps.create ?? 0}, write ${mountOps.write ?? 0}, rename ${mountOps.rename ?? 0} |`);
  });
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
