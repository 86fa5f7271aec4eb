import type { OperationSummary, ProbeResult, ScenarioCost, ScenarioResult } from '../../lambda/probe/result';
import { MiB } from '../../lambda/shared/sizes';
import { usd } from './money';
import { paragraph, TextLayout } from './text-layout';
import { renderTable, TableColumn } from './text-table';

/** An operation two probe runs share (or one of them measured), with each run's summary. */
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

/** (b - a) / a in %, signed: how much higher the second run's figure is than the first's. */
export function differencePercent(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || b === undefined || a === 0 ? undefined : ((b - a) / a) * 100;
}

function percent(value: number | undefined): string {
  return value === undefined ? '-' : `${value > 0 ? '+' : ''}${value.toFixed(1)}%`;
}

/** One figure of an operation in both runs. */
export interface ComparedFigure {
  readonly scenario: string;
  readonly operation: string;
  readonly measure: 'p50' | 'p99' | 'throughput';
  readonly unit: string;
  readonly a?: number;
  readonly b?: number;
  /** (b - a) / a, in %. */
  readonly differencePercent?: number;
}

/** p50, p99 and throughput of every operation the runs measured, each in both. */
export function comparedFigures(a: ProbeResult, b: ProbeResult): ComparedFigure[] {
  return compareRows(a, b).flatMap((row) => {
    const [ta, tb] = [row.a && throughputOf(row.a), row.b && throughputOf(row.b)];
    const figures: Array<Pick<ComparedFigure, 'measure' | 'unit' | 'a' | 'b'>> = [
      { measure: 'p50', unit: 'ms', a: row.a?.latencyMs.p50.mean, b: row.b?.latencyMs.p50.mean },
      { measure: 'p99', unit: 'ms', a: row.a?.latencyMs.p99.mean, b: row.b?.latencyMs.p99.mean },
      { measure: 'throughput', unit: (ta ?? tb)!.unit, a: ta?.value, b: tb?.value },
    ];
    return figures.map((f) => ({ scenario: row.scenario, operation: row.operation, ...f, differencePercent: differencePercent(f.a, f.b) }));
  });
}

/** Which way the differences are taken, in words, for the line above the table and for --json. */
export function directionOf(a: ProbeResult, b: ProbeResult): string {
  return `${b.label} vs ${a.label}: (${b.label} - ${a.label}) / ${a.label}, so + means ${b.label}'s figure is higher `
    + `(slower for p50 and p99, faster for throughput)`;
}

/**
 * The two runs side by side: p50, p99 and throughput of every operation they share, a row each,
 * with the second run's difference from the first, under a line saying which way it is taken.
 */
export function renderCompareTable(a: ProbeResult, b: ProbeResult, layout: TextLayout): string {
  const columns: TableColumn[] = [
    { header: 'scenario', align: 'left' }, { header: 'operation', align: 'left' }, { header: 'measure', align: 'left' },
    { header: a.label, align: 'right' }, { header: b.label, align: 'right' }, { header: `${b.label} vs ${a.label}`, align: 'right' },
  ];
  let previous: ComparedFigure | undefined;
  const rows = comparedFigures(a, b).map((c) => {
    // Scenario and operation once, on their first row: the eye finds where each begins.
    const sameScenario = previous?.scenario === c.scenario;
    const sameOperation = sameScenario && previous?.operation === c.operation;
    previous = c;
    const shown = (v: number | undefined) => (v === undefined ? '-' : `${figure(v)} ${c.unit}`);
    return [sameScenario ? '' : c.scenario, sameOperation ? '' : c.operation, c.measure, shown(c.a), shown(c.b), percent(c.differencePercent)];
  });
  return [...paragraph(`${directionOf(a, b)}.`, layout), '', ...renderTable(columns, rows, layout)].join('\n');
}

/**
 * A scenario run's cost next to its speed: the seconds its timed operations took, the MiB metered
 * for them (read / written / metadata), and what they cost under each EFS throughput mode and on S3
 * Files, with a month at the measured rate. Dashes for what a result written before cdk-efs-kit
 * estimated it lacks.
 */
export function costCells(cost: ScenarioCost | undefined): string[] {
  if (cost === undefined) return ['-', '-', '-', '-', '-', '-'];
  const m = cost.metered;
  const mib = (bytes: number) => (bytes / MiB).toFixed(1);
  const withMonth = (run: number, month: number | undefined) => (month === undefined ? usd(run) : `${usd(run)} (${usd(month)} a month)`);
  return [
    figure(cost.seconds),
    `${mib(m.dataReadBytes)} / ${mib(m.dataWriteBytes)} / ${mib(m.metadataReadBytes + m.metadataWriteBytes)}`,
    withMonth(cost.elasticUsd, cost.elasticUsdPerMonth),
    `${usd(cost.provisionedUsd)} at ${figure(cost.provisionedMibps)} MiB/s (${usd(cost.provisionedUsdPerMonth)} a month)`,
    `${usd(0)}, up to ${mib(m.meteredIOBytes)} MiB of credits`,
    cost.s3FilesUsd === undefined ? '-' : withMonth(cost.s3FilesUsd, cost.s3FilesUsdPerMonth),
  ];
}

export const COST_COLUMNS = ['seconds', 'metered MiB read / written / metadata', 'Elastic', 'Provisioned', 'Bursting', 'S3 Files'];

/** The cost columns in a table: the figures right, the phrases left. */
export const COST_TABLE_COLUMNS: TableColumn[] = COST_COLUMNS.map((header, i) => ({ header, align: i < 2 ? 'right' : 'left' }));

/** The prices results' costs are at, each named once. */
export function pricesOf(results: ProbeResult[]): string {
  const labels = results.flatMap((r) => [r.pricing ?? 'no prices (an older result)', ...(r.s3FilesPricing ? [r.s3FilesPricing] : [])]);
  return [...new Set(labels)].join(' and ');
}

/** A run's label with what it probed, where the result says: `elastic (EFS)`, `bucket (S3 Files)`. */
export function runLabel(result: ProbeResult): string {
  if (result.fileSystemKind === undefined) return result.label;
  return `${result.label} (${result.fileSystemKind === 's3-files' ? 'S3 Files' : 'EFS'})`;
}

/** Both runs' cost per scenario, a row each: price next to speed. */
export function renderCostTable(a: ProbeResult, b: ProbeResult, layout: TextLayout): string {
  const scenarios = [...new Set([...a.scenarios, ...b.scenarios].map((s) => s.scenario))];
  const rows = scenarios.flatMap((scenario) => [a, b].flatMap((run) => {
    const result = run.scenarios.find((s) => s.scenario === scenario);
    return result ? [[scenario, runLabel(run), ...costCells(result.cost)]] : [];
  }));
  const columns: TableColumn[] = [{ header: 'scenario', align: 'left' }, { header: 'run', align: 'left' }, ...COST_TABLE_COLUMNS];
  return [...paragraph(`Cost of the timed operations, at ${pricesOf([a, b])}; a month is the measured rate kept up for 730 hours. `
    + 'S3 Files is priced as if every read came from its high-performance storage (large reads of synchronized data, 1 MiB or more by the S3 User Guide\'s metering page, 128 KiB by its performance page, stream from the bucket at S3 GET prices instead), '
    + 'with the export of each written byte to the bucket as a read:', layout),
  '', ...renderTable(columns, rows, layout)].join('\n');
}
