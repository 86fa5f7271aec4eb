import type { OperationSummary, ProbeResult, ScenarioResult } from '../../lambda/probe/result';
import type { Spread } from '../../lambda/probe/stats';
import { Bar, barChart, colourOf } from './bar-chart';
import { COST_COLUMNS, costCells, operationsAcross, pricesOf, throughputOf } from './compare-table';
import { escapeHtml, htmlPage, numberCell } from './html-page';

/**
 * One self-contained HTML page comparing probe results (e.g. an Elastic and a Bursting file
 * system): per scenario its source figure, parameters, findings, inline SVG charts and a table.
 * The page loads nothing (its Content-Security-Policy forbids it), so it can be mailed or archived.
 */
export function renderHtmlReport(results: ProbeResult[]): string {
  if (results.length === 0) throw new Error('renderHtmlReport: results is empty; give at least one probe result');
  const labels = results.map((r) => r.label);
  return htmlPage(`EFS probe report: ${labels.join(' vs ')}`, `${runsTable(results)}
${scenarioNames(results).map((name) => scenarioSection(name, results)).join('\n')}`);
}

function runsTable(results: ProbeResult[]): string {
  const rows = results.map((r, i) => `<tr><td><span class="swatch" style="background:${colourOf(i)}"></span>${escapeHtml(r.label)}</td>`
    + [r.status, r.fileSystemId ?? '', r.target, r.startedAt].map((v) => `<td>${escapeHtml(v)}</td>`).join('')
    + [r.rounds, r.seconds, r.calibration?.roundTripMs].map(numberCell).join('') + '</tr>');
  return `<table class="runs"><thead><tr><th>Run</th><th>Status</th><th>File system</th><th>Target</th><th>Started</th>`
    + `<th>Rounds</th><th>Seconds</th><th>Round trip ms</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** Every scenario any result ran, in the order they first appear. */
function scenarioNames(results: ProbeResult[]): string[] {
  return [...new Set(results.flatMap((r) => r.scenarios.map((s) => s.scenario)))];
}

function scenarioSection(name: string, results: ProbeResult[]): string {
  const runs = results.map((r) => r.scenarios.find((s) => s.scenario === name));
  const labels = results.map((r) => r.label);
  const reproduces = runs.find((s) => s !== undefined)?.reproduces ?? '';
  const across = operationsAcross(runs);
  // Operations that move bytes are compared in MB/s, the rest in ops/s: one unit per axis.
  const movesBytes = ({ summaries }: (typeof across)[number]) => summaries.some((o) => o !== undefined && throughputOf(o).unit === 'MB/s');
  const charts = [
    barChart({
      scenario: name, title: 'Latency p50 and p99 in ms (mean over rounds, whisker min–max)', unit: 'ms', series: labels,
      rows: across.flatMap(({ operation, summaries }) => (['p50', 'p99'] as const).map((p) => ({
        label: `${operation} ${p}`, bars: summaries.map((o) => o && barOf(o.latencyMs[p])),
      }))),
    }),
    barChart({
      scenario: name, title: 'Throughput in MB/s (mean over rounds, whisker min–max)', unit: 'MB/s', series: labels,
      rows: across.filter(movesBytes).map(({ operation, summaries }) => ({ label: operation, bars: summaries.map((o) => o && barOf(o.bytesPerSecond, 1e6)) })),
    }),
    barChart({
      scenario: name, title: 'Operations per second (mean over rounds, whisker min–max)', unit: 'ops/s', series: labels,
      rows: across.filter((o) => !movesBytes(o)).map(({ operation, summaries }) => ({ label: operation, bars: summaries.map((o) => o && barOf(o.opsPerSecond)) })),
    }),
  ];
  return `<section>
<h2>${escapeHtml(name)}</h2>
<p>Reproduces: ${escapeHtml(reproduces)}</p>
${problems(runs, labels)}
<h3>Parameters</h3>
${keyValueTable(runs.map((s) => s?.params), labels)}
<h3>Findings</h3>
${keyValueTable(runs.map((s) => s?.findings), labels)}
${charts.join('\n')}
${summaryTable(across.map((o) => o.operation), across.map((o) => o.summaries), labels)}
${costTable(runs, results)}
</section>`;
}

/** What each run of the scenario metered and cost under each throughput mode, next to its seconds. */
function costTable(runs: Array<ScenarioResult | undefined>, results: ProbeResult[]): string {
  const rows = runs.map((s, i) => s && `<tr><th>${escapeHtml(results[i].label)}</th>${costCells(s.cost).map((c) => `<td class="num">${escapeHtml(c)}</td>`).join('')}</tr>`);
  return `<h3>Cost at ${escapeHtml(pricesOf(results))}</h3>
<table class="cost"><thead><tr><th>Run</th>${COST_COLUMNS.map((c) => `<th>${escapeHtml(c)}</th>`).join('')}</tr></thead><tbody>${rows.filter(Boolean).join('')}</tbody></table>`;
}

/** Failures and error messages, which make the figures next to them suspect. */
function problems(runs: Array<ScenarioResult | undefined>, labels: string[]): string {
  const lines = runs.flatMap((s, i) => [
    ...(s?.failure ? [`${labels[i]}: stopped early: ${s.failure}`] : []),
    ...(s?.errorMessages ?? []).map((m) => `${labels[i]}: ${m}`),
  ]);
  return lines.length === 0 ? '' : `<ul class="failure">${lines.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>`;
}

/** Rows are the keys any result has, columns the results: differences stand side by side. */
function keyValueTable(records: Array<Record<string, unknown> | undefined>, labels: string[]): string {
  const keys = [...new Set(records.flatMap((r) => Object.keys(r ?? {})))];
  if (keys.length === 0) return '<p>None.</p>';
  const cell = (value: unknown) => value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value);
  const rows = keys.map((k) => `<tr><th>${escapeHtml(k)}</th>${records.map((r) => `<td>${escapeHtml(cell(r?.[k]))}</td>`).join('')}</tr>`);
  return `<table><thead><tr><th></th>${labels.map((l) => `<th>${escapeHtml(l)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function summaryTable(operations: string[], summaries: Array<Array<OperationSummary | undefined>>, labels: string[]): string {
  const columns = ['p50 ms', 'p99 ms', 'ops/s', 'MB/s', 'errors'];
  const cells = (o: OperationSummary | undefined) => o === undefined
    ? columns.map(() => numberCell(undefined)).join('')
    : [o.latencyMs.p50.mean, o.latencyMs.p99.mean, o.opsPerSecond.mean].map(numberCell).join('')
      + numberCell(o.bytesPerSecond.mean > 0 ? o.bytesPerSecond.mean / 1e6 : undefined) + numberCell(o.errors);
  const rows = operations.map((op, i) => `<tr><th>${escapeHtml(op)}</th>${summaries[i].map(cells).join('')}</tr>`);
  return `<table class="summary"><thead>
<tr><th rowspan="2">Operation</th>${labels.map((l) => `<th colspan="${columns.length}">${escapeHtml(l)}</th>`).join('')}</tr>
<tr>${labels.map(() => columns.map((c) => `<th>${c}</th>`).join('')).join('')}</tr>
</thead><tbody>${rows.join('')}</tbody></table>`;
}

const barOf = (s: Spread, divisor = 1): Bar => ({ value: s.mean / divisor, low: s.min / divisor, high: s.max / divisor });
