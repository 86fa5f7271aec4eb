import type { ProbeResult } from '../../lambda/probe/result';
import { checkLines } from './check-lines';
import { COST_COLUMNS, costCells, figure as f, throughputOf } from './compare-table';

/** One probe run as markdown: the mount checks, one line each, then a table per scenario (latency percentiles, throughput, errors) and its findings. */
export function renderResultTables(result: ProbeResult): string {
  const out: string[] = [];
  if (result.mountChecks?.length) out.push(`## mount of ${result.target}`, '', ...checkLines(result.mountChecks), '');
  for (const s of result.scenarios) {
    out.push(`## ${s.scenario}${s.failure ? ` (FAILED: ${s.failure})` : ''}`, '', `Reproduces ${s.reproduces}.`, '');
    out.push('| operation | count | p50 ms | p90 ms | p99 ms | max ms | throughput | errors |', '|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const o of s.summary) {
      const t = throughputOf(o);
      const spread = o.latencyMs.p50.max > o.latencyMs.p50.min ? ` (${f(o.latencyMs.p50.min)}-${f(o.latencyMs.p50.max)})` : '';
      out.push(`| ${o.operation} | ${o.count} | ${f(o.latencyMs.p50.mean)}${spread} | ${f(o.latencyMs.p90.mean)} | ${f(o.latencyMs.p99.mean)} | ${f(o.latencyMs.max.mean)} | ${f(t.value)} ${t.unit} | ${o.errors} |`);
    }
    const cost = costCells(s.cost);
    out.push(`- cost at ${result.pricing}: ${COST_COLUMNS.map((c, i) => `${c} ${cost[i]}`).join('; ')}`);
    for (const [key, value] of Object.entries(s.findings)) out.push(`- ${key}: ${value}`);
    for (const message of s.errorMessages) out.push(`- error: ${message}`);
    out.push('');
  }
  return out.join('\n');
}
