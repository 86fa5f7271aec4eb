import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CloudWatchClient, MetricDatum, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { startMoto, Moto } from '../../helpers/moto';
import { TEST_PRICES, TEST_S3_FILES_PRICES } from '../../helpers/test-prices';

// `cdk-efs-kit advise` as users run it (the built CLI), against moto's CloudWatch on 127.0.0.1,
// holding AWS/EFS metrics the tests put there for known traffic shapes over one day. Every figure
// expected below is worked by hand from the shape at the test prices: $1 per GB read, $2 per GB
// written, $2.40 per MiB/s-day of Provisioned throughput and per GB-day of Standard storage; on S3
// Files the same per GB read and written, $2.40 per GB-day of high-performance storage and $0.24 of S3 Standard.
const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'bin', 'cdk-efs-kit.js');
const END = '2026-01-15T00:00:00Z';
const START = Date.parse(END) - 86_400_000;
const KiB = 1024;
const MiB = 1024 ** 2;
const GiB = 1024 ** 3;
const DAY_OF_PER_MONTH = 24 / 730;

let moto: Moto;
let work: string;
let cloudWatch: CloudWatchClient;
beforeAll(async () => {
  moto = await startMoto();
  cloudWatch = new CloudWatchClient(moto.clientConfig);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'advise-'));
  fs.writeFileSync(path.join(work, 'prices.json'), JSON.stringify(TEST_PRICES));
  fs.writeFileSync(path.join(work, 's3-files-prices.json'), JSON.stringify(TEST_S3_FILES_PRICES));
});
afterAll(async () => {
  cloudWatch.destroy();
  await moto.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

/** A file system's metrics over the day: per minute from the window's start, hourly storage. */
interface Shape {
  readonly perMinute?: (minute: number) => Partial<Record<EfsMetric | S3FilesMetric, number>>;
  /** Operations (SampleCount) behind a perMinute figure; without, each datum is one. */
  readonly operationsPerMinute?: (minute: number) => Partial<Record<EfsMetric | S3FilesMetric, number>>;
  readonly storagePerHour?: (hour: number) => Partial<Record<'Total' | 'Standard' | 'IA' | 'Archive', number>>;
  readonly startCreditBytes?: number;
}
type EfsMetric = 'DataReadIOBytes' | 'DataWriteIOBytes' | 'MetadataReadIOBytes' | 'MetadataWriteIOBytes' | 'MetadataIOBytes' | 'MeteredIOBytes';
type S3FilesMetric = 'DataReadBytes' | 'DataWriteBytes' | 'MetadataReadBytes' | 'MetadataWriteBytes' | 'StorageBytes';

async function putShape(fileSystemId: string, shape: Shape, namespace = 'AWS/EFS', client = cloudWatch): Promise<void> {
  const data: MetricDatum[] = [];
  const datum = (name: string, minute: number, value: number, storageClass?: string, operations?: number): MetricDatum => ({
    MetricName: name, Timestamp: new Date(START + minute * 60_000), Unit: 'Bytes',
    ...(operations === undefined
      ? { Value: value }
      : { StatisticValues: { Sum: value, SampleCount: operations, Minimum: value / operations, Maximum: value / operations } }),
    Dimensions: [{ Name: 'FileSystemId', Value: fileSystemId }, ...(storageClass ? [{ Name: 'StorageClass', Value: storageClass }] : [])],
  });
  for (let minute = 0; minute < 1440; minute++) {
    const operations: Record<string, number | undefined> = shape.operationsPerMinute?.(minute) ?? {};
    for (const [name, value] of Object.entries(shape.perMinute?.(minute) ?? {})) if (value > 0) data.push(datum(name, minute, value, undefined, operations[name]));
  }
  for (let hour = 0; hour < 24; hour++) {
    for (const [storageClass, value] of Object.entries(shape.storagePerHour?.(hour) ?? {})) data.push(datum('StorageBytes', hour * 60, value, storageClass));
  }
  if (shape.startCreditBytes !== undefined) data.push(datum('BurstCreditBalance', 0, shape.startCreditBytes));
  for (let i = 0; i < data.length; i += 500) await client.send(new PutMetricDataCommand({ Namespace: namespace, MetricData: data.slice(i, i + 500) }));
}

interface Run { code: number | null; stdout: string; stderr: string }

function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_')));
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...base, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_EC2_METADATA_DISABLED: 'true', HOME: work, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** advise's arguments for the test day, at the test prices, from CloudWatch at `endpoint`. */
const overTheTestDay = (endpoint: string) => [
  '--endpoint', endpoint, '--region', 'us-east-1', '--days', '1', '--end', END,
  '--prices', path.join(work, 'prices.json'), '--s3-files-prices', path.join(work, 's3-files-prices.json'),
];

const advise = (fileSystemId: string, ...extra: string[]) => cli(['advise', fileSystemId, ...overTheTestDay(moto.endpoint), ...extra]);

async function adviceJson(fileSystemId: string, ...extra: string[]) {
  const r = await advise(fileSystemId, '--json', ...extra);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

test('steady: 31 MiB/s metered all day on 100 GiB; Bursting runs out of credits, Provisioned at p99 is cheapest', async () => {
  // Each minute 1,800 MiB read, 1,200 MiB written, 30 MiB of metadata each way: metered 600 + 1,200 + 60 = 1,860 MiB (31 MiB/s).
  await putShape('fs-0000000000000001', {
    perMinute: () => ({
      DataReadIOBytes: 1800 * MiB, DataWriteIOBytes: 1200 * MiB, MetadataReadIOBytes: 30 * MiB, MetadataWriteIOBytes: 30 * MiB,
      MetadataIOBytes: 60 * MiB, MeteredIOBytes: 1860 * MiB,
    }),
    storagePerHour: () => ({ Total: 100 * GiB, Standard: 100 * GiB }),
    startCreditBytes: 500 * GiB,
  });
  const a = await adviceJson('fs-0000000000000001');
  expect(a.traffic).toMatchObject({ dataReadBytes: 1800 * MiB * 1440, metadataWriteBytes: 30 * MiB * 1440, p99MeteredMibps: 31, activeMinutes: 1440 });
  // Elastic: 1,830 MiB read and 1,230 MiB written a minute, 1,440 minutes.
  expect(a.elastic.throughputUsd).toBeCloseTo((1830 * 1440 / 1024) * 1 + (1230 * 1440 / 1024) * 2, 6); // $6,032.81
  // Provisioned at 31 MiB/s, of which 100 GiB x 50 KiB/s = 4.8828125 MiB/s come with the storage.
  expect(a.provisioned.provisionedMibps).toBe(31);
  expect(a.provisioned.throughputUsd).toBeCloseTo((31 - 4.8828125) * 73 * DAY_OF_PER_MONTH, 6); // $62.68
  expect(a.provisioned.heldBackMinutes).toBe(0);
  for (const mode of ['elastic', 'provisioned', 'bursting']) expect(a[mode].storageUsd).toBeCloseTo(100 * 73 * DAY_OF_PER_MONTH, 6); // $240
  // Bursting: from 500 GiB, the balance falls by (31 - 4.8828125) x 60 MiB a minute: 326.7 minutes.
  expect(a.bursting).toMatchObject({ startCredits: 'BurstCreditBalance', creditsRanOutAt: '2026-01-14T05:26Z', heldBackMinutes: 1440 - 326 });
  // With an IA lifecycle (no IA data yet: 80% cold): 20 GiB Standard and 80 GiB IA, and 80 GiB moved once.
  expect(a.elastic.storageWithLifecycleUsd).toBeCloseTo((20 * 73 + 80 * 7.3) * DAY_OF_PER_MONTH, 6);
  expect(a.bursting.storageWithLifecycleUsd).toBeCloseTo((20 * 73 + 80 * 14.6) * DAY_OF_PER_MONTH, 6);
  expect(a.elastic.lifecycleTieringUsd).toBeCloseTo(80 * 0.25, 6);
  expect(a.recommendation).toEqual({
    mode: 'provisioned',
    reason: 'Provisioned at 31.00 MiB/s: $302.68 over 1 day, storage included; Elastic would have cost $5,970.13 more; '
      + "Bursting's credits would have run out at 2026-01-14T05:26Z, holding traffic back up to 1114 minutes in a row.",
  });
});

test('spiky: a 10-minute burst of 200 MiB/s on 0.1 MiB/s; the others would make it wait, so Elastic', async () => {
  const spike = (minute: number) => minute >= 600 && minute < 610;
  await putShape('fs-0000000000000002', {
    perMinute: (m) => ({ DataWriteIOBytes: (spike(m) ? 12000 : 6) * MiB, MeteredIOBytes: (spike(m) ? 12000 : 6) * MiB }),
    storagePerHour: () => ({ Total: 10 * GiB, Standard: 10 * GiB }),
  });
  const a = await adviceJson('fs-0000000000000002');
  // 1,430 minutes of 6 MiB and 10 of 12,000 MiB written.
  expect(a.elastic.throughputUsd).toBeCloseTo(((1430 * 6 + 10 * 12000) / 1024) * 2, 6); // $251.13
  // p99 is the 1,426th of 1,440 minutes in order: still the 0.1 MiB/s, so 1 MiB/s, the least one can provision.
  expect(a.traffic.p99MeteredMibps).toBeCloseTo(0.1, 9);
  expect(a.provisioned.provisionedMibps).toBe(1);
  expect(a.provisioned.throughputUsd).toBeCloseTo((1 - 10 * 50 / 1024) * 73 * DAY_OF_PER_MONTH, 6);
  // At 60 MiB a minute the burst's 119,400 MiB of excess drains by 54 MiB a minute: not by the day's end.
  expect(a.provisioned).toMatchObject({ heldBackMinutes: 840, longestHeldBackMinutes: 840 });
  // Bursting serves 100 MiB/s (10 GiB: the minimum burst rate), so 60,000 MiB wait after the burst and drain by 5,994 MiB
  // a minute: 19 minutes end with more than a second's 100 MiB waiting (the 20th with 60 MiB).
  expect(a.bursting).toMatchObject({ startCredits: 'assumed full', heldBackMinutes: 19, longestHeldBackMinutes: 19 });
  expect(a.bursting.creditsRanOutAt).toBeUndefined();
  expect(a.recommendation).toEqual({
    mode: 'elastic',
    reason: 'Elastic: $275.13 over 1 day, storage included; Provisioned at 1.00 MiB/s would have held traffic back 840 minutes in a row; '
      + 'Bursting, above its burst rate, would have held traffic back 19 minutes in a row.',
  });
});

test('idle: no I/O on 10 GiB Standard and 40 GiB IA; Elastic costs nothing while idle and its IA storage is the cheapest', async () => {
  await putShape('fs-0000000000000003', { storagePerHour: () => ({ Total: 50 * GiB, Standard: 10 * GiB, IA: 40 * GiB }) });
  const a = await adviceJson('fs-0000000000000003');
  expect(a.traffic).toMatchObject({ meteredIOBytes: 0, p99MeteredMibps: 0, activeMinutes: 0 });
  expect(a.elastic.throughputUsd).toBe(0);
  expect(a.elastic.storageUsd).toBeCloseTo((10 * 73 + 40 * 7.3) * DAY_OF_PER_MONTH, 6); // $33.60
  expect(a.bursting.storageUsd).toBeCloseTo((10 * 73 + 40 * 14.6) * DAY_OF_PER_MONTH, 6); // $43.20: IA costs more beside Bursting
  expect(a.elastic.storageWithoutLifecycleUsd).toBeCloseTo(50 * 73 * DAY_OF_PER_MONTH, 6);
  expect(a.elastic).toMatchObject({ lifecycleTieringUsd: 0 });
  expect(a.elastic.storageWithLifecycleUsd).toBeCloseTo(a.elastic.storageUsd, 9);
  // Provisioned's least, 1 MiB/s, less the 0.49 MiB/s 10 GiB of Standard storage include.
  expect(a.provisioned.throughputUsd).toBeCloseTo((1 - 10 * 50 / 1024) * 73 * DAY_OF_PER_MONTH, 6);
  expect(a.recommendation).toEqual({
    mode: 'elastic',
    reason: 'Elastic: no I/O in 1 day, and Elastic costs nothing while idle, with no throughput to size and no credits to run out; '
      + 'Provisioned would have cost $10.83 more; Bursting would have cost $9.60 more.',
  });
});

test('seed burst: 50 GiB written in 10 minutes onto a 1 GiB file system; Bursting\'s credits carry it, Elastic bills it', async () => {
  const seeding = (minute: number) => minute >= 60 && minute < 70;
  await putShape('fs-0000000000000004', {
    perMinute: (m) => (seeding(m) ? { DataWriteIOBytes: 5120 * MiB, MetadataWriteIOBytes: 100 * MiB, MetadataIOBytes: 100 * MiB, MeteredIOBytes: 5220 * MiB } : {}),
    storagePerHour: (h) => (h === 0 ? { Total: GiB, Standard: GiB } : { Total: 51 * GiB, Standard: 51 * GiB }),
  });
  const a = await adviceJson('fs-0000000000000004');
  expect(a.elastic.throughputUsd).toBeCloseTo((10 * 5220 / 1024) * 2, 6); // $101.95
  const averageStandardGib = (1 + 23 * 51) / 24;
  expect(a.storage.standard).toBeCloseTo(averageStandardGib * GiB, 0);
  expect(a.bursting.storageUsd).toBeCloseTo(averageStandardGib * 73 * DAY_OF_PER_MONTH, 6); // $117.40
  // 87 MiB/s is within the 100 MiB/s burst; the full 2.1 TiB balance loses 5,220 MiB a minute less the 51 GiB baseline's 149.4 MiB.
  expect(a.bursting).toMatchObject({ startCredits: 'assumed full', heldBackMinutes: 0 });
  expect(a.bursting.lowestCreditBytes / MiB).toBeCloseTo(2.1 * 1024 * 1024 - 10 * (5220 - 51 * 50 * 60 / 1024), 3);
  // p99 is 0: 1 MiB/s, which the storage's 2.39 MiB/s baseline covers unbilled; the seed would wait 869 minutes behind it.
  expect(a.provisioned.throughputUsd).toBe(0);
  expect(a.provisioned).toMatchObject({ provisionedMibps: 1, longestHeldBackMinutes: 869 });
  expect(a.recommendation).toEqual({
    mode: 'bursting',
    reason: 'Bursting: $117.40 over 1 day, storage included; Elastic would have cost $101.95 more; '
      + 'Provisioned at 1.00 MiB/s would have held traffic back 869 minutes in a row.',
  });
});

/** An hour of small writes: each minute 100 reads of 1 MiB, 10,000 writes of 4 KiB and 1,000 metadata writes of 1 KiB. */
const SMALL_WRITES_MINUTE = { reads: 100, readBytes: 100 * MiB, writes: 10_000, writeBytes: 10_000 * 4 * KiB, metadataWrites: 1000, metadataWriteBytes: 1000 * KiB };
const smallWritesHour = (minute: number) => minute >= 600 && minute < 660;
// Over the hour, each operation at its minimum (32 KiB a data read or write, 4 KiB a metadata operation):
// reads 6,000 MiB (their bytes: 1 MiB each is above it), writes 600,000 x 32 KiB, metadata writes 60,000 x 4 KiB.
const READ_GB = (60 * 100 * MiB) / GiB; // 5.859375
const WRITTEN_GB = (60 * 10_000 * 4 * KiB) / GiB; // 2.288818359375: what was written
const WRITES_BILLED_GB = (60 * 10_000 * 32 * KiB) / GiB; // 18.310546875: what 600,000 writes are billed as
const METADATA_BILLED_GB = (60 * 1000 * 4 * KiB) / GiB; // 0.2288818359375

test('small writes on EFS: 4 KiB writes are billed as 32 KiB by Elastic and on S3 Files; half the reads streamed and 10% of the data hot there', async () => {
  await putShape('fs-0000000000000005', {
    perMinute: (m) => (smallWritesHour(m) ? {
      DataReadIOBytes: SMALL_WRITES_MINUTE.readBytes, DataWriteIOBytes: SMALL_WRITES_MINUTE.writeBytes,
      MetadataWriteIOBytes: SMALL_WRITES_MINUTE.metadataWriteBytes, MetadataIOBytes: SMALL_WRITES_MINUTE.metadataWriteBytes,
      MeteredIOBytes: SMALL_WRITES_MINUTE.readBytes / 3 + 10_000 * 4 * KiB + 1000 * 4 * KiB,
    } : {}),
    operationsPerMinute: () => ({
      DataReadIOBytes: SMALL_WRITES_MINUTE.reads, DataWriteIOBytes: SMALL_WRITES_MINUTE.writes,
      MetadataWriteIOBytes: SMALL_WRITES_MINUTE.metadataWrites, MetadataIOBytes: SMALL_WRITES_MINUTE.metadataWrites,
    }),
    storagePerHour: () => ({ Total: 10 * GiB, Standard: 10 * GiB }),
  });
  const a = await adviceJson('fs-0000000000000005', '--cache-hit-percent', '50', '--hot-percent', '10');
  // Elastic: the writes billed as 18.31 GiB, not the 2.29 GiB written ($4.58).
  expect(a.elastic.throughputUsd).toBeCloseTo(READ_GB * 1 + WRITES_BILLED_GB * 2 + METADATA_BILLED_GB * 2, 9); // $42.94
  // S3 Files: half the reads from the high-performance storage; the other half's 3,000 reads streamed, a 4 KiB metadata read each.
  expect(a.s3Files.dataReadUsd).toBeCloseTo((READ_GB / 2) * 1, 9); // $2.93
  expect(a.s3Files.dataWriteUsd).toBeCloseTo(WRITES_BILLED_GB * 2, 9); // $36.62: 8 times the $4.58 the bytes would cost
  expect(a.s3Files.metadataUsd).toBeCloseTo(METADATA_BILLED_GB * 2 + ((3000 * 4 * KiB) / GiB) * 1, 9); // $0.47
  expect(a.s3Files.exportUsd).toBeCloseTo(WRITTEN_GB * 1, 9); // $2.29: each written byte exported once, as a read
  // 10% of the 10 GiB on the high-performance storage at $2.40 a GB-day, all of it in the bucket at $0.24.
  expect(a.s3Files).toMatchObject({ hotBytes: GiB, dataSetBytes: 10 * GiB, assumptions: { cacheHitPercent: 50, hotPercent: 10, eachWrittenByteExportedOnce: true } });
  expect(a.s3Files.highPerformanceStorageUsd).toBeCloseTo(2.4, 9);
  expect(a.s3Files.bucketStorageUsd).toBeCloseTo(2.4, 9);
  expect(a.s3Files.totalUsd).toBeCloseTo(READ_GB / 2 + WRITES_BILLED_GB * 2 + METADATA_BILLED_GB * 2 + (3000 * 4 * KiB) / GiB + WRITTEN_GB + 4.8, 9); // $47.11
  expect(a.recommendation.mode).toBe('bursting');
  expect(a.s3FilesComparison).toBe('S3 Files: the same traffic and data would have cost $47.11 over 1 day ($42.31 data access, at least, and $4.80 storage), '
    + '$23.11 more than Bursting, the EFS mode recommended.');
  expect(a.notes).toContain('S3 Files: 50% of data reads served from the high-performance storage (--cache-hit-percent); the rest stream from the bucket, '
    + 'with no data charge but a 4 KiB metadata read each, and S3 GET requests (not included).');
});

/** advise --markdown --html: its lines and the page. */
async function markdownAndPage(run: typeof advise, fileSystemId: string) {
  const html = path.join(work, `${fileSystemId}.html`);
  const r = await run(fileSystemId, '--markdown', '--html', html);
  expect(r.code).toBe(0);
  return { stdout: r.stdout, lines: r.stdout.split('\n'), page: fs.readFileSync(html, 'utf8') };
}

test('--markdown shows the modes side by side in a table, the recommendation and its notes; --html writes the same as a page with charts', async () => {
  const { stdout, lines, page } = await markdownAndPage(advise, 'fs-0000000000000004');
  expect(lines).toEqual(expect.arrayContaining([
    'fs-0000000000000004: 1 day of AWS/EFS metrics, 2026-01-14T00:00:00.000Z to 2026-01-15T00:00:00.000Z',
    'Prices: test prices',
    'S3 Files prices: test S3 Files prices',
    'Traffic: 0.0 GiB read, 51.0 GiB written (metadata 1.0 GiB of it); metered p99 0.00 MiB/s, peak 87.00 MiB/s; I/O in 10 of 1,440 minutes',
    '|  | Elastic | Provisioned | Bursting | S3 Files |',
    // S3 Files: 50 GiB of data writes ($100), 1,000 MiB of metadata writes ($1.95), 50 GiB exported as reads ($50): $151.95;
    // 20% of the 48.92 GiB on the high-performance storage ($23.48) and all of it in the bucket ($11.74).
    '| data access or throughput | $101.95 | $0.00 | $0.00 | $151.95 |',
    '| total for 1 day | $219.35 | $117.40 | $117.40 | $187.17 |',
    '| traffic held back | never | 869 min, 869 in a row | never | - |',
    'Recommendation: Bursting: $117.40 over 1 day, storage included; Elastic would have cost $101.95 more; Provisioned at 1.00 MiB/s would have held traffic back 869 minutes in a row.',
  ]));
  expect(stdout).toContain('- No BurstCreditBalance (the file system is not in Bursting mode): the Bursting replay starts with a full balance, 2.1 TiB.');
  expect(page).toContain('<title>EFS spend advice: fs-0000000000000004</title>');
  expect(page).toContain('<strong>Recommendation:</strong> Bursting: $117.40 over 1 day');
  expect(page).toContain('<tr><th>data access or throughput</th><td class="num">$101.95</td><td class="num">$0.00</td><td class="num">$0.00</td><td class="num">$151.95</td></tr>');
  expect(page.match(/<svg class="chart"/g)).toHaveLength(2);
  expect(page).not.toMatch(/https?:|<script|\bsrc=/);
});

test.each([[{}, 100], [{ COLUMNS: '80' }, 80]])('on a terminal (%o): the modes in padded columns, every line within %i columns', async (env, width) => {
  const r = await cli(['advise', 'fs-0000000000000004', ...overTheTestDay(moto.endpoint)], env);
  expect(r.code).toBe(0);
  expect(Math.max(...r.stdout.split('\n').map((l) => l.length))).toBeLessThanOrEqual(width);
  expect(r.stdout).toMatch(/^ +Elastic +Provisioned +Bursting +S3 Files\n-+ +-+ +-+ +-+ +-+\n/m);
  expect(r.stdout).toMatch(/^data access or( throughput)? +\$101\.95 +\$0\.00 +\$0\.00 +\$151\.95$/m);
  // Notes wrap under their text, not under the dash.
  expect(r.stdout).toMatch(/^- No BurstCreditBalance \(the file system is not in Bursting mode\): .*\n  \S/m);
});

test('a file system with no metrics in the window: says so, recommends nothing, exits 0', async () => {
  const r = await advise('fs-00000000000000ff');
  expect(r.code).toBe(0);
  expect(r.stdout.replace(/\s+/g, ' ')).toContain('CloudWatch has no AWS/EFS or AWS/S3/Files metrics for fs-00000000000000ff in this window: a file system too new to have reported any, '
    + 'one in another Region or account, or a mistyped id. Nothing to advise on.');
  const a = await adviceJson('fs-00000000000000ff');
  expect(a).toMatchObject({ dataFound: false, notes: [] });
  expect(a.recommendation).toBeUndefined();
});

describe('an S3 Files file system: its AWS/S3/Files metrics, on a CloudWatch of its own', () => {
  let s3FilesMoto: Moto;
  let s3FilesCloudWatch: CloudWatchClient;
  beforeAll(async () => {
    s3FilesMoto = await startMoto();
    s3FilesCloudWatch = new CloudWatchClient(s3FilesMoto.clientConfig);
    // The same hour of small writes, and 2 GiB on the high-performance storage, reported every 15 minutes.
    await putShape('fs-00000000000000a1', {
      perMinute: (m) => ({
        ...(smallWritesHour(m) ? {
          DataReadBytes: SMALL_WRITES_MINUTE.readBytes, DataWriteBytes: SMALL_WRITES_MINUTE.writeBytes, MetadataWriteBytes: SMALL_WRITES_MINUTE.metadataWriteBytes,
        } : {}),
        ...(m % 15 === 0 ? { StorageBytes: 2 * GiB } : {}),
      }),
      operationsPerMinute: () => ({ DataReadBytes: SMALL_WRITES_MINUTE.reads, DataWriteBytes: SMALL_WRITES_MINUTE.writes, MetadataWriteBytes: SMALL_WRITES_MINUTE.metadataWrites }),
    }, 'AWS/S3/Files', s3FilesCloudWatch);
    // An id with metrics in both namespaces.
    await putShape('fs-00000000000000b2', { perMinute: (m) => (m === 0 ? { DataWriteBytes: MiB } : {}) }, 'AWS/S3/Files', s3FilesCloudWatch);
    await putShape('fs-00000000000000b2', { storagePerHour: () => ({ Total: GiB }) }, 'AWS/EFS', s3FilesCloudWatch);
  });
  afterAll(async () => {
    s3FilesCloudWatch.destroy();
    await s3FilesMoto.stop();
  });
  const adviseS3Files = (fileSystemId: string, ...extra: string[]) => cli(['advise', fileSystemId, ...overTheTestDay(s3FilesMoto.endpoint), ...extra]);

  test('small writes: what they cost on S3 Files, each at its minimum, and what they would cost on EFS', async () => {
    const r = await adviseS3Files('fs-00000000000000a1', '--json');
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const a = JSON.parse(r.stdout);
    expect(a.kind).toBe('s3files');
    expect(a.traffic).toMatchObject({ dataReadBytes: 60 * 100 * MiB, dataWriteBytes: 60 * 10_000 * 4 * KiB, metadataWriteBytes: 60 * 1000 * KiB });
    // On S3 Files: every read from the high-performance storage (its metrics count only those), the writes at 32 KiB each.
    expect(a.s3Files.dataReadUsd).toBeCloseTo(READ_GB * 1, 9); // $5.86
    expect(a.s3Files.dataWriteUsd).toBeCloseTo(WRITES_BILLED_GB * 2, 9); // $36.62
    expect(a.s3Files.metadataUsd).toBeCloseTo(METADATA_BILLED_GB * 2, 9); // $0.46
    expect(a.s3Files.exportUsd).toBeCloseTo(WRITTEN_GB * 1, 9); // $2.29
    // 2 GiB at $2.40 a GB-day; the data set, 2 GiB over the default 20%, at $0.24.
    expect(a.s3Files).toMatchObject({ hotBytes: 2 * GiB, dataSetBytes: 10 * GiB, assumptions: { hotPercent: 20, eachWrittenByteExportedOnce: true } });
    expect(a.s3Files.assumptions.cacheHitPercent).toBeUndefined();
    expect(a.s3Files.storageUsd).toBeCloseTo(2 * 2.4 + 10 * 0.24, 9); // $7.20
    expect(a.s3Files.totalUsd).toBeCloseTo(READ_GB + WRITES_BILLED_GB * 2 + METADATA_BILLED_GB * 2 + WRITTEN_GB + 7.2, 9); // $52.43
    // On EFS: Elastic bills the same minimums; the 10 GiB data set in Standard.
    expect(a.elastic.throughputUsd).toBeCloseTo(READ_GB * 1 + WRITES_BILLED_GB * 2 + METADATA_BILLED_GB * 2, 9); // $42.94
    expect(a.elastic.storageUsd).toBeCloseTo(10 * 2.4, 9);
    // Metered as EFS counts it, a minute of the hour: the reads at a third (33.33 MiB), the writes 39.06 MiB, the metadata writes at 4 KiB each (3.91 MiB).
    const meteredMibps = (100 / 3 + 39.0625 + 3.90625) / 60;
    expect(a.traffic.peakMeteredMibps).toBeCloseTo(meteredMibps, 9);
    expect(a.provisioned.provisionedMibps).toBeCloseTo(meteredMibps, 9);
    expect(a.provisioned.throughputUsd).toBeCloseTo((meteredMibps - 10 * 50 / 1024) * 2.4, 9); // $1.88
    expect(a.recommendation).toEqual({
      mode: 'bursting',
      reason: 'Bursting: $24.00 over 1 day, storage included; Elastic would have cost $42.94 more; Provisioned would have cost $1.88 more.',
    });
    expect(a.s3FilesComparison).toBe('S3 Files: $52.43 over 1 day ($45.23 data access, at least, and $7.20 storage); '
      + 'on EFS, Bursting, the EFS mode recommended, the same traffic and data would have cost $28.43 less.');
    expect(a.notes).toContain('On EFS, the Bursting replay starts with a full balance, 2.1 TiB.');
  });

  test('--markdown and --html say whose metrics these are and put S3 Files beside the EFS modes', async () => {
    const { lines, page } = await markdownAndPage(adviseS3Files, 'fs-00000000000000a1');
    expect(lines).toEqual(expect.arrayContaining([
      'fs-00000000000000a1: 1 day of AWS/S3/Files metrics, 2026-01-14T00:00:00.000Z to 2026-01-15T00:00:00.000Z',
      'S3 Files prices: test S3 Files prices',
      "S3 Files: data reads $5.86, writes $36.62, metadata $0.46, the sync's exports $2.29; 2.0 GiB on the high-performance storage $4.80, 10.0 GiB in the bucket $2.40",
      '|  | Elastic | Provisioned | Bursting | S3 Files |',
      '| data access or throughput | $42.94 | $1.88 | $0.00 | $45.23 |',
      '| total for 1 day | $66.94 | $25.88 | $24.00 | $52.43 |',
    ]));
    expect(page).toContain('<title>S3 Files spend advice: fs-00000000000000a1</title>');
    expect(page).toContain('<p>S3 Files: $52.43 over 1 day');
  });

  test('--kind efs reads AWS/EFS only: nothing there for this id', async () => {
    const r = await adviseS3Files('fs-00000000000000a1', '--kind', 'efs');
    expect(r.code).toBe(0);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('CloudWatch has no AWS/EFS metrics for fs-00000000000000a1 in this window');
  });

  test('fails when --cache-hit-percent is given for an S3 Files file system', async () => {
    const r = await adviseS3Files('fs-00000000000000a1', '--cache-hit-percent', '50');
    expect({ code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({
      code: 2, stdout: '',
      stderr: "cdk-efs-kit: --cache-hit-percent applies to an EFS file system's reads; fs-00000000000000a1 is an S3 Files file system, whose metrics count only the reads it served\n",
    });
  });

  test('fails when the id has metrics in both namespaces, asking for --kind', async () => {
    const r = await adviseS3Files('fs-00000000000000b2');
    expect({ code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({
      code: 2, stdout: '', stderr: 'cdk-efs-kit: fs-00000000000000b2 has metrics in both AWS/EFS and AWS/S3/Files in this window: give --kind efs or --kind s3files\n',
    });
  });
});

describe('bad input: one line naming the problem, exit code 2', () => {
  const fails = async (args: string[], message: string, env: NodeJS.ProcessEnv = {}) => {
    const r = await cli(args, env);
    expect({ code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({ code: 2, stderr: `cdk-efs-kit: ${message}\n`, stdout: '' });
  };

  test('fails when the id is not a file system id', () => fails(['advise', 'fs-xyz'],
    "'fs-xyz' is not a file system id: expected fs- and 8 to 40 hex digits, e.g. fs-0123456789abcdef0"));
  test('fails when --days is out of range', () => fails(['advise', 'fs-0123456789abcdef0', '--days', '30'],
    "--days must be a whole number of days from 1 to 14 (CloudWatch keeps 1-minute data for 15 days); got '30'"));
  test('fails when --end is not a time', () => fails(['advise', 'fs-0123456789abcdef0', '--end', 'yesterday'],
    "--end must be a date and time such as 2026-11-24T00:00:00Z; got 'yesterday'"));
  test('fails when --cold-percent is not a percentage', () => fails(['advise', 'fs-0123456789abcdef0', '--cold-percent', '120'],
    "--cold-percent must be a whole number from 0 to 100; got '120'"));
  test('fails when the price list has a bad price', () => {
    const file = path.join(work, 'bad-prices.json');
    fs.writeFileSync(file, JSON.stringify({ ...TEST_PRICES, elasticWritePerGb: -1 }));
    return fails(['advise', 'fs-0123456789abcdef0', '--prices', file], `--prices ${file}: EfsPricing: elasticWritePerGb (elastic_write_per_gb) must be a price in US dollars, 0 or more; got -1`);
  });
  test('fails when --hot-percent is not a share of the data', () => fails(['advise', 'fs-0123456789abcdef0', '--hot-percent', '0'],
    "--hot-percent must be a whole number from 1 to 100; got '0'"));
  test('fails when the S3 Files price list has a bad price', () => {
    const file = path.join(work, 'bad-s3-files-prices.json');
    fs.writeFileSync(file, JSON.stringify({ ...TEST_S3_FILES_PRICES, writePerGb: -1 }));
    return fails(['advise', 'fs-0123456789abcdef0', '--s3-files-prices', file],
      `--s3-files-prices ${file}: S3FilesPricing: writePerGb (write_per_gb) must be a price in US dollars, 0 or more; got -1`);
  });
  test('fails when no Region is given or configured', () => fails(['advise', 'fs-0123456789abcdef0', '--endpoint', moto.endpoint],
    'no AWS Region: give --region, or set AWS_REGION or a region in the profile'));
  test('fails when CloudWatch cannot be reached', async () => {
    const r = await cli(['advise', 'fs-0123456789abcdef0', '--region', 'us-east-1', '--endpoint', 'http://127.0.0.1:9'], { AWS_MAX_ATTEMPTS: '1' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^cdk-efs-kit: cannot read the metrics of fs-0123456789abcdef0 from CloudWatch: .*ECONNREFUSED.*\n$/);
  });
});
