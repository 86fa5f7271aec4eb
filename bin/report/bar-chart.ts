import { escapeHtml, formatNumber } from './html-page';

/** One colour per result, distinguishable with common colour blindness. */
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#9c755f'];
export const colourOf = (index: number) => PALETTE[index % PALETTE.length];

/** A figure in a chart, with the range it took (over a probe's rounds, say); low = high draws no whisker. */
export interface Bar {
  readonly value: number;
  readonly low: number;
  readonly high: number;
}

export interface BarChart {
  /** Tags the chart (`data-scenario`) with the probe scenario it belongs to. */
  readonly scenario?: string;
  readonly title: string;
  readonly unit: string;
  /** One name per series (a probe result, a cost); bars[i] of every row belongs to series[i]. */
  readonly series: string[];
  readonly rows: Array<{ readonly label: string; readonly bars: Array<Bar | undefined> }>;
}

const LAYOUT = { width: 760, top: 56, barHeight: 14, barGap: 2, rowGap: 10, axisHeight: 34, charWidth: 7.2, valueRoom: 64 };

/** A grouped horizontal bar chart: one group per row, one bar per series, a shared linear axis. Empty when there are no rows. */
export function barChart(chart: BarChart): string {
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
  const tag = chart.scenario === undefined ? '' : `data-scenario="${escapeHtml(chart.scenario)}" `;
  return `<svg class="chart" ${tag}role="img" aria-label="${escapeHtml(aria)}" `
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
