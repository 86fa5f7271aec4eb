/**
 * How exactly the probe measures, printed as markdown:
 * 1. its own overhead: the latency it reports for an operation that does nothing, and metadata
 *    operations on tmpfs (no network: what is left is Node's thread pool and the probe);
 * 2. its fidelity: on efs-sim, one operation kind given a known round trip, the probe's p50 for it
 *    (the emulator's own cost, measured with a small round trip everywhere, taken off).
 *
 *   npx tsx bench/probe-accuracy.ts      # about a minute; needs root and /dev/fuse for part 2
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Recorder } from '../lambda/probe/recorder';
import { isRejection, ProbeResult } from '../lambda/probe/result';
import { runProbe } from '../lambda/probe/runner';
import { FIDELITY_CASES, FIDELITY_SIM_FLAGS } from '../test/helpers/probe-fidelity-cases';
import { efsSimUsable, onEfsSim } from '../tools/efs-sim/mount';

const FILES = 2000;

async function probe(target: string, scenarios: object): Promise<ProbeResult> {
  const outcome = await runProbe({ scenarios }, { target, tool: 'bench', version: '0' });
  if (isRejection(outcome)) throw new Error(outcome.errors.join('; '));
  return outcome;
}

/** The operation's p50 in ms (mean over rounds). */
const p50 = (r: ProbeResult, operation: string) => r.scenarios.flatMap((s) => s.summary).find((o) => o.operation === operation)!.latencyMs.p50.mean;

/** The probe's own cost: the latency it reports for an operation that does nothing, and its tmpfs latencies. */
async function overhead(): Promise<string[]> {
  const recorder = new Recorder();
  await recorder.phase('no-op', { data: 'none', metadataReads: 0, metadataWrites: 0 }, async (time) => {
    for (let i = 0; i < 100_000; i++) await time(async () => undefined);
  });
  const noop = recorder.operations[0].latencyMs;
  const dir = fs.mkdtempSync(path.join('/dev/shm', 'probe-overhead-'));
  try {
    const result = await probe(dir, { metadata: { files: FILES, listings: 200 } });
    const ns = (ms: number) => Math.round(ms * 1e6).toLocaleString('en-US');
    return [
      `The probe's timing floor: an operation that does nothing is reported as ${ns(noop.p50)} ns (p50), ${ns(noop.p99)} ns (p99), over 100,000 calls.`,
      '',
      '| operation on tmpfs (no network) | p50, µs | p99, µs |',
      '|---|---:|---:|',
      ...result.scenarios[0].summary.map((o) => `| ${o.operation} | ${(o.latencyMs.p50.mean * 1000).toFixed(1)} | ${(o.latencyMs.p99.mean * 1000).toFixed(1)} |`),
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const onSim = <T>(flags: string[], fn: (mount: string) => Promise<T>) =>
  onEfsSim({ profile: 'local', flags: [...FIDELITY_SIM_FLAGS, '--latency-any=0.2', ...flags] }, (sim) => fn(sim.mount));

async function fidelity(): Promise<string[]> {
  const rows = ['| efs-sim operation | probe operation | configured, ms | measured p50, ms | error |', '|---|---|---:|---:|---:|'];
  for (const c of FIDELITY_CASES) {
    const base = await onSim([], async (m) => p50(await probe(m, c.scenarios), c.operation));
    for (const latency of [2, 5, 20]) {
      const measured = await onSim([`--latency-${c.kind}=${latency + 0.2}`], async (m) => p50(await probe(m, c.scenarios), c.operation)) - base;
      rows.push(`| ${c.kind} | ${c.operation} | ${latency} | ${measured.toFixed(2)} | ${(((measured - latency) / latency) * 100).toFixed(1)}% |`);
    }
  }
  return rows;
}

async function main(): Promise<void> {
  const out = [`Machine: ${os.cpus().length} x ${os.cpus()[0].model}, node ${process.version}`, '', ...(await overhead()), ''];
  if (efsSimUsable()) out.push(...(await fidelity()));
  else out.push('(fidelity on efs-sim skipped: needs root and /dev/fuse)');
  console.log(out.join('\n'));
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
