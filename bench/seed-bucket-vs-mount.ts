/**
 * Seeding an S3 Files file system two ways, side by side in one run on efs-sim's s3files profile
 * (its calibrated latencies, its sync agent over moto's S3 on 127.0.0.1), for each workload on a
 * fresh mount:
 *   - through the bucket: `cdk-efs-kit seed <dir> s3://bucket/via-bucket --mount <mount>/via-bucket`
 *     (objects written directly; the run ends once every file shows through the mount);
 *   - through the mount: `cdk-efs-kit seed <dir> <mount>/via-mount` (the EFS seed), then the wait
 *     until S3 Files has exported every file to the bucket (the bucket is the source of truth).
 * For each: files/s to the end of the seed command, files/s to "in the bucket and visible in the
 * mount", the S3 requests (the seed's own, and efs-sim's count of what S3 Files would send), and
 * what the seed costs once, plus a month of storage, at the us-east-1 list prices (lib/cost).
 * Prints markdown for bench/RESULTS.md.
 *
 *   npx tsx bench/seed-bucket-vs-mount.ts [--workload small|owncloud|both] [--files 2000]
 *                                         [--export-window 60] [--import-delay 30]
 *
 * Needs root, /dev/fuse and `npm run build`. moto's S3 takes about 170 puts/s: the bucket path's
 * rate here is moto's, not S3's (S3 takes 3,500 PUTs/s per prefix partition), and the mount path's
 * end-to-end time is mostly the export window plus moto's puts.
 */
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { leastMeteredIo } from '../lib/cost/least-metered';
import { s3FilesAccessUsd, s3FilesStorageUsd } from '../lib/cost/s3-files-cost';
import { S3_FILES_METERING } from '../lib/cost/s3-files-metering';
import { S3FilesPricing } from '../lib/cost/s3-files-pricing';
import { LISTED_S3_REQUEST_PRICES, s3RequestsUsd } from '../lib/cost/s3-request-prices';
import { EfsSim, EfsSimStats, onEfsSim } from '../tools/efs-sim/mount';
import { ownCloudTree, smallFileTree, Workload } from './lib/workloads';

const ROOT = path.join(__dirname, '..');
const CLI = path.join(ROOT, 'dist', 'bin', 'cdk-efs-kit.js');
const args = process.argv.slice(2);
const flag = (name: string, fallback: string) => { const i = args.indexOf(name); return i === -1 ? fallback : args[i + 1]; };
const WORKLOAD = flag('--workload', 'small');
const FILES = Number(flag('--files', '2000'));
const EXPORT_WINDOW = flag('--export-window', '60');
const IMPORT_DELAY = flag('--import-delay', '30');
/** S3 Files imports the data of files below this size on a directory's first access (its default; efs-sim's too). */
const IMPORT_SIZE_LESS_THAN = 128 * 1024;
const MONTH_SECONDS = 730 * 3600;

const PRICES = S3FilesPricing.forRegion('us-east-1')!;
const REQUEST_PRICES = LISTED_S3_REQUEST_PRICES['us-east-1'];
const { dataOperationMinimumBytes: DATA_MIN, metadataOperationMinimumBytes: METADATA_MIN } = S3_FILES_METERING;

if (!['small', 'owncloud', 'both'].includes(WORKLOAD)) {
  console.error('--workload is small, owncloud or both');
  process.exit(2);
}

/** Every file's size under `dir`. */
function fileSizes(dir: string): number[] {
  return (fs.readdirSync(dir, { withFileTypes: true, recursive: true }) as fs.Dirent[])
    .filter((d) => d.isFile())
    .map((d) => fs.statSync(path.join((d as any).parentPath ?? (d as any).path, d.name)).size);
}

/** NFS operations as S3 Files meters them: data reads and writes, metadata reads and writes (closes and flushes are not counted). */
const METADATA_WRITES = ['create', 'mknod', 'mkdir', 'setattr', 'rename', 'unlink', 'rmdir', 'symlink', 'link', 'fsync'];
const METADATA_READS = ['getattr', 'open', 'opendir', 'readdir', 'access', 'statfs', 'readlink'];
function meteredThroughMount(stats: EfsSimStats) {
  const sum = (kinds: string[]) => kinds.reduce((n, k) => n + (stats.ops[k] ?? 0), 0);
  const operations = { dataReads: stats.ops.read ?? 0, dataWrites: stats.ops.write ?? 0, metadataReads: sum(METADATA_READS), metadataWrites: sum(METADATA_WRITES) };
  const io = leastMeteredIo({ dataReadBytes: stats.bytesRead, dataWriteBytes: stats.bytesWritten, metadataReadBytes: 0, metadataWriteBytes: 0 }, operations, { data: DATA_MIN, metadata: METADATA_MIN });
  return { operations, io };
}

const usd = (n: number) => `$${n.toFixed(4)}`;
const kinds = (r: Readonly<Record<string, number>>) => Object.entries(r).filter(([, n]) => n > 0).sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k} ${n}`).join(', ') || 'none';
const sumRequests = (a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>) => {
  const out: Record<string, number> = { ...a };
  for (const [k, n] of Object.entries(b)) out[k] = (out[k] ?? 0) + n;
  return out;
};

interface PathResult {
  commandSeconds: number;
  /** The seconds of the writes alone, when the command reports them. */
  writeSeconds?: number;
  endToEndSeconds: number;
  seedRequests: Record<string, number>;
  syncRequests: Record<string, number>;
  syncNote: string;
  requestsUsd: number;
  accessUsd: number;
  accessNote: string;
  hotBytes: number;
  storage: { highPerformanceStorageUsd: number; bucketStorageUsd: number };
}

async function run(tree: Workload, sim: EfsSim): Promise<{ bucket: PathResult; mount: PathResult }> {
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
  const sizes = fileSizes(tree.dir);
  const dataMetered = (ss: number[]) => ss.reduce((n, s) => n + Math.max(s, DATA_MIN), 0);
  const small = sizes.filter((s) => s < IMPORT_SIZE_LESS_THAN);

  // Through the bucket.
  await sim.resetStats();
  let started = Date.now();
  const viaBucket = spawnSync(process.execPath, [CLI, 'seed', tree.dir, `s3://${bucket}/via-bucket`, '--s3-endpoint', endpoint, '--mount', path.join(sim.mount, 'via-bucket'), '--mount-wait', '900', '--json'], { env, encoding: 'utf8', maxBuffer: 1 << 28 });
  const bucketDone = (Date.now() - started) / 1000;
  if (viaBucket.status !== 0) throw new Error(`the bucket seed failed: ${viaBucket.stderr}`);
  const b = JSON.parse(viaBucket.stdout);
  const bucketStats = await sim.stats();
  const bucketSync = bucketStats.s3files!;
  // The import: a metadata write per entry, and the data of each file below the threshold, each at least 32 KiB, as writes;
  // the visibility check's lookups and listings through the mount as metadata reads.
  const check = meteredThroughMount(bucketStats);
  const importIo = {
    dataReadBytes: check.io.dataReadBytes,
    dataWriteBytes: dataMetered(small),
    metadataReadBytes: check.io.metadataReadBytes,
    metadataWriteBytes: bucketSync.imports * METADATA_MIN + check.io.metadataWriteBytes,
  };
  const bucketAccess = s3FilesAccessUsd(importIo, 0, PRICES);
  const bucketReq = s3RequestsUsd(sumRequests(b.requests, bucketSync.s3Requests), REQUEST_PRICES);
  const smallBytes = small.reduce((a, s) => a + s, 0);
  const bucketResult: PathResult = {
    commandSeconds: bucketDone,
    writeSeconds: b.seconds,
    endToEndSeconds: bucketDone,
    seedRequests: b.requests,
    syncRequests: bucketSync.s3Requests,
    syncNote: `${bucketSync.directoryImports} directory imports, ${bucketSync.imports} entries imported, ${bucketSync.importedData} with their data`,
    requestsUsd: bucketReq.putCopyPostListUsd + bucketReq.getAndOtherUsd,
    accessUsd: bucketAccess.dataReadUsd + bucketAccess.dataWriteUsd + bucketAccess.metadataUsd,
    accessNote: `import: ${small.length} files' data as writes (${(importIo.dataWriteBytes / 1048576).toFixed(1)} MiB metered), ${bucketSync.imports} metadata writes; the visibility check: ${check.operations.metadataReads} metadata reads`,
    hotBytes: smallBytes,
    storage: s3FilesStorageUsd(smallBytes, tree.bytes, MONTH_SECONDS, PRICES),
  };

  // Through the mount, with the EFS seed; then until S3 Files has exported every file.
  await sim.resetStats();
  started = Date.now();
  const viaMount = spawnSync(process.execPath, [CLI, 'seed', tree.dir, path.join(sim.mount, 'via-mount'), '--json'], { env, encoding: 'utf8', maxBuffer: 1 << 28 });
  const mountSeedSeconds = (Date.now() - started) / 1000;
  if (viaMount.status !== 0) throw new Error(`the mount seed failed: ${viaMount.stderr}`);
  const seedStats = await sim.stats();
  for (;;) {
    const stats = (await sim.stats()).s3files!;
    if (stats.pendingExports === 0 && (await objects('via-mount/')) >= tree.files) break;
    if (Date.now() - started > 1_800_000) throw new Error('the export did not finish within 30 minutes');
    await new Promise((r) => setTimeout(r, 500));
  }
  const mountExported = (Date.now() - started) / 1000;
  const mountSync = (await sim.stats()).s3files!;
  s3.destroy();
  // The seed's NFS operations, metered at the minimums; the export: each exported file's data read once from the high-performance storage, at least 32 KiB.
  const written = meteredThroughMount(seedStats);
  const exportBytes = dataMetered(sizes);
  const mountAccess = s3FilesAccessUsd(written.io, exportBytes, PRICES);
  const mountReq = s3RequestsUsd(mountSync.s3Requests, REQUEST_PRICES);
  const mountResult: PathResult = {
    commandSeconds: mountSeedSeconds,
    endToEndSeconds: mountExported,
    seedRequests: {},
    syncRequests: mountSync.s3Requests,
    syncNote: `${mountSync.exportBatches} export batches`,
    requestsUsd: mountReq.putCopyPostListUsd + mountReq.getAndOtherUsd,
    accessUsd: mountAccess.dataReadUsd + mountAccess.dataWriteUsd + mountAccess.metadataUsd + mountAccess.exportUsd,
    accessNote: `writes: ${written.operations.dataWrites} data (${(written.io.dataWriteBytes / 1048576).toFixed(1)} MiB metered), ${written.operations.metadataWrites} metadata writes, ${written.operations.metadataReads} metadata reads; the export: ${(exportBytes / 1048576).toFixed(1)} MiB metered as reads`,
    hotBytes: tree.bytes,
    storage: s3FilesStorageUsd(tree.bytes, tree.bytes, MONTH_SECONDS, PRICES),
  };
  return { bucket: bucketResult, mount: mountResult };
}

function table(tree: Workload, r: { bucket: PathResult; mount: PathResult }): string[] {
  const { bucket: b, mount: m } = r;
  const rate = (s: number) => (tree.files / s).toFixed(0);
  const once = (p: PathResult) => p.requestsUsd + p.accessUsd;
  const month = (p: PathResult) => p.storage.highPerformanceStorageUsd + p.storage.bucketStorageUsd;
  const row = (label: string, f: (p: PathResult) => string) => `| ${label} | ${f(b)} | ${f(m)} |`;
  const speedup = m.endToEndSeconds / b.endToEndSeconds;
  const cheaper = once(m) / once(b);
  return [
    `### ${tree.name}: ${tree.description} (${tree.files} files, ${(tree.bytes / 1e6).toFixed(1)} MB)`,
    '',
    `efs-sim \`--profile s3files --export-window=${EXPORT_WINDOW} --import-delay=${IMPORT_DELAY}\`, a fresh mount and bucket for this workload; the bucket path ran first.`,
    '',
    '|  | through the bucket | through the mount (EFS seed) |',
    '|---|---:|---:|',
    row('seed command', (p) => `${p.commandSeconds.toFixed(1)} s${p.writeSeconds !== undefined ? ` (writes ${p.writeSeconds.toFixed(1)} s)` : ''}`),
    row('files/s to the end of the command', (p) => rate(p.writeSeconds ?? p.commandSeconds) + (p.writeSeconds !== undefined ? ' (writes)' : '')),
    row('until in the bucket and visible through the mount', (p) => `${p.endToEndSeconds.toFixed(1)} s`),
    row('files/s, end to end', (p) => rate(p.endToEndSeconds)),
    row("the seed's S3 requests", (p) => kinds(p.seedRequests)),
    row("S3 Files' S3 requests (efs-sim)", (p) => `${kinds(p.syncRequests)}; ${p.syncNote}`),
    row('S3 requests at S3 Standard prices', (p) => usd(p.requestsUsd)),
    row('S3 Files data and metadata access', (p) => `${usd(p.accessUsd)} (${p.accessNote})`),
    row('**the seed, once**', (p) => `**${usd(once(p))}**`),
    row('a month of storage: high-performance tier + S3 Standard', (p) => `${usd(p.storage.highPerformanceStorageUsd)} (${(p.hotBytes / 1e6).toFixed(1)} MB) + ${usd(p.storage.bucketStorageUsd)}`),
    row('the seed and a month of storage', (p) => usd(once(p) + month(p))),
    '',
    `${tree.name}: through the bucket, ${speedup.toFixed(1)} times the files/s of through the mount to in the bucket and visible, at ${cheaper >= 1 ? `${cheaper.toFixed(1)} times less` : `${(1 / cheaper).toFixed(1)} times more`} for the seed once.`,
  ];
}

async function main(): Promise<void> {
  const data = path.join(os.tmpdir(), 'cdk-efs-kit-bench');
  const trees = [
    ...(WORKLOAD === 'owncloud' ? [] : [smallFileTree(data, FILES)]),
    ...(WORKLOAD === 'small' ? [] : [ownCloudTree(data)]),
  ];
  const out: string[] = [
    `## Seeding S3 Files through the bucket and through the mount (\`npx tsx bench/seed-bucket-vs-mount.ts --workload ${WORKLOAD} --export-window ${EXPORT_WINDOW} --import-delay ${IMPORT_DELAY}\`)`,
    '',
    `On efs-sim's s3files profile (its sync agent over moto's S3 on 127.0.0.1); S3 Files exports about every 60 s and shows bucket changes in about 30 s, so windows of ${EXPORT_WINDOW} s and ${IMPORT_DELAY} s${EXPORT_WINDOW === '60' && IMPORT_DELAY === '30' ? ' are those' : ' are shorter than S3 Files\''}: the mount path's end-to-end time grows by the difference. moto takes about 170 PUTs/s, S3 3,500 per prefix partition: both paths' bucket traffic is moto-bound here.`,
    `Costs in USD at ${PRICES.label} and ${REQUEST_PRICES.label} (third-party quotations, docs/cost.md): data operations metered at 32 KiB at least, metadata at 4 KiB (S3_FILES_METERING), from efs-sim's operation counts as MAX(bytes, operations x minimum); closes and flushes not counted. Through the mount: the seed's NFS operations, and the export of every file metered as a read of at least 32 KiB. Through the bucket: the seed's and the sync's S3 requests, the import (a metadata write per entry, and the data of each file under 128 KiB as a write of at least 32 KiB) and the visibility check's metadata reads. Both: the sync's S3 requests, and a month (730 h) of the result stored: on the high-performance tier what is there (all of it written through the mount; the imported small files through the bucket), all of it in the bucket at S3 Standard. Not included: noncurrent versions, data transfer.`,
    '',
  ];
  for (const tree of trees) {
    console.error(`${tree.name}: ${tree.files} files, ${(tree.bytes / 1e6).toFixed(1)} MB`);
    const r = await onEfsSim({ profile: 's3files', flags: [`--export-window=${EXPORT_WINDOW}`, `--import-delay=${IMPORT_DELAY}`] }, (sim) => run(tree, sim));
    out.push(...table(tree, r), '');
  }
  console.log(out.join('\n').trimEnd());
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
