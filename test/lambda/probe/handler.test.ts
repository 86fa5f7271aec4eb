import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CANARY_SMALL_OPERATIONS } from '../../../lib/probe/canary';
import { CANARY_REQUEST } from '../../../lib/probe/contract/canary-requests';
import { PROBE_METRIC } from '../../../lib/probe/contract/metric-names';

// The bundled probe handler, exactly the asset BenchmarkProbe deploys (dist/handlers/probe), invoked
// in its own process as Lambda would, with the mount path and limits the construct sets, on this
// machine's Node 20 and on Node 22 (the runtime nodejs22.x, installed by tools/setup.sh into
// tools/lambda-node). Its stdout is parsed as CloudWatch Embedded Metric Format and checked against
// the specification's limits.
const HANDLER = path.join(__dirname, '..', '..', '..', 'dist', 'handlers', 'probe', 'index.js');
const NODE_22 = path.join(__dirname, '..', '..', '..', 'tools', 'lambda-node', 'node_modules', '.bin', 'node');
const RUNTIMES: Array<[string, string]> = [['Node 20 (this machine)', process.execPath]];
if (fs.existsSync(NODE_22)) RUNTIMES.push(['Node 22 (the Lambda runtime)', NODE_22]);
else console.warn(`probe handler tests run on this machine's Node only: ${NODE_22} is missing (bash tools/setup.sh installs it)`);

/** The units EMF accepts (the CloudWatch MetricDatum StandardUnit values). */
const EMF_UNITS = new Set(['Seconds', 'Microseconds', 'Milliseconds', 'Bytes', 'Kilobytes', 'Megabytes', 'Gigabytes', 'Terabytes',
  'Bits', 'Kilobits', 'Megabits', 'Gigabits', 'Terabits', 'Percent', 'Count', 'Bytes/Second', 'Kilobytes/Second', 'Megabytes/Second',
  'Gigabytes/Second', 'Terabytes/Second', 'Bits/Second', 'Kilobits/Second', 'Megabits/Second', 'Gigabits/Second', 'Terabits/Second',
  'Count/Second', 'None']);

interface Invocation {
  result: any;
  emf: any[];
  logs: any[];
}

let mountDir: string;
beforeEach(() => { mountDir = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-mnt-')); });
afterEach(() => fs.rmSync(mountDir, { recursive: true, force: true }));

/** Runs the handler once and returns stdout lines and the result (written to stderr, apart from the logs). */
function run(node: string, event: unknown, env: Record<string, string> = {}, remainingMs = 300_000): Invocation {
  const driver = `
    const { handler } = require(${JSON.stringify(HANDLER)});
    handler(JSON.parse(process.argv[1]), { getRemainingTimeInMillis: () => ${remainingMs} })
      .then((r) => require('fs').writeFileSync(process.argv[2], JSON.stringify(r)));`;
  const resultFile = path.join(os.tmpdir(), `probe-result-${process.pid}-${Date.now()}.json`);
  const stdout = execFileSync(node, ['-e', driver, JSON.stringify(event), resultFile], {
    encoding: 'utf8',
    env: { ...process.env, PROBE_MOUNT_PATH: mountDir, PROBE_FILE_SYSTEM_ID: 'fs-0123456789abcdef0', CDK_EFS_KIT_VERSION: '9.9.9', UV_THREADPOOL_SIZE: '256', ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const result = JSON.parse(fs.readFileSync(resultFile, 'utf8'));
  fs.rmSync(resultFile);
  const lines = stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  return { result, emf: lines.filter((l) => l._aws), logs: lines.filter((l) => !l._aws) };
}

/** Checks one EMF event against the specification; returns its metric names. */
function validEmf(event: any): string[] {
  const meta = event._aws;
  expect(Number.isInteger(meta.Timestamp)).toBe(true);
  expect(meta.CloudWatchMetrics).toHaveLength(1);
  const directive = meta.CloudWatchMetrics[0];
  expect(directive.Namespace).toBe('CdkEfsKit');
  expect(directive.Metrics.length).toBeGreaterThan(0);
  expect(directive.Metrics.length).toBeLessThanOrEqual(100);
  for (const set of directive.Dimensions) {
    expect(set.length).toBeLessThanOrEqual(30);
    for (const key of set) expect(typeof event[key]).toBe('string');
  }
  for (const metric of directive.Metrics) {
    expect(EMF_UNITS).toContain(metric.Unit);
    const values = [event[metric.Name]].flat();
    expect(values.length).toBeLessThanOrEqual(100);
    for (const v of values) expect(Number.isFinite(v)).toBe(true);
  }
  return directive.Metrics.map((m: { Name: string }) => m.Name);
}

describe.each(RUNTIMES)('on %s', (_, node) => {
  test('the canary request runs, returns the result and publishes valid EMF per scenario and operation', () => {
    const { result, emf } = run(node, CANARY_REQUEST);
    expect(result).toMatchObject({ status: 'ok', label: 'canary', fileSystemId: 'fs-0123456789abcdef0', version: '9.9.9', tool: 'cdk-efs-kit probe (Lambda)' });
    const perOperation = emf.filter((e) => e.Operation);
    const operations = result.scenarios.flatMap((s: any) => s.summary.map((o: any) => `${s.scenario}/${o.operation}`));
    expect(perOperation.map((e) => `${e.Scenario}/${e.Operation}`)).toEqual(operations);
    for (const o of CANARY_SMALL_OPERATIONS) expect(operations).toContain(`${o.scenario}/${o.operation}`);
    for (const e of perOperation) {
      expect(e._aws.CloudWatchMetrics[0].Dimensions).toEqual([['FileSystemId', 'Scenario', 'Operation']]);
      expect(validEmf(e)).toEqual([PROBE_METRIC.latencyP50, PROBE_METRIC.latencyP90, PROBE_METRIC.latencyP99, PROBE_METRIC.latencyMax,
        PROBE_METRIC.opsPerSecond, PROBE_METRIC.throughput, PROBE_METRIC.errors]);
    }
    const failures = emf.find((e) => e[PROBE_METRIC.failures] !== undefined);
    expect(failures._aws.CloudWatchMetrics[0].Dimensions).toEqual([['FileSystemId']]);
    expect(failures[PROBE_METRIC.failures]).toBe(0);
    expect(fs.readdirSync(mountDir)).toEqual([]);
  });

  test('each round is one value of a metric, so a run of many rounds still fits one EMF event', () => {
    const { emf } = run(node, { scenarios: { metadata: { files: 5, listings: 1 } }, rounds: 3, pauseSeconds: 0 });
    const stat = emf.find((e) => e.Operation === 'stat');
    validEmf(stat);
    expect(stat[PROBE_METRIC.latencyP50]).toHaveLength(3);
  });

  test('the locking scenario reports whether SQLite is safe where node:sqlite exists, and says why not elsewhere', () => {
    const { result } = run(node, { scenarios: { locking: { processes: 2, iterations: 5, transactions: 10 } } });
    const findings = result.scenarios[0].findings;
    expect(findings).toMatchObject({ lockMutualExclusion: true, lockedUpdates: 10 });
    const major = Number(execFileSync(node, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }));
    if (major >= 22) {
      expect(findings).toMatchObject({ sqliteAvailable: true, sqliteLocksHonoured: true, sqliteIntegrity: 'ok', safeForSqlite: true });
      expect(findings.verdict).toMatch(/^locks are honoured and the database stays intact; each commit waits [\d.]+ ms \(p50\)/);
    } else {
      expect(findings).toMatchObject({ sqliteAvailable: false, safeForSqlite: null });
    }
  });

  test('a request that does not fit the remaining time is refused and counted as a probe failure', () => {
    const { result, emf } = run(node, { scenarios: { 'create-files': { files: 100000 } }, rounds: 20, pauseSeconds: 600 }, {}, 60_000);
    expect(result.status).toBe('refused');
    // 60 s left: the handler keeps 15 s for cleanup and metrics.
    expect(result.errors[0]).toMatch(/more than the time budget of 45 s/);
    expect(emf).toHaveLength(1);
    expect(emf[0][PROBE_METRIC.failures]).toBe(1);
  });

  test('the byte limit the construct sets caps every request', () => {
    const { result } = run(node, { scenarios: { 'write-sizes': {} } }, { PROBE_MAX_BYTES: String(1024 * 1024) });
    expect(result.status).toBe('refused');
    expect(result.errors[0]).toMatch(/more than the byte budget of 1\.0 MiB/);
  });

  test('the result reports the mount checks on its directory (a real one, not a mount), with the access point\'s user the construct sets', () => {
    // Another user than this process's: inside Lambda the access point maps every request to it, so that is no mismatch.
    const other = `${process.geteuid!() + 1000}:${process.getegid!() + 1000}`;
    const told = run(node, { scenarios: { metadata: { files: 5, listings: 1 } } }, { PROBE_ACCESS_POINT_ID: 'fsap-0123456789abcdef0', PROBE_ACCESS_POINT_POSIX_USER: other }).result;
    expect(told.status).toBe('ok');
    expect(told.mountChecks.map((c: any) => [c.id, c.status])).toEqual([['mount', 'warn'], ['mount-options', 'skip'], ['posix-identity', 'pass']]);
    expect(told.mountChecks[0].detail).toMatch(new RegExp(`^${mountDir} \\(in the mount at /\\S*\\) is not an NFS mount \\(it is \\S+, \\S+\\)`));
    const [uid, gid] = other.split(':');
    expect(told.mountChecks[2].detail).toBe(`the access point fsap-0123456789abcdef0 sets uid ${uid} gid ${gid} for every client: files this function creates belong to ${other}, whatever uid Lambda runs it as`);
    // An access point the construct was given, not made: it does not know the user, so the check says so.
    const untold = run(node, { scenarios: { metadata: { files: 5, listings: 1 } } }).result;
    expect(untold.mountChecks[2]).toEqual({ id: 'posix-identity', status: 'skip', detail: 'POSIX identity: skipped, the probe was not told the access point it writes through' });
  });

  test('an invalid request gets the errors and what is allowed', () => {
    const { result } = run(node, { scenarios: ['nope'] });
    expect(result.status).toBe('invalid');
    expect(result.errors).toEqual([expect.stringMatching(/^unknown scenario 'nope'; allowed: write-sizes, /)]);
    expect(result.allowed.scenarios['write-sizes'].params.files).toMatchObject({ type: 'integer', default: 10 });
  });
});
