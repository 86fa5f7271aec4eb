import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { defaultScenarios, SCENARIOS } from '../../../lambda/probe/catalog';
import { processIdentity } from '../../../lambda/shared/mount-checks/posix-identity';
import { isRejection, ProbeRejection, ProbeResult } from '../../../lambda/probe/result';
import { ProbeEnvironment, runProbe } from '../../../lambda/probe/runner';
import { removeStaleScratch, SCRATCH_PREFIX } from '../../../lambda/probe/scratch';
import { NFS_MOUNTINFO } from '../../helpers/nfs-mountinfo';

// The probe's scenarios run for real on a temporary directory (no latency): these tests check what
// each measures and reports, the checks on requests and budgets, and that scratch files never stay.
let target: string;
beforeEach(() => { target = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-')); });
afterEach(() => fs.rmSync(target, { recursive: true, force: true }));

const env = (overrides: Partial<ProbeEnvironment> = {}): ProbeEnvironment => ({ target, tool: 'test', version: '0', sleep: async () => undefined, ...overrides });

async function probe(request: unknown, overrides: Partial<ProbeEnvironment> = {}): Promise<ProbeResult> {
  const outcome = await runProbe(request, env(overrides));
  if (isRejection(outcome)) throw new Error(`rejected: ${outcome.errors.join('; ')}`);
  return outcome;
}

async function rejection(request: unknown, overrides: Partial<ProbeEnvironment> = {}): Promise<ProbeRejection> {
  const outcome = await runProbe(request, env(overrides));
  if (!isRejection(outcome)) throw new Error(`expected a rejection, got status ${outcome.status}`);
  return outcome;
}

const operations = (result: ProbeResult, scenario: string) =>
  Object.fromEntries(result.scenarios.find((s) => s.scenario === scenario)!.summary.map((o) => [o.operation, o]));

/** Small parameters for every scenario: the whole catalogue in a second or two. */
const SMALL = {
  'write-sizes': { files: 3, sizesBytes: [1024, 65536] },
  'create-files': { files: 40, threads: 8, directories: 4 },
  'block-sync': { fileBytes: 262144, blockSizesBytes: [65536, 131072] },
  'parallel-writers': { totalBytes: 262144, writers: [1, 4], blockBytes: 65536 },
  'small-file-tree': { files: 60, directories: 6 },
  'random-reads': { files: 40, reads: 200, readers: 4 },
  'metadata': { files: 20, listings: 3 },
  'locking': { processes: 2, iterations: 5, transactions: 0 },
};

describe('scenarios', () => {
  test('the catalogue runs every scenario, and each operation reports counts, throughput and latency percentiles', async () => {
    const result = await probe({ scenarios: SMALL, label: 'tmp' });
    expect(result.status).toBe('ok');
    // S3 Files' own need its bucket: s3-files-scenarios.test.ts runs them.
    expect(result.scenarios.map((s) => s.scenario)).toEqual(defaultScenarios(false).map((s) => s.name));
    for (const scenario of result.scenarios) {
      expect(scenario.reproduces).toMatch(/^(the AWS lab )?"[^"]+"(, task \d| \([^)]+, \d{4}\)): /); // the benchmark, by its title
      expect(scenario.summary.length).toBeGreaterThan(0);
      for (const o of scenario.summary) {
        expect(o.count).toBeGreaterThan(0);
        expect(o.errors).toBe(0);
        expect(o.opsPerSecond.mean).toBeGreaterThan(0);
        const l = o.latencyMs;
        expect(l.p50.mean).toBeGreaterThan(0);
        expect(l.p50.mean).toBeLessThanOrEqual(l.p90.mean);
        expect(l.p90.mean).toBeLessThanOrEqual(l.p99.mean);
        expect(l.p99.mean).toBeLessThanOrEqual(l.max.mean);
      }
    }
  });

  test('write-sizes writes N files of each size and counts their bytes', async () => {
    const ops = operations(await probe({ scenarios: { 'write-sizes': SMALL['write-sizes'] } }), 'write-sizes');
    expect(Object.keys(ops)).toEqual(['write-1KiB-file', 'write-64KiB-file']);
    expect(ops['write-64KiB-file'].count).toBe(3);
    expect(ops['write-64KiB-file'].bytesPerSecond.mean).toBeGreaterThan(0);
  });

  test('create-files runs the three variants of seed 003 task 1 on the same number of files', async () => {
    const ops = operations(await probe({ scenarios: { 'create-files': SMALL['create-files'] } }), 'create-files');
    expect(Object.keys(ops)).toEqual(['create-serial', 'create-one-directory', 'create-many-directories']);
    expect(Object.values(ops).map((o) => o.count)).toEqual([40, 40, 40]);
  });

  test('block-sync writes each block size synced per block and per file; parallel-writers splits the bytes', async () => {
    const result = await probe({ scenarios: { 'block-sync': SMALL['block-sync'], 'parallel-writers': SMALL['parallel-writers'] } });
    const blocks = operations(result, 'block-sync');
    expect(Object.keys(blocks)).toEqual([
      'write-64KiB-blocks-sync-each-block', 'write-64KiB-blocks-sync-each-file', 'write-128KiB-blocks-sync-each-block', 'write-128KiB-blocks-sync-each-file',
    ]);
    expect(blocks['write-64KiB-blocks-sync-each-block'].count).toBe(4);
    const writers = operations(result, 'parallel-writers');
    expect(writers['write-4-writers-sync-each-block'].count).toBe(4);
  });

  test('random-reads reads the asked number of files, and says it used the cache when asked to', async () => {
    // Whether a local disk takes O_DIRECT depends on its kind and on buffer alignment; the bypass
    // itself is tested on efs-sim, which takes it as NFS does (test/lambda/probe/efs-sim.test.ts).
    const result = await probe({ scenarios: { 'random-reads': { ...SMALL['random-reads'], bypassCache: false } } });
    expect(operations(result, 'random-reads')['read-file'].count).toBe(200);
    expect(result.scenarios[0].findings.cacheBypassed).toBe(false);
  });

  test('random-reads asking to bypass the cache reads every file on any disk, through O_DIRECT or without it where refused', async () => {
    const result = await probe({ scenarios: { 'random-reads': { ...SMALL['random-reads'], bypassCache: true } } });
    expect(operations(result, 'random-reads')['read-file'].count).toBe(200);
    expect(typeof result.scenarios[0].findings.cacheBypassed).toBe('boolean');
  });

  test('locking: processes taking turns on a lock file lose no update', async () => {
    const result = await probe({ scenarios: { locking: SMALL.locking } });
    expect(result.scenarios[0].findings).toMatchObject({ lockedUpdates: 10, lockMutualExclusion: true });
    expect(operations(result, 'locking')['lock-acquire'].count).toBe(10);
  });

  test('rounds are summarised with mean and spread, and pauses are taken between rounds only', async () => {
    const pauses: number[] = [];
    const result = await probe({ scenarios: { metadata: SMALL.metadata }, rounds: 3, pauseSeconds: 7 }, { sleep: async (s) => { pauses.push(s); } });
    expect(pauses).toEqual([7, 7]);
    const stat = operations(result, 'metadata').stat;
    expect(result.scenarios[0].rounds).toHaveLength(3);
    expect(stat.count).toBe(60);
    expect(stat.latencyMs.p50.min).toBeLessThanOrEqual(stat.latencyMs.p50.mean);
    expect(stat.latencyMs.p50.max).toBeGreaterThanOrEqual(stat.latencyMs.p50.mean);
  });
});

describe('scratch files', () => {
  const leftovers = () => fs.readdirSync(target);

  test('are removed after a run', async () => {
    await probe({ scenarios: SMALL });
    expect(leftovers()).toEqual([]);
  });

  test('are removed after a scenario fails, and the failure is reported', async () => {
    const result = await probe({ scenarios: { 'create-files': { files: 5, threads: 1, directories: 1 } } }, {
      onProgress: (p) => {
        if (p.phase !== 'start') return;
        const scratch = fs.readdirSync(target).find((n) => n.startsWith(SCRATCH_PREFIX))!;
        // Occupy the path the scenario creates first, so its mkdir fails.
        fs.mkdirSync(path.join(target, scratch, 'create-files-1'));
        fs.writeFileSync(path.join(target, scratch, 'create-files-1', 'serial'), 'in the way');
      },
    });
    expect(result.status).toBe('failed');
    expect(result.scenarios[0].failure).toMatch(/round 1: .*EEXIST/);
    expect(leftovers()).toEqual([]);
  });

  test('of a run killed more than a day ago are swept; recent ones are left to their run', async () => {
    const old = `${SCRATCH_PREFIX}${Date.now() - 25 * 3600 * 1000}-1`;
    const recent = `${SCRATCH_PREFIX}${Date.now() - 60 * 1000}-2`;
    for (const name of [old, recent]) fs.mkdirSync(path.join(target, name, 'metadata-1'), { recursive: true });
    fs.writeFileSync(path.join(target, old, 'metadata-1', 'f-1'), '');
    await probe({ scenarios: { metadata: SMALL.metadata } });
    expect(leftovers()).toEqual([recent]);
  });
});

describe('bad input', () => {
  test('fails when a scenario is unknown, listing the ones allowed', async () => {
    const r = await rejection({ scenarios: ['write-sizes', 'fio'] });
    expect(r.status).toBe('invalid');
    expect(r.errors).toEqual([`unknown scenario 'fio'; allowed: ${SCENARIOS.map((s) => s.name).join(', ')}`]);
    expect(Object.keys(r.allowed.scenarios as object)).toEqual(SCENARIOS.map((s) => s.name));
  });

  test('fails when parameters are unknown or out of range, naming each', async () => {
    const r = await rejection({ scenarios: { 'write-sizes': { files: 0, sizesBytes: [1024, -1], fileCount: 3 } }, rounds: 1.5 });
    expect(r.errors).toEqual([
      "scenario 'write-sizes': unknown parameter 'fileCount'; allowed: files, sizesBytes",
      "scenario 'write-sizes': parameter 'files' must be an integer from 1 to 1000, got 0",
      "scenario 'write-sizes': parameter 'sizesBytes' must be a list of 1 to 8 integers from 1 to 1073741824, got [1024,-1]",
      "'rounds' must be an integer from 1 to 100, got 1.5",
    ]);
  });

  test('fails when the request is not an object or has unknown fields', async () => {
    expect((await rejection('write-sizes')).errors).toEqual(['the request must be a JSON object, got "write-sizes"']);
    expect((await rejection({ scenario: 'metadata' })).errors[0]).toBe("unknown field 'scenario'; allowed: scenarios, rounds, pauseSeconds, maxBytes, maxSeconds, label");
  });

  test('fails when the target is not a directory', async () => {
    const r = await rejection({ scenarios: ['metadata'] }, { target: path.join(target, 'missing') });
    expect(r.errors[0]).toMatch(/^cannot use the target: the target .*missing is not a directory$/);
  });

  test('fails when a request asks for more bytes or seconds than the probe allows', async () => {
    const r = await rejection({ scenarios: ['metadata'], maxBytes: 2048, maxSeconds: 100 }, { maxBytes: 1024, maxSeconds: 50 });
    expect(r.errors).toEqual(["'maxBytes' must be an integer from 1 to 1024, got 2048", "'maxSeconds' must be an integer from 1 to 50, got 100"]);
  });
});

describe('budgets', () => {
  test('a run that would move more bytes than the budget is refused before anything is written', async () => {
    const r = await rejection({ scenarios: { 'write-sizes': { files: 10, sizesBytes: [1048576] } }, rounds: 2, maxBytes: 10 * 1048576 });
    expect(r.status).toBe('refused');
    expect(r.errors[0]).toBe('the run would move 20 MiB (2 round(s) of write-sizes 10 MiB), more than the byte budget of 10 MiB: lower the scenarios\' sizes or rounds, or raise maxBytes');
    expect(fs.readdirSync(target)).toEqual([]);
  });

  test('a run estimated to take longer than the time budget is refused, with the estimate and what it is based on', async () => {
    const r = await rejection({ scenarios: { 'create-files': { files: 100000 } }, rounds: 3, pauseSeconds: 600 }, { maxSeconds: 60 });
    expect(r.status).toBe('refused');
    expect(r.errors[0]).toMatch(/^the run would take about \d+ s \(3 round\(s\) of create-files [\d.]+ s and 2 pause\(s\) of 600 s; measured here: [\d.]+ ms per file create, [\d.]+ MiB\/s writes\), more than the time budget of 60 s/);
  });

  test('a run that fits reports its plan: bytes, estimate and the calibration behind it', async () => {
    const result = await probe({ scenarios: { 'write-sizes': SMALL['write-sizes'] } }, { maxSeconds: 60 });
    expect(result.budget).toMatchObject({ maxSeconds: 60, plannedBytes: 3 * (1024 + 65536) });
    expect(result.budget.estimatedSeconds).toBeGreaterThan(0);
    expect(result.calibration!.roundTripMs).toBeGreaterThan(0);
  });
});

test('scratch of runs killed over a day ago is swept; newer scratch and other directories are left alone', async () => {
  const day = 24 * 3600 * 1000;
  const names = [`${SCRATCH_PREFIX}${Date.now() - 2 * day}-1`, `${SCRATCH_PREFIX}${Date.now() - 1000}-2`, 'www', `${SCRATCH_PREFIX}x-3`];
  for (const name of names) fs.mkdirSync(path.join(target, name));
  expect(await removeStaleScratch(target)).toEqual([names[0]]);
  expect(fs.readdirSync(target).sort()).toEqual(names.slice(1).sort());
});

describe('mount checks', () => {
  const METADATA = { scenarios: { metadata: SMALL.metadata } };
  const byId = (result: ProbeResult) => Object.fromEntries(result.mountChecks!.map((c) => [c.id, c]));
  /** A fixture line copied from a real EFS mount (test/helpers/nfs-mountinfo.ts), moved onto the target: this kernel has no NFS client. */
  const nfsAt = (line: string, dir: string) => () => line.replace(/^(\S+ \S+ \S+ \S+) \S+/, `$1 ${dir.replace(/ /g, '\\040')}`);

  test('on a real directory (not a mount): "not an NFS mount", naming what it is, and the rest skipped with why; the status is untouched', async () => {
    const result = await probe(METADATA);
    expect(result.status).toBe('ok');
    expect(result.mountChecks!.map((c) => [c.id, c.status])).toEqual([['mount', 'warn'], ['mount-options', 'skip'], ['posix-identity', 'skip']]);
    const checks = byId(result);
    expect(checks.mount.detail).toMatch(new RegExp(`^${target} \\(in the mount at /\\S*\\) is not an NFS mount \\(it is \\S+, \\S+\\): these figures are not EFS's$`));
    expect(checks.mount.fix).toMatch(/^probe a directory on an EFS mount/);
    expect(checks['mount-options'].detail).toBe(`mount options: skipped, ${target} is not on an NFS mount`);
    expect(checks['posix-identity'].detail).toBe('POSIX identity: skipped, the probe was not told the access point it writes through');
  });

  test('this process\'s uid:gid against the access point\'s POSIX user: the same passes, another warns naming both', async () => {
    const me = processIdentity();
    const same = byId(await probe(METADATA, { accessPoint: { id: 'fsap-0123456789abcdef0', posixUser: me } }))['posix-identity'];
    expect(same).toEqual({ id: 'posix-identity', status: 'pass', detail: `this client runs as ${me.uid}:${me.gid}, the POSIX user fsap-0123456789abcdef0 enforces` });
    const other = { uid: me.uid + 1, gid: me.gid + 1, secondaryGids: [] };
    const differs = byId(await probe(METADATA, { accessPoint: { id: 'fsap-0123456789abcdef0', posixUser: other } }))['posix-identity'];
    expect(differs.status).toBe('warn');
    expect(differs.detail).toMatch(new RegExp(`^this client runs as ${me.uid}:${me.gid} but fsap-0123456789abcdef0 makes every request ${other.uid}:${other.gid}: files it creates belong to ${other.uid}:${other.gid}`));
    const none = byId(await probe(METADATA, { accessPoint: { id: 'fsap-0123456789abcdef0' } }))['posix-identity'];
    expect(none.detail).toBe(`fsap-0123456789abcdef0 enforces no POSIX user: requests carry this client's uid:gid ${me.uid}:${me.gid}`);
  });

  test('inside Lambda, which mounts through the access point, another uid:gid is no mismatch: the access point sets its user for every client', async () => {
    const me = processIdentity();
    const other = { uid: me.uid + 1, gid: me.gid + 1, secondaryGids: [] };
    const lambda = byId(await probe(METADATA, { insideLambda: true, accessPoint: { id: 'fsap-0123456789abcdef0', posixUser: other } }))['posix-identity'];
    expect(lambda).toEqual({
      id: 'posix-identity', status: 'pass',
      detail: `the access point fsap-0123456789abcdef0 sets uid ${other.uid} gid ${other.gid} for every client: files this function creates belong to ${other.uid}:${other.gid}, whatever uid Lambda runs it as`,
    });
    const none = byId(await probe(METADATA, { insideLambda: true, accessPoint: { id: 'fsap-0123456789abcdef0' } }))['posix-identity'];
    expect(none.detail).toBe(`fsap-0123456789abcdef0 enforces no POSIX user: requests carry this client's uid:gid ${me.uid}:${me.gid}`);
  });

  test('on an NFS mount of EFS with the recommended options (mountinfo fixture): both pass', async () => {
    const result = await probe(METADATA, { fileSystemId: 'fs-0313e79d562273a6b', mountinfo: nfsAt(NFS_MOUNTINFO.dnsNameRecommended, target) });
    const checks = byId(result);
    expect(checks.mount).toEqual({ id: 'mount', status: 'pass', detail: `${target} is an NFS mount (nfs4 from fs-0313e79d562273a6b.efs.us-east-1.amazonaws.com:/)` });
    expect(checks['mount-options'].status).toBe('pass');
  });

  test('an NFS mount of another file system, or with options EFS advises against, warns (mountinfo fixtures)', async () => {
    const other = byId(await probe(METADATA, { fileSystemId: 'fs-0123456789abcdef0', mountinfo: nfsAt(NFS_MOUNTINFO.dnsNameRecommended, target) })).mount;
    expect(other.status).toBe('warn');
    expect(other.detail).toBe(`${target} mounts fs-0313e79d562273a6b (fs-0313e79d562273a6b.efs.us-east-1.amazonaws.com:/), not fs-0123456789abcdef0: these figures are of fs-0313e79d562273a6b`);
    const options = byId(await probe(METADATA, { mountinfo: nfsAt(NFS_MOUNTINFO.advisedAgainst, target) }))['mount-options'];
    expect(options.status).toBe('warn');
    expect(options.detail).toMatch(/^\d+ options differ from EFS's recommendations: vers=4\.0 .*soft .*noac .*lookupcache=none/);
  });

  test('a mount table that cannot be read skips the mount check, saying why', async () => {
    const result = await probe(METADATA, { mountinfo: () => { throw new Error('ENOENT: no such file or directory, open \'/proc/self/mountinfo\''); } });
    expect(byId(result).mount).toEqual({ id: 'mount', status: 'skip', detail: `the mount of ${target}: skipped, ENOENT: no such file or directory, open '/proc/self/mountinfo'` });
  });

  // On an efs-sim FUSE mount: test/lambda/probe/efs-sim.test.ts (efs-sim runs in jest's integration project).
});
