import * as fs from 'fs';
import { Command } from 'commander';
import type { ProbeResult } from '../../lambda/probe/result';
import { renderCompareTable, renderCostTable } from '../report/compare-table';

/** `cdk-efs-kit compare a.json b.json`: two probe runs side by side, as seed 004 compared Elastic and Bursting. */
export function register(program: Command): void {
  program.command('compare')
    .description('compare two probe results (from `probe --json` or the probe Lambda): p50, p99 and throughput side by side, with the difference in %, then what each scenario cost under each throughput mode')
    .argument('<a>', 'the first result (JSON)')
    .argument('<b>', 'the second result (JSON)')
    .option('--html <file>', 'also write a self-contained HTML report with both runs on the same charts')
    .action(async (a: string, b: string, opts: { html?: string }) => {
      const [ra, rb] = [readResult(a), readResult(b)];
      console.log(`${renderCompareTable(ra, rb)}\n\n${renderCostTable(ra, rb)}`);
      if (opts.html) fs.writeFileSync(opts.html, (await import('../report/html-report')).renderHtmlReport([ra, rb]));
    });
}

function readResult(file: string): ProbeResult {
  let parsed: Partial<ProbeResult>;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`);
  }
  if (!Array.isArray(parsed.scenarios)) throw new Error(`${file} is not a probe result (no scenarios); was the request refused? status: ${parsed.status ?? 'none'}`);
  return parsed as ProbeResult;
}
