import { spawn, spawnSync } from 'child_process';
import { ListObjectVersionsCommand } from '@aws-sdk/client-s3';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { S3_FILES_CANARY_REQUEST } from '../../../lib/probe/contract/canary-requests';
import { ProbeBucket } from '../../../lambda/probe/probe-bucket';
import { ProbeResult, ScenarioResult } from '../../../lambda/probe/result';
import { runProbe } from '../../../lambda/probe/runner';
import { describeWithFuse, EfsSim, startEfsSim } from '../../helpers/efs-sim';

// S3 Files' own scenarios on efs-sim's s3files profile, whose bucket is moto's S3 on 127.0.0.1: the
// import of a directory the bucket filled, reads below and above the import threshold, and the
// write-back's lag. Counts and the sync's own figures are asserted; time only as a lower bound (the
// export never arrives before its window, whatever the load).
describeWithFuse('the probe on S3 Files (efs-sim s3files, moto)', () => {
  let sim: EfsSim;
  let bucket: ProbeBucket;
  beforeAll(async () => {
    // moto takes any credentials; the probe's client reads them as the SDK does.
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' });
    sim = await startEfsSim({ profile: 's3files', flags: ['--latency-any=0', '--export-window=2', '--import-delay=1'] });
    bucket = ProbeBucket.open(`s3://${sim.s3files!.bucket}/${sim.s3files!.prefix}`, sim.mount, { endpoint: sim.s3files!.endpoint });
  });
  afterAll(() => sim?.stop());

  const run = async (scenarios: Record<string, object>) => {
    const outcome = await runProbe({ scenarios, pauseSeconds: 0 }, { target: sim.mount, bucket, tool: 'test', version: '0' });
    expect(outcome.status).toBe('ok');
    return (outcome as ProbeResult).scenarios[0];
  };
  const operations = (result: ScenarioResult) => Object.fromEntries(result.rounds[0].operations.map((o) => [o.operation, { count: o.count, errors: o.errors }]));

  test('import: the bucket\'s new prefix appears, its first listing imports every entry and small files\' data; nothing is left in the bucket', async () => {
    await sim.resetStats();
    const result = await run({ import: { files: 20, fileBytes: 2048 } });
    expect(operations(result)).toEqual({
      'appear': { count: 1, errors: 0 }, 'first-listing': { count: 1, errors: 0 }, 'listing': { count: 5, errors: 0 },
      'first-read': { count: 20, errors: 0 }, 'read': { count: 20, errors: 0 },
    });
    const sync = (await sim.stats()).s3files!;
    expect(sync.importedData).toBeGreaterThanOrEqual(20);
    expect(sync.directoryImports).toBeGreaterThanOrEqual(1);
    // The versions it put are gone, and no delete marker stands in for them.
    const left = await bucket.client.send(new ListObjectVersionsCommand({ Bucket: bucket.name, Prefix: `${sim.s3files!.prefix}` }));
    expect([...(left.Versions ?? []), ...(left.DeleteMarkers ?? [])].filter((o) => /imported\//.test(o.Key!))).toEqual([]);
  });

  test('direct-read: small files are read from the file system, large ones from the bucket', async () => {
    await sim.resetStats();
    const result = await run({ 'direct-read': { files: 3, smallBytes: 16 * 1024, largeBytes: 512 * 1024 } });
    expect(operations(result)).toMatchObject({ 'appear': { count: 1 }, 'read-small': { count: 3, errors: 0 }, 'read-large': { count: 3, errors: 0 } });
    const summary = Object.fromEntries(result.summary.map((o) => [o.operation, o]));
    expect(summary['read-large'].bytesPerSecond.mean).toBeGreaterThan(0);
    // Each large file's reads went to S3; the small ones came with the import.
    expect((await sim.stats()).ops.s3read).toBeGreaterThanOrEqual(3);
    expect((await sim.stats()).s3files!.importedData).toBe(3);
  });

  test('export-lag: each file written through the mount is timed until its object is in the bucket, never before the write-back window', async () => {
    const result = await run({ 'export-lag': { files: 3, fileBytes: 100, spacingMs: 500, timeoutSeconds: 60 } });
    const [exported] = result.rounds[0].operations;
    expect(exported).toMatchObject({ operation: 'export', count: 3, errors: 0, bytes: 300 });
    // Timed from each close; the emulator's window may start at the create, so a slow write takes some off (at most a second here).
    expect(exported.latencyMs.p50).toBeGreaterThanOrEqual(1000);
    expect(exported.latencyMs.max).toBeGreaterThanOrEqual(exported.latencyMs.p50);
  });

  test('the command line runs them with --bucket and --s3-endpoint, and prints the lag', () => {
    const cli = path.join(__dirname, '..', '..', '..', 'dist', 'bin', 'cdk-efs-kit.js');
    const r = spawnSync(process.execPath, [cli, 'probe', '--dir', sim.mount, '--bucket', `s3://${bucket.name}/${sim.s3files!.prefix}`, '--s3-endpoint', sim.s3files!.endpoint,
      '--scenarios', 'export-lag', '--set', 'export-lag.files=2', '--set', 'export-lag.spacingMs=0', '--json'], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, COLUMNS: '' } });
    expect(r.stderr).not.toMatch(/Error/);
    const result = JSON.parse(r.stdout) as ProbeResult;
    expect(result.scenarios.map((s) => [s.scenario, s.rounds[0].operations.map((o) => [o.operation, o.count, o.errors])])).toEqual([['export-lag', [['export', 2, 0]]]]);
  });

  test('compare puts an EFS run and an S3 Files run side by side, each priced on both with a month at its rate', () => {
    const cli = path.join(__dirname, '..', '..', '..', 'dist', 'bin', 'cdk-efs-kit.js');
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'compare-kinds-'));
    const probe = (label: string, extra: string[]) => {
      const r = spawnSync(process.execPath, [cli, 'probe', ...extra, '--scenarios', 'metadata', '--set', 'metadata.files=20', '--set', 'metadata.listings=2', '--label', label, '--json'],
        { encoding: 'utf8', timeout: 120_000, env: { ...process.env, COLUMNS: '' } });
      const file = path.join(work, `${label}.json`);
      fs.writeFileSync(file, r.stdout);
      return { file, result: JSON.parse(r.stdout) as ProbeResult };
    };
    fs.mkdirSync(path.join(work, 'efs'));
    const efs = probe('efs', ['--dir', path.join(work, 'efs')]);
    const s3 = probe('s3', ['--dir', sim.mount, '--bucket', `s3://${bucket.name}/${sim.s3files!.prefix}`, '--s3-endpoint', sim.s3files!.endpoint]);
    expect([efs.result.fileSystemKind, s3.result.fileSystemKind]).toEqual(['efs', 's3-files']);
    // S3 Files meters the same bytes: reads at $0.03 and writes at $0.06 per GB (us-east-1), and the
    // export of each written byte as a read; a month at the measured rate.
    const { metered, seconds, s3FilesUsd, s3FilesUsdPerMonth } = s3.result.scenarios[0].cost;
    const byHand = ((metered.dataReadBytes + metered.metadataReadBytes + metered.dataWriteBytes) * 0.03 + (metered.dataWriteBytes + metered.metadataWriteBytes) * 0.06) / 2 ** 30;
    expect(s3FilesUsd).toBeCloseTo(byHand, 15);
    expect(s3FilesUsdPerMonth).toBeCloseTo(byHand / seconds * 730 * 3600, 6);
    const r = spawnSync(process.execPath, [cli, 'compare', efs.file, s3.file, '--markdown'], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, COLUMNS: '' } });
    expect(r.status).toBe(0);
    const rows = r.stdout.slice(r.stdout.indexOf('Cost of')).split('\n').filter((l) => l.startsWith('| metadata |'));
    expect(rows.map((l) => l.split('|')[2].trim())).toEqual(['efs (EFS)', 's3 (S3 Files)']);
    for (const row of rows) expect(row).toMatch(/\| \$[\d.]+ \(\$[\d,.]+ a month\) \|$/);
    fs.rmSync(work, { recursive: true, force: true });
  });

  test('the bundled handler, as BenchmarkProbe deploys it on S3 Files, runs the S3 Files canary through PROBE_BUCKET_URL and publishes its EMF', async () => {
    const handler = path.join(__dirname, '..', '..', '..', 'dist', 'handlers', 'probe', 'index.js');
    const driver = `require(${JSON.stringify(handler)}).handler(JSON.parse(process.argv[1]), { getRemainingTimeInMillis: () => 600000 })
      .then((r) => require('fs').writeFileSync(process.argv[2], JSON.stringify(r)));`;
    const resultFile = path.join(os.tmpdir(), `probe-s3files-${process.pid}.json`);
    // Spawned without blocking: this process must stay free while the emulator and moto serve the run.
    const child = spawn(process.execPath, ['-e', driver, JSON.stringify(S3_FILES_CANARY_REQUEST), resultFile], {
      env: {
        ...process.env, PROBE_MOUNT_PATH: sim.mount, PROBE_FILE_SYSTEM_ID: 'fs-0123456789abcdef0', CDK_EFS_KIT_VERSION: '9.9.9', UV_THREADPOOL_SIZE: '256',
        PROBE_BUCKET_URL: `s3://${bucket.name}/${sim.s3files!.prefix}`, AWS_ENDPOINT_URL_S3: sim.s3files!.endpoint,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const result = JSON.parse(fs.readFileSync(resultFile, 'utf8')) as ProbeResult;
    fs.rmSync(resultFile);
    expect(result).toMatchObject({ status: 'ok', label: 'canary', fileSystemKind: 's3-files' });
    const published = stdout.trim().split('\n').map((l) => JSON.parse(l)).filter((l) => l._aws && l.Operation).map((l) => `${l.Scenario}/${l.Operation}`);
    expect(published).toEqual(expect.arrayContaining(['import/appear', 'import/first-listing', 'direct-read/read-small', 'direct-read/read-large', 'export-lag/export', 'metadata/stat']));
    const lag = stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((l) => l.Operation === 'export');
    expect(lag._aws.CloudWatchMetrics[0].Dimensions).toEqual([['FileSystemId', 'Scenario', 'Operation']]);
    expect(lag.LatencyP99).toBeGreaterThanOrEqual(1000);
  });

  test('a file that never reaches the bucket is an error, named, within the timeout', async () => {
    const slow = await startEfsSim({ profile: 's3files', flags: ['--latency-any=0', '--export-window=600'] });
    try {
      const slowBucket = ProbeBucket.open(`s3://${slow.s3files!.bucket}/`, slow.mount, { endpoint: slow.s3files!.endpoint });
      const outcome = await runProbe({ scenarios: { 'export-lag': { files: 1, fileBytes: 10, spacingMs: 0, timeoutSeconds: 10 } } }, { target: slow.mount, bucket: slowBucket, tool: 'test', version: '0' });
      const [result] = (outcome as ProbeResult).scenarios;
      expect(result.failure).toBe('round 1: 1 of 1 files did not reach the bucket within 10 s');
      expect(result.rounds[0].operations[0]).toMatchObject({ operation: 'export', count: 0, errors: 1 });
    } finally {
      await slow.stop();
    }
  });
});

describe('without a bucket', () => {
  test('S3 Files\' scenarios are left out of the default run and refused by name, saying what to give', async () => {
    const { parseRequest } = await import('../../../lambda/probe/request');
    const defaults = parseRequest({}, { maxBytes: 1 << 30 }).request!.scenarios.map((s) => s.scenario.name);
    expect(defaults).not.toContain('import');
    expect(parseRequest({}, { maxBytes: 1 << 30, bucket: true }).request!.scenarios.map((s) => s.scenario.name)).toEqual([...defaults, 'import', 'direct-read', 'export-lag']);
    // "canary": the canary of the probe's kind, S3 Files' own scenarios where it has the bucket.
    const canary = (bucket: boolean) => parseRequest({ scenarios: 'canary' }, { maxBytes: 1 << 30, bucket }).request!.scenarios.map((s) => s.scenario.name);
    expect(canary(false)).toEqual(['write-sizes', 'create-files', 'metadata']);
    expect(canary(true)).toEqual(['write-sizes', 'create-files', 'metadata', 'import', 'direct-read', 'export-lag']);
    expect(parseRequest({ scenarios: ['export-lag'] }, { maxBytes: 1 << 30 }).errors).toEqual([
      'scenario \'export-lag\' measures S3 Files through its bucket, and this probe has none: give --bucket s3://<bucket>/<prefix> (the command line), or probe an S3 Files file system',
    ]);
  });

  test('a bucket URL of another shape is refused, naming it; keys follow the directory', () => {
    expect(() => ProbeBucket.open('my-bucket/probe', '/mnt/x')).toThrow("the bucket must be given as s3://<bucket>/<prefix the directory is>, got 'my-bucket/probe'");
    const bucket = ProbeBucket.open('s3://my-bucket/data/probe', '/mnt/x');
    expect(bucket.keyOf('/mnt/x/a/b')).toBe('data/probe/a/b');
    expect(() => bucket.keyOf('/mnt/y')).toThrow('/mnt/y is not under the probed directory /mnt/x');
  });
});
