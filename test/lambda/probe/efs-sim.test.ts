import { execFileSync } from 'child_process';
import * as path from 'path';
import { isRejection, OperationSummary, ProbeResult } from '../../../lambda/probe/result';
import { runProbe } from '../../../lambda/probe/runner';
import { describeWithFuse, EfsSim, onEfsSim } from '../../helpers/efs-sim';
import { FIDELITY_CASES as CASES, FIDELITY_SIM_FLAGS } from '../../helpers/probe-fidelity-cases';

// Fidelity of the probe on the EFS latency emulator: with one operation kind given a known round
// trip, the operation the probe times for it must pay that round trip, once; with a bandwidth cap,
// its throughput must come out as that cap. Held only to what load cannot break: a round trip is
// never shorter than configured and a cap never exceeded, while the other bounds (under two round
// trips, three quarters of a cap) are met by the best of several rounds, with room for a machine at
// full load. How close the probe comes (within a few per cent of 2, 5 and 20 ms on an idle machine)
// is for bench/probe-accuracy.ts to measure.

const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'bin', 'cdk-efs-kit.js');

async function probeOn(sim: EfsSim, scenarios: object, rounds = 1): Promise<ProbeResult> {
  const outcome = await runProbe({ scenarios, rounds, pauseSeconds: 0 }, { target: sim.mount, tool: 'test', version: '0' });
  if (isRejection(outcome)) throw new Error(outcome.errors.join('; '));
  return outcome;
}

const withSim = <T>(flags: string[], fn: (sim: EfsSim) => Promise<T>) => onEfsSim({ profile: 'local', flags: [...FIDELITY_SIM_FLAGS, ...flags] }, fn);

function operation(result: ProbeResult, name: string): OperationSummary {
  for (const s of result.scenarios) {
    const found = s.summary.find((o) => o.operation === name);
    if (found) return found;
  }
  throw new Error(`no operation ${name}`);
}

// Large beside the emulator's own cost per operation (FUSE, the thread pool: under a millisecond idle).
const LATENCY_MS = 40;
// Each case runs a few rounds and counts its best p50: a test running alongside can only add to a
// round trip, never take from it.
const ROUNDS = 3;
const bestP50 = (result: ProbeResult, name: string) => operation(result, name).latencyMs.p50.min;
const bestBytesPerSecond = (result: ProbeResult, name: string) => operation(result, name).bytesPerSecond.max;
/** A small round trip on every operation, as on a network file system. */
const BASE = '--latency-any=0.2';

describeWithFuse('the probe on efs-sim', () => {
  test('its mount checks read the real /proc/self/mountinfo: "not an NFS mount (it is fuse.efs-sim ...)", the NFS options skipped', async () => {
    const { mount, checks } = await withSim([], async (sim) => ({ mount: sim.mount, checks: (await probeOn(sim, { metadata: { files: 5, listings: 1 } })).mountChecks! }));
    expect(checks.map((c) => [c.id, c.status])).toEqual([['mount', 'warn'], ['mount-options', 'skip'], ['posix-identity', 'skip']]);
    expect(checks[0].detail).toMatch(new RegExp(`^${mount} is not an NFS mount \\(it is fuse\\.efs-sim, \\S+\\): these figures are not EFS's$`));
    expect(checks[1].detail).toBe(`mount options: skipped, ${mount} is not on an NFS mount`);
  });

  test.each(CASES)(`$kind: the p50 of $operation is one round trip of the ${LATENCY_MS} ms given to $kind`, async (c) => {
    const p50 = await withSim([BASE, `--latency-${c.kind}=${LATENCY_MS}`], async (sim) => bestP50(await probeOn(sim, c.scenarios, ROUNDS), c.operation));
    expect(p50).toBeGreaterThanOrEqual(LATENCY_MS);
    expect(p50).toBeLessThan(2 * LATENCY_MS);
  });

  // Caps low enough to bind on a machine at full load, where pushing tens of MB/s through FUSE would
  // be held back by the CPU instead. The best round is at most the cap (with 10% for how the probe and
  // the emulator each count the first block) and at least three quarters of it.
  test('the throughput of one stream is the per-stream bandwidth cap', async () => {
    const result = await withSim(['--stream-mbps=5'], (sim) => probeOn(sim, { 'block-sync': { fileBytes: 4 * 1048576, blockSizesBytes: [1048576] } }, ROUNDS));
    const perFile = bestBytesPerSecond(result, 'write-1MiB-blocks-sync-each-file');
    expect(perFile).toBeLessThanOrEqual(1.1 * 5e6);
    expect(perFile).toBeGreaterThanOrEqual(0.75 * 5e6);
  });

  test('the throughput of parallel writers is the aggregate bandwidth cap', async () => {
    const result = await withSim(['--aggregate-mbps=8'], (sim) => probeOn(sim, { 'parallel-writers': { totalBytes: 8 * 1048576, writers: [4], blockBytes: 1048576 } }, ROUNDS));
    const total = bestBytesPerSecond(result, 'write-4-writers-sync-each-block');
    expect(total).toBeLessThanOrEqual(1.1 * 8e6);
    expect(total).toBeGreaterThanOrEqual(0.75 * 8e6);
  });

  test('parallel variants really run in parallel, serial ones one at a time', async () => {
    // Through the CLI, which sizes Node's thread pool for the probe (this test process has 4 threads).
    const cli = (threads: number, sim: EfsSim) => execFileSync(process.execPath, [CLI, 'probe', '--dir', sim.mount, '--scenarios', 'metadata',
      '--set', 'metadata.files=64', '--set', `metadata.threads=${threads}`, '--set', 'metadata.listings=1'], { stdio: 'ignore' });
    // Releases are sent after close returns and overlap what follows: give them no round trip.
    await withSim(['--latency-any=2', '--latency-release=0', '--latency-releasedir=0'], async (sim) => {
      await sim.resetStats();
      cli(16, sim);
      expect((await sim.stats()).peakInFlight).toBeGreaterThanOrEqual(16);
      await sim.resetStats();
      cli(1, sim);
      expect((await sim.stats()).peakInFlight).toBeLessThanOrEqual(2);
    });
  });

  test('random reads opened O_DIRECT reach the file system, as on NFS; with the cache they are served from it', async () => {
    const readsOn = (bypassCache: boolean) => withSim([], async (sim) => {
      await sim.resetStats();
      const result = await probeOn(sim, { 'random-reads': { files: 40, reads: 200, readers: 4, bypassCache } });
      return { bypassed: result.scenarios[0].findings.cacheBypassed, serverReads: (await sim.stats()).ops.read };
    });
    const direct = await readsOn(true);
    const cached = await readsOn(false);
    expect(direct).toMatchObject({ bypassed: true, serverReads: expect.any(Number) });
    expect(direct.serverReads).toBeGreaterThanOrEqual(200);
    expect(cached.bypassed).toBe(false);
    // At most a first read of each of the 40 files, whose pages the write left stale.
    expect(cached.serverReads).toBeLessThan(100);
  });

  test('a target that fails the calibration gets a refusal that says why, not a crash', async () => {
    await withSim(['--fault=EIO:create'], async (sim) => {
      const outcome = await runProbe({ scenarios: ['metadata'], maxSeconds: 60 }, { target: sim.mount, tool: 'test', version: '0' });
      expect(outcome).toMatchObject({ status: 'refused', errors: [expect.stringMatching(/^cannot measure the target to plan the run: EIO: i\/o error, open/)] });
    });
  });

  test('errors injected by the file system are counted per operation, with their message, and scratch files still go', async () => {
    await withSim(['--fault=EIO:write'], async (sim) => {
      const result = await probeOn(sim, { 'write-sizes': { files: 5, sizesBytes: [1024] } });
      expect(result.status).toBe('failed');
      expect(operation(result, 'write-1KiB-file')).toMatchObject({ count: 0, errors: 5 });
      // Written back when the file is closed, as on an NFS client: close reports the error.
      expect(result.scenarios[0].errorMessages).toEqual(['EIO: i/o error, close']);
      expect(require('fs').readdirSync(sim.mount)).toEqual([]);
    });
  });
});
