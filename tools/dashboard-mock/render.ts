import { evaluate, Series } from '../../test/helpers/metric-math';
import { aggregate, MadeUpDay, MINUTES } from './day';

/**
 * A static HTML mock of a CloudWatch dashboard body: its widgets at their places on the 24-column
 * grid, text widgets' markdown, and each graph's lines, computed by evaluating the body's own
 * metric math over a made-up day (efs-traffic.ts, s3-files-traffic.ts). CloudWatch's renderer
 * cannot run offline; this is what the docs' screenshots are taken of.
 */

interface Options { id?: string; expression?: string; label?: string; period?: number; stat?: string; visible?: boolean; yAxis?: 'left' | 'right' }
export type Row = Array<string | Options>;
export interface Widget {
  type: string; x: number; y: number; width: number; height: number;
  properties: {
    markdown?: string; title?: string; stacked?: boolean; metrics?: Row[];
    yAxis?: { left?: { label?: string; min?: number; max?: number }; right?: { label?: string } };
    annotations?: { horizontal?: Array<{ value: number; label?: string }> };
  };
}

/** A drawn line: its label and values, or a band between two series; on the right axis where the widget says so. */
export interface Line { label: string; values: Series; band?: Series; right?: boolean }

const COLUMN = 46;
const ROW = 34;
const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];
const DEFAULT_PERIOD = 300;

/** The board's height in pixels, without the caption. */
export function boardHeight(widgets: Widget[]): number {
  return Math.max(...widgets.map((w) => w.y + w.height)) * ROW;
}

export function dashboardHtml(widgets: Widget[], caption: string, day: MadeUpDay): string {
  const height = boardHeight(widgets);
  return `<!doctype html><html><head><meta charset="utf-8"><style>
body { margin: 0; background: #f2f3f3; font: 12px "Amazon Ember", Arial, Helvetica, sans-serif; color: #16191f; }
.board { position: relative; width: ${24 * COLUMN}px; height: ${height}px; margin: 8px; }
.w { position: absolute; box-sizing: border-box; background: #fff; border: 1px solid #d5dbdb; padding: 6px 8px; overflow: hidden; }
.w h1 { font-size: 18px; margin: 0 0 4px; } .w p { margin: 0; line-height: 1.35; }
.note::after { content: ''; position: absolute; left: 0; right: 0; bottom: 0; height: 12px; background: linear-gradient(rgba(255,255,255,0), #fff); }
.t { font-weight: bold; font-size: 12px; margin-bottom: 2px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
code { background: #f2f3f3; padding: 0 2px; }
.legend { font-size: 10px; line-height: 1.3; } .legend span { white-space: nowrap; margin-right: 8px; }
.legend i { display: inline-block; width: 8px; height: 8px; margin-right: 3px; }
.caption { margin: 0 8px 8px; font-size: 11px; color: #545b64; }
</style></head><body><div class="board">${widgets.map((w) => widgetHtml(w, day)).join('')}</div><p class="caption">${escape(caption)}</p></body></html>`;
}

function widgetHtml(w: Widget, day: MadeUpDay): string {
  const style = `left:${w.x * COLUMN}px;top:${w.y * ROW}px;width:${w.width * COLUMN - 4}px;height:${w.height * ROW - 4}px`;
  // A note longer than its widget fades out at the bottom (CloudWatch would scroll it).
  if (w.type === 'text') return `<div class="w note" style="${style}">${markdown(w.properties.markdown ?? '')}</div>`;
  const lines = linesOf(w.properties.metrics ?? [], day);
  return `<div class="w" style="${style}"><div class="t">${escape(w.properties.title ?? '')}</div>`
    + chart(lines, w, w.width * COLUMN - 22, w.height * ROW - 88)
    + `<div class="legend">${lines.map((l, i) => `<span><i style="background:${l.band ? '#c9c9c9' : PALETTE[i % PALETTE.length]}"></i>${escape(l.label)}</span>`).join('')}</div></div>`;
}

/** Every visible line of a widget: its metrics over the day, at their periods, and its expressions evaluated on them. */
export function linesOf(rows: Row[], day: MadeUpDay): Line[] {
  const series: Record<string, Series> = {};
  const periods: Record<string, number> = {};
  const lines: Line[] = [];
  for (const row of rows) {
    const options = row[row.length - 1] as Options;
    if (options.expression) continue;
    const [namespace, name, ...rest] = row.slice(0, -1) as string[];
    const dimensions: Record<string, string> = {};
    for (let i = 0; i < rest.length; i += 2) dimensions[rest[i]] = rest[i + 1];
    const stat = options.stat ?? 'Average';
    const period = options.period ?? DEFAULT_PERIOD;
    const minutes = day.minuteValues(namespace, name, dimensions, stat);
    const values = minutes ? aggregate(minutes, stat, period) : Array((MINUTES * 60) / period).fill(NaN);
    if (options.id) { series[options.id] = values; periods[options.id] = period; }
    if (options.visible !== false) lines.push({ label: options.label ?? name, values, right: options.yAxis === 'right' });
  }
  for (const row of rows) {
    const options = row[0] as Options;
    if (!options.expression || options.visible === false) continue;
    const period = options.period ?? DEFAULT_PERIOD;
    const length = (MINUTES * 60) / period;
    const missing = () => Array(length).fill(NaN);
    const band = /^ANOMALY_DETECTION_BAND\((\w+), ?([\d.]+)\)$/.exec(options.expression);
    if (band) {
      const { lower, upper } = day.anomalyBand?.(periods[band[1]], Number(band[2])) ?? { lower: missing(), upper: missing() };
      lines.push({ label: options.label ?? 'band', values: lower, band: upper });
    } else if (options.expression.startsWith('SEARCH(')) {
      lines.push({ label: options.label ?? options.expression, values: day.search?.(options.expression, period) ?? missing() });
    } else {
      lines.push({ label: options.label ?? options.expression, values: evaluate(options.expression, { series, periods }, length) });
    }
  }
  return lines;
}

/** An SVG time series chart of `lines` (stacked when the widget says so), with the widget's axis and annotations. */
function chart(lines: Line[], w: Widget, width: number, height: number): string {
  const left = 44;
  const plotHeight = height - 16;
  const stacked = w.properties.stacked === true;
  // A series of one datapoint (a daily metric, over the day) is drawn across the day, not as a dot at 00:00.
  const across = (s: Series) => (s.length === 1 ? [s[0], s[0]] : s);
  const drawn = stackedLines(lines.map((l) => ({ ...l, values: across(l.values), band: l.band && across(l.band) })), stacked);
  const annotations = w.properties.annotations?.horizontal ?? [];
  const finite = (s: Series) => s.filter(Number.isFinite);
  const highestOf = (side: Array<Line & { base?: Series }>) => Math.max(0, ...side.flatMap((l) => [...finite(l.values), ...finite(l.band ?? [])]));
  // A graph of zeros (no failures all day) gets the axis 0 to 1, not five ticks all reading 0.
  const topOf = (highest: number) => (highest > 0 ? niceCeiling(highest) : 1);
  const top = w.properties.yAxis?.left?.max ?? topOf(Math.max(highestOf(drawn.filter((l) => !l.right)), ...annotations.map((a) => a.value)));
  const hasRight = drawn.some((l) => l.right);
  const rightTop = topOf(highestOf(drawn.filter((l) => l.right)));
  const plotRight = hasRight ? width - 36 : width;
  const x = (i: number, n: number) => left + (n <= 1 ? 0 : (i / (n - 1)) * (plotRight - left));
  const pad = 6; // room for the top tick's label
  const yOn = (axisTop: number) => (v: number) => pad + (plotHeight - pad) * (1 - Math.min(v, axisTop) / axisTop);
  const y = yOn(top);
  const path = (values: Series, yOf: (v: number) => number) => values.map((v, i) => (Number.isFinite(v) ? `${x(i, values.length).toFixed(1)},${yOf(v).toFixed(1)}` : '')).filter(Boolean).join(' ');
  const parts: string[] = [];
  for (let t = 0; t <= 4; t++) {
    const v = (top * t) / 4;
    parts.push(`<line x1="${left}" x2="${plotRight}" y1="${y(v)}" y2="${y(v)}" stroke="#eaeded"/><text x="${left - 4}" y="${y(v) + 3}" text-anchor="end" font-size="9" fill="#545b64">${axisNumber(v)}</text>`);
    if (hasRight) parts.push(`<text x="${plotRight + 4}" y="${y(v) + 3}" font-size="9" fill="#545b64">${axisNumber((rightTop * t) / 4)}</text>`);
  }
  for (const hour of [0, 6, 12, 18]) {
    parts.push(`<text x="${left + (hour / 24) * (plotRight - left)}" y="${height - 2}" font-size="9" fill="#545b64">${String(hour).padStart(2, '0')}:00</text>`);
  }
  drawn.forEach((l, i) => {
    const color = PALETTE[i % PALETTE.length];
    const yOf = l.right ? yOn(rightTop) : y;
    if (l.band) {
      const outline = [...l.band.map((v, j) => `${x(j, l.band!.length)},${y(v)}`), ...l.values.map((v, j) => `${x(j, l.values.length)},${y(v)}`).reverse()];
      parts.push(`<polygon points="${outline.join(' ')}" fill="#c9c9c9" fill-opacity="0.6"/>`);
    } else if (stacked) {
      const base = l.base ?? l.values.map(() => 0);
      const outline = [...l.values.map((v, j) => `${x(j, l.values.length)},${y(v)}`), ...base.map((v, j) => `${x(j, base.length)},${y(v)}`).reverse()];
      parts.push(`<polygon points="${outline.join(' ')}" fill="${color}" fill-opacity="0.35"/><polyline points="${path(l.values, yOf)}" fill="none" stroke="${color}" stroke-width="1.2"/>`);
    } else {
      parts.push(`<polyline points="${path(l.values, yOf)}" fill="none" stroke="${color}" stroke-width="1.4"/>`);
    }
  });
  for (const a of annotations) {
    parts.push(`<line x1="${left}" x2="${plotRight}" y1="${y(a.value)}" y2="${y(a.value)}" stroke="#d62728" stroke-dasharray="4 3"/>`
      + `<text x="${plotRight - 2}" y="${y(a.value) - 3}" text-anchor="end" font-size="9" fill="#d62728">${escape(a.label ?? '')} ${axisNumber(a.value)}</text>`);
  }
  const label = w.properties.yAxis?.left?.label ?? '';
  parts.push(`<text x="0" y="${plotHeight / 2}" font-size="9" fill="#545b64" transform="rotate(-90 8 ${plotHeight / 2})" text-anchor="middle">${escape(label)}</text>`);
  if (hasRight) {
    const rightLabel = w.properties.yAxis?.right?.label ?? '';
    parts.push(`<text x="${width - 2}" y="${plotHeight / 2}" font-size="9" fill="#545b64" transform="rotate(90 ${width - 6} ${plotHeight / 2})" text-anchor="middle">${escape(rightLabel)}</text>`);
  }
  return `<svg width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${parts.join('')}</svg>`;
}

function stackedLines(lines: Line[], stacked: boolean): Array<Line & { base?: Series }> {
  if (!stacked) return lines;
  let base: Series | undefined;
  return lines.map((l) => {
    const values = l.values.map((v, i) => (Number.isFinite(v) ? v : 0) + (base?.[i] ?? 0));
    const line = { ...l, values, base };
    base = values;
    return line;
  });
}

function niceCeiling(v: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((c) => c >= v)!;
}

function axisNumber(v: number): string {
  if (v >= 1e9) return `${+(v / 1e9).toFixed(1)}G`;
  if (v >= 1e6) return `${+(v / 1e6).toFixed(1)}M`;
  if (v >= 1e3) return `${+(v / 1e3).toFixed(1)}k`;
  return `${+v.toFixed(2)}`;
}

/** The markdown CloudWatch text widgets here use: headings, bold, code. */
function markdown(text: string): string {
  return text.split('\n').map((line) => {
    const inline = escape(line.replace(/^# /, '')).replace(/\*\*(.+?)\*\*/g, '<b>$1</b>').replace(/`(.+?)`/g, '<code>$1</code>');
    return line.startsWith('# ') ? `<h1>${inline}</h1>` : `<p>${inline}</p>`;
  }).join('');
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
