import * as fs from 'fs';
import * as path from 'path';
import { Command } from 'commander';
import type { ProbeResult } from '../../lambda/probe/result';
import { comparedFigures, directionOf, renderCompareTable, renderCostTable } from '../report/compare-table';
import { outputLayout } from '../report/text-layout';
import { jsonOption, markdownOption, OutputOptions } from '../output-options';

/** `cdk-efs-kit compare a.json b.json`: two probe runs side by side: the second (b) against the first (a), as a benchmark compares Bursting with Elastic. */
export function register(program: Command): void {
  program.command('compare')
    .description('compare two probe results (from `probe --json` or the probe Lambda): p50, p99 and throughput side by side, with b\'s difference from a in % ("b vs a"), then what each scenario cost under each throughput mode')
    .argument('<a>', 'the first result (JSON): the baseline')
    .argument('<b>', 'the second result (JSON), compared with a')
    .addOption(jsonOption('the figures compared (each with both runs\' values and the difference)'))
    .addOption(markdownOption())
    .option('--html <file>', 'also write a self-contained HTML report with both runs on the same charts')
    .action(async (a: string, b: string, opts: CompareCliOptions) => {
      const [ra, rb] = distinctLabels(readResult(a), readResult(b), a, b);
      if (opts.json) {
        console.log(JSON.stringify({ a: ra.label, b: rb.label, difference: directionOf(ra, rb), figures: comparedFigures(ra, rb) }, null, 2));
      } else {
        const layout = outputLayout(opts);
        console.log(`${renderCompareTable(ra, rb, layout)}\n\n${renderCostTable(ra, rb, layout)}`);
      }
      if (opts.html) fs.writeFileSync(opts.html, (await import('../report/html-report')).renderHtmlReport([ra, rb]));
    });
}

interface CompareCliOptions extends OutputOptions {
  html?: string;
}

/** Two runs both labelled 'probe' (the default) cannot be told apart by label: then by their files' names. */
function distinctLabels(ra: ProbeResult, rb: ProbeResult, a: string, b: string): [ProbeResult, ProbeResult] {
  if (ra.label !== rb.label) return [ra, rb];
  const [na, nb] = [a, b].map((file) => path.basename(file, '.json'));
  const [la, lb] = na === nb ? ['a', 'b'] : [na, nb];
  return [{ ...ra, label: la }, { ...rb, label: lb }];
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
