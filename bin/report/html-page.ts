/**
 * The shell of the self-contained HTML reports (the probe's, advise's): one page that loads nothing
 * (its Content-Security-Policy forbids it), so it can be mailed or archived.
 */
export function htmlPage(title: string, body: string): string {
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
${body}
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

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Safe in text and in quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/** Three significant digits, thousands grouped: enough to compare runs, short enough for a chart. */
export function formatNumber(value: number): string {
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  return String(Number(value.toPrecision(3)));
}

/** A right-aligned number, or a dash where there is none. */
export const numberCell = (value: number | undefined) => `<td class="num">${value === undefined ? '—' : formatNumber(value)}</td>`;
