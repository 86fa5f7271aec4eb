import type { OperationSummary, ProbeResult, ScenarioCost, ScenarioResult } from '../../lambda/probe/result';
import { MiB } from '../../lambda/shared/sizes';
import { usd } from './money';

/**
 * The side-by-side table of seed 004 (Elastic | Bursting | difference) for every scenario and
 * operation two probe runs share: p50 and p99 latency and throughput, A against B.
 */
interface CompareRow {
  readonly scenario: string;
  readonly operation: string;
  readonly a?: OperationSummary;
  readonly b?: OperationSummary;
}

function compareRows(a: ProbeResult, b: ProbeResult): CompareRow[] {
  const scenarios = [...new Set([...a.scenarios, ...b.scenarios].map((s) => s.scenario))];
  return scenarios.flatMap((scenario) => operationsAcross([a, b].map((r) => r.scenarios.find((s) => s.scenario === scenario)))
    .map(({ operation, summaries: [inA, inB] }) => ({ scenario, operation, a: inA, b: inB })));
}

/** Every operation one scenario's runs (one per probe result, absent where it did not run) measured, in first-seen order, with each run's summary. */
export function operationsAcross(runs: ReadonlyArray<ScenarioResult | undefined>): Array<{ operation: string; summaries: Array<OperationSummary | undefined> }> {
  const names = [...new Set(runs.flatMap((s) => s?.summary.map((o) => o.operation) ?? []))];
  return names.map((operation) => ({ operation, summaries: runs.map((s) => s?.summary.find((o) => o.operation === operation)) }));
}

/** Throughput in MB/s (10^6 bytes, as dd prints) where the operation moves data, else operations/s. */
export function throughputOf(o: OperationSummary): { value: number; unit: 'MB/s' | 'ops/s' } {
  return o.bytesPerSecond.mean > 0 ? { value: o.bytesPerSecond.mean / 1e6, unit: 'MB/s' } : { value: o.opsPerSecond.mean, unit: 'ops/s' };
}

/** A latency or throughput figure in a table: 2 decimals below 10, 1 above. */
export function figure(value: number): string {
  return value.toFixed(value < 10 ? 2 : 1);
}

/** (A - B) / B, as seed 004 prints it: negative means A took less time (or moved less). */
function difference(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || b === 0) return '-';
  const percent = ((a - b) / b) * 100;
  return `${percent > 0 ? '+' : ''}${percent.toFixed(1)}%`;
}

export function renderCompareTable(a: ProbeResult, b: ProbeResult): string {
  const ms = (v: number | undefined) => (v === undefined ? '-' : figure(v));
  const lines = [
    `| scenario | operation | ${a.label} p50 ms | ${b.label} p50 ms | difference | ${a.label} p99 ms | ${b.label} p99 ms | difference | ${a.label} throughput | ${b.label} throughput | difference |`,
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of compareRows(a, b)) {
    const [pa, pb] = [row.a?.latencyMs.p50.mean, row.b?.latencyMs.p50.mean];
    const [qa, qb] = [row.a?.latencyMs.p99.mean, row.b?.latencyMs.p99.mean];
    const [ta, tb] = [row.a && throughputOf(row.a), row.b && throughputOf(row.b)];
    const shown = (t?: { value: number; unit: string }) => (t ? `${figure(t.value)} ${t.unit}` : '-');
    lines.push(`| ${row.scenario} | ${row.operation} | ${ms(pa)} | ${ms(pb)} | ${difference(pa, pb)} | ${ms(qa)} | ${ms(qb)} | ${difference(qa, qb)} | ${shown(ta)} | ${shown(tb)} | ${difference(ta?.value, tb?.value)} |`);
  }
  return lines.join('\n');
}

/**
 * A scenario run's cost next to its speed: the seconds its timed operations took, the MiB EFS
 * meters for them (read / written / metadata), and what they cost under each throughput mode.
 * Dashes for a result written before cdk-efs-kit estimated costs.
 */
export function costCells(cost: ScenarioCost | undefined): string[] {
  if (cost === undefined) return ['-', '-', '-', '-', '-'];
  const m = cost.metered;
  const mib = (bytes: number) => (bytes / MiB).toFixed(1);
  return [
    figure(cost.seconds),
    `${mib(m.dataReadBytes)} / ${mib(m.dataWriteBytes)} / ${mib(m.metadataReadBytes + m.metadataWriteBytes)}`,
    usd(cost.elasticUsd),
    `${usd(cost.provisionedUsd)} at ${figure(cost.provisionedMibps)} MiB/s (${usd(cost.provisionedUsdPerMonth)} a month)`,
    `${usd(0)}, up to ${mib(m.meteredIOBytes)} MiB of credits`,
  ];
}

export const COST_COLUMNS = ['seconds', 'metered MiB read / written / metadata', 'Elastic', 'Provisioned', 'Bursting'];

/** The prices results' costs are at, each named once. */
export function pricesOf(results: ProbeResult[]): string {
  return [...new Set(results.map((r) => r.pricing ?? 'no prices (an older result)'))].join(' and ');
}

/** Both runs' cost per scenario, a row each: price next to speed. */
export function renderCostTable(a: ProbeResult, b: ProbeResult): string {
  const lines = [`Cost of the timed operations, at ${pricesOf([a, b])}:`, '', `| scenario | run | ${COST_COLUMNS.join(' | ')} |`, '|---|---|---:|---:|---:|---:|---:|'];
  const scenarios = [...new Set([...a.scenarios, ...b.scenarios].map((s) => s.scenario))];
  for (const scenario of scenarios) {
    for (const run of [a, b]) {
      const result = run.scenarios.find((s) => s.scenario === scenario);
      if (result) lines.push(`| ${scenario} | ${run.label} | ${costCells(result.cost).join(' | ')} |`);
    }
  }
  return lines.join('\n');
}
