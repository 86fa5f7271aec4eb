import type { ProbeResult } from '../../lambda/probe/result';
import { checkLines } from './check-lines';
import { COST_COLUMNS, costCells, figure as f, pricesOf, throughputOf } from './compare-table';
import { paragraph, TextLayout } from './text-layout';
import { renderTable, TableColumn } from './text-table';

const COLUMNS: TableColumn[] = [
  { header: 'operation', align: 'left' },
  ...['count', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'throughput', 'errors'].map((header): TableColumn => ({ header, align: 'right' })),
];

/** One probe run: the mount checks, then per scenario a heading, a table (latency percentiles, throughput, errors), its cost and findings. */
export function renderResultTables(result: ProbeResult, layout: TextLayout): string {
  const heading = (title: string) => (layout.markdown ? [`## ${title}`, ''] : paragraph(title, layout, '== ', '   '));
  const out: string[] = [];
  if (result.mountChecks?.length) out.push(...heading(`mount of ${result.target}`), ...checkLines(result.mountChecks, layout), '');
  for (const s of result.scenarios) {
    out.push(...heading(`${s.scenario}${s.failure ? ` (FAILED: ${s.failure})` : ''}`), ...paragraph(`Reproduces ${s.reproduces}.`, layout), '');
    out.push(...renderTable(COLUMNS, s.summary.map((o) => {
      const t = throughputOf(o);
      const spread = o.latencyMs.p50.max > o.latencyMs.p50.min ? ` (${f(o.latencyMs.p50.min)}-${f(o.latencyMs.p50.max)})` : '';
      return [o.operation, String(o.count), `${f(o.latencyMs.p50.mean)}${spread}`, f(o.latencyMs.p90.mean), f(o.latencyMs.p99.mean), f(o.latencyMs.max.mean), `${f(t.value)} ${t.unit}`, String(o.errors)];
    }), layout));
    const cost = costCells(s.cost);
    const bullet = (text: string) => paragraph(text, layout, '- ', '  ');
    out.push(...bullet(`cost at ${pricesOf([result])}: ${COST_COLUMNS.map((c, i) => `${c} ${cost[i]}`).join('; ')}`));
    for (const [key, value] of Object.entries(s.findings)) out.push(...bullet(`${key}: ${value}`));
    for (const message of s.errorMessages) out.push(...bullet(`error: ${message}`));
    out.push('');
  }
  return out.join('\n');
}
