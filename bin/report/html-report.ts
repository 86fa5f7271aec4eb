import type { OperationSummary, ProbeResult, ScenarioResult } from '../../lambda/probe/result';
import type { Spread } from '../../lambda/probe/stats';
import { operationsAcross, throughputOf } from './compare-table';

/**
 * One self-contained HTML page comparing probe results (e.g. an Elastic and a Bursting file
 * system): per scenario its source figure, parameters, findings, inline SVG charts and a table.
 * The page loads nothing (its Content-Security-Policy forbids it), so it can be mailed or archived.
 */
export function renderHtmlReport(results: ProbeResult[]): string {
  if (results.length === 0) throw new Error('renderHtmlReport: results is empty; give at least one probe result');
  const labels = results.map((r) => r.label);
  const title = `EFS probe report: ${labels.join(' vs ')}`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${escapeHtml(title)}</title>
<style>${PAGE_CSS}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${runsTable(results)}
${scenarioNames(results).map((name) => scenarioSection(name, results)).join('\n')}
</body>
</html>
`;
}

const PAGE_CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; max-width: 1100px; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f3f3f3; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 6px; }
.failure { color: #a00; }
svg.chart { display: block; margin: 8px 0 16px; }
svg.chart text { font: 12px system-ui, sans-serif; fill: #222; }
svg.chart .title { font-weight: bold; }
`;

/** One colour per result, distinguishable with common colour blindness. */
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#9c755f'];
const colourOf = (index: number) => PALETTE[index % PALETTE.length];

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Safe in text and in quoted attribute values. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/** Three significant digits, thousands grouped: enough to compare runs, short enough for a chart. */
function formatNumber(value: number): string {
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  return String(Number(value.toPrecision(3)));
}

function runsTable(results: ProbeResult[]): string {
  const rows = results.map((r, i) => `<tr><td><span class="swatch" style="background:${colourOf(i)}"></span>${escapeHtml(r.label)}</td>`
    + [r.status, r.fileSystemId ?? '', r.target, r.startedAt].map((v) => `<td>${escapeHtml(v)}</td>`).join('')
    + [r.rounds, r.seconds, r.calibration?.roundTripMs].map(numberCell).join('') + '</tr>');
  return `<table class="runs"><thead><tr><th>Run</th><th>Status</th><th>File system</th><th>Target</th><th>Started</th>`
    + `<th>Rounds</th><th>Seconds</th><th>Round trip ms</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const numberCell = (value: number | undefined) => `<td class="num">${value === undefined ? '—' : formatNumber(value)}</td>`;

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
</section>`;
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

/** A result's figure for one row of a chart, with the range it took over the rounds. */
interface Bar {
  readonly value: number;
  readonly low: number;
  readonly high: number;
}

const barOf = (s: Spread, divisor = 1): Bar => ({ value: s.mean / divisor, low: s.min / divisor, high: s.max / divisor });

interface BarChart {
  readonly scenario: string;
  readonly title: string;
  readonly unit: string;
  /** One name per result; bars[i] of every row belongs to series[i]. */
  readonly series: string[];
  readonly rows: Array<{ readonly label: string; readonly bars: Array<Bar | undefined> }>;
}

const LAYOUT = { width: 760, top: 56, barHeight: 14, barGap: 2, rowGap: 10, axisHeight: 34, charWidth: 7.2, valueRoom: 64 };

/** A grouped horizontal bar chart: one group per row, one bar per series, a shared linear axis. Empty when there are no rows. */
function barChart(chart: BarChart): string {
  if (chart.rows.length === 0) return '';
  const { width, top, barHeight, barGap, rowGap, axisHeight, charWidth, valueRoom } = LAYOUT;
  // Room for the longest row label, capped so the plot keeps most of the width (a longer label is cut).
  const left = Math.min(320, Math.ceil(Math.max(...chart.rows.map((r) => r.label.length)) * charWidth) + 16);
  const plotWidth = width - left - valueRoom;
  const rowHeight = chart.series.length * (barHeight + barGap) - barGap;
  const plotHeight = chart.rows.length * (rowHeight + rowGap);
  const height = top + plotHeight + axisHeight;
  const bars = chart.rows.flatMap((r) => r.bars).filter((b): b is Bar => b !== undefined);
  const ticks = niceTicks(Math.max(0, ...bars.map((b) => Math.max(b.value, b.high))));
  const x = (value: number) => round(left + (value / ticks[ticks.length - 1]) * plotWidth);
  const grid = ticks.map((t) => `<line x1="${x(t)}" x2="${x(t)}" y1="${top}" y2="${top + plotHeight}" stroke="#ddd"></line>`
    + `<text x="${x(t)}" y="${top + plotHeight + 14}" text-anchor="middle">${formatNumber(t)}</text>`);
  const rows = chart.rows.map((row, r) => {
    const rowTop = top + r * (rowHeight + rowGap) + rowGap / 2;
    const label = `<text x="${left - 8}" y="${rowTop + rowHeight / 2 + 4}" text-anchor="end">${escapeHtml(row.label)}</text>`;
    return label + row.bars.map((bar, i) => drawBar(bar, rowTop + i * (barHeight + barGap), colourOf(i), chart.series[i], chart.unit, x)).join('');
  });
  const aria = `${chart.title} for ${chart.series.join(', ')}: ${chart.rows.map((r) => r.label).join(', ')}`;
  return `<svg class="chart" data-scenario="${escapeHtml(chart.scenario)}" role="img" aria-label="${escapeHtml(aria)}" `
    + `width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
<text class="title" x="10" y="18">${escapeHtml(chart.title)}</text>
${legend(chart.series)}
${grid.join('')}
${rows.join('\n')}
<line x1="${left}" x2="${left}" y1="${top}" y2="${top + plotHeight}" stroke="#888"></line>
<text x="${left + plotWidth / 2}" y="${top + plotHeight + 30}" text-anchor="middle">${escapeHtml(chart.unit)}</text>
</svg>`;
}

/** A colour swatch and name per series, in a line under the title. */
function legend(series: string[]): string {
  let x = 10;
  return series.map((name, i) => {
    const item = `<rect x="${round(x)}" y="30" width="12" height="12" fill="${colourOf(i)}"></rect><text x="${round(x + 16)}" y="40">${escapeHtml(name)}</text>`;
    x += 16 + name.length * LAYOUT.charWidth + 18;
    return item;
  }).join('');
}

/** Coordinates to a tenth of a pixel keep the markup short. */
const round = (n: number) => Math.round(n * 10) / 10;

/** One bar with its min–max whisker and its value; a note where the result has no figure. */
function drawBar(bar: Bar | undefined, y: number, colour: string, series: string, unit: string, x: (v: number) => number): string {
  const { barHeight } = LAYOUT;
  const start = x(0);
  const middle = y + barHeight / 2;
  if (bar === undefined) return `<text x="${start + 4}" y="${middle + 4}" fill="#888">no data</text>`;
  // A tiny non-zero figure still gets a visible sliver, so "small" never reads as "missing".
  const width = bar.value > 0 ? round(Math.max(1, x(bar.value) - start)) : 0;
  const tip = `${series}: ${formatNumber(bar.value)} ${unit} (min ${formatNumber(bar.low)}, max ${formatNumber(bar.high)})`;
  const whisker = bar.high > bar.low
    ? `<path d="M${x(bar.low)} ${middle}H${x(bar.high)}M${x(bar.low)} ${middle - 4}v8M${x(bar.high)} ${middle - 4}v8" stroke="#333"></path>`
    : '';
  return `<rect x="${start}" y="${y}" width="${width}" height="${barHeight}" fill="${colour}"><title>${escapeHtml(tip)}</title></rect>${whisker}`
    + `<text x="${Math.max(start + width, x(bar.high)) + 6}" y="${middle + 4}">${formatNumber(bar.value)}</text>`;
}

/** Axis ticks from 0 in steps of 1, 2 or 5 times a power of ten, the last at or above `max`. */
function niceTicks(max: number): number[] {
  if (max <= 0) return [0, 1];
  const rough = max / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
  return Array.from({ length: Math.ceil(max / step - 1e-9) + 1 }, (_, i) => i * step);
}
