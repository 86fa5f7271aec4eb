import { execFileSync } from 'child_process';
import * as path from 'path';
import type { OperationSummary, ProbeResult } from '../lambda/probe/result';
import { COST_TABLE_COLUMNS, costCells, figure, operationsAcross, pricesOf } from '../bin/report/compare-table';
import { outputLayout, paragraph, TextLayout } from '../bin/report/text-layout';
import { renderTable, TableColumn } from '../bin/report/text-table';
import { withEfsSim } from '../tools/efs-sim/mount';

/**
 * A quick probe on efs-sim twice, with EFS General Purpose latencies and with none (the `local`
 * profile), printed as how many times slower each operation is on EFS, and what EFS would charge.
 */
const CLI = path.join(__dirname, '..', 'dist', 'bin', 'cdk-efs-kit.js');
const SETTINGS = ['--scenarios', 'write-sizes,create-files,metadata', '--set', 'write-sizes.files=5', '--set', 'write-sizes.sizesBytes=1KiB,1MiB',
  '--set', 'create-files.files=256', '--set', 'create-files.threads=32', '--set', 'create-files.directories=16', '--set', 'metadata.files=64'];

function probeOn(profile: string): ProbeResult {
  return withEfsSim({ profile }, (mount) =>
    JSON.parse(execFileSync(process.execPath, [CLI, 'probe', '--dir', mount, ...SETTINGS, '--label', profile, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })));
}

/** EFS-like ÷ local, as "12x slower"; where the local run was the slower one, a marked label instead of a ratio below 1. */
function slowdown(efs: number | undefined, local: number | undefined): { text: string; localSlower: boolean } {
  if (efs === undefined || local === undefined || local === 0) return { text: '-', localSlower: false };
  const ratio = efs / local;
  if (ratio < 1) return { text: 'local slower *', localSlower: true };
  return { text: `${ratio < 10 ? ratio.toFixed(1) : ratio.toFixed(0)}x slower`, localSlower: false };
}

/**
 * The two runs side by side: latency percentiles with EFS's slowdown, then throughput in MB/s and
 * ops/s in a table of its own (together they would not fit a terminal).
 */
export function renderSlowdownTable(efs: ProbeResult, local: ProbeResult, layout: TextLayout): string {
  const text = (line: string) => paragraph(line, layout);
  const ms = (v: number | undefined) => (v === undefined ? '-' : figure(v));
  const mbps = (o?: OperationSummary) => (o && o.bytesPerSecond.mean > 0 ? figure(o.bytesPerSecond.mean / 1e6) : '-');
  const opsps = (o?: OperationSummary) => (o ? figure(o.opsPerSecond.mean) : '-');
  let marked = false;
  const latency: string[][] = [];
  const throughput: string[][] = [];
  const scenarios = [...new Set([...efs.scenarios, ...local.scenarios].map((s) => s.scenario))];
  for (const scenario of scenarios) {
    const runs = [efs, local].map((r) => r.scenarios.find((s) => s.scenario === scenario));
    for (const { operation, summaries: [e, l] } of operationsAcross(runs)) {
      const [p50, p99] = [slowdown(e?.latencyMs.p50.mean, l?.latencyMs.p50.mean), slowdown(e?.latencyMs.p99.mean, l?.latencyMs.p99.mean)];
      marked ||= p50.localSlower || p99.localSlower;
      latency.push([scenario, operation, ms(e?.latencyMs.p50.mean), ms(l?.latencyMs.p50.mean), p50.text, ms(e?.latencyMs.p99.mean), ms(l?.latencyMs.p99.mean), p99.text]);
      throughput.push([scenario, operation, mbps(e), mbps(l), opsps(e), opsps(l)]);
    }
  }
  const named: TableColumn[] = [{ header: 'scenario', align: 'left' }, { header: 'operation', align: 'left' }];
  const figures = (...headers: string[]) => [...named, ...headers.map((header): TableColumn => ({ header, align: 'right' }))];
  const lines = [
    ...text('Each operation ran on efs-sim with EFS General Purpose latencies (EFS) and with none (local). p50 is the '
      + 'typical operation, p99 the slowest in a hundred; "x slower" is the EFS time divided by the local one.'),
    '',
    ...renderTable(figures('p50 ms EFS', 'p50 ms local', 'p50 on EFS', 'p99 ms EFS', 'p99 ms local', 'p99 on EFS'), latency, layout),
  ];
  if (marked) {
    lines.push('', ...paragraph('local slower: not an EFS effect. A few dozen operations make this percentile, so one pause of this machine '
      + '(another process, the scheduler) outweighs the emulated round trip; run it again and the figure changes.', layout, '* ', '  '));
  }
  lines.push('', ...text('Throughput: MB/s where an operation moves file data, ops/s for every operation.'), '',
    ...renderTable(figures('MB/s EFS', 'MB/s local', 'ops/s EFS', 'ops/s local'), throughput, layout));
  return lines.join('\n');
}

/** What EFS would charge for the EFS run's timed operations, per scenario (the local run meters the same bytes, faster). */
function renderEfsCost(efs: ProbeResult, layout: TextLayout): string {
  return [
    ...paragraph(`What the EFS run's timed operations would cost on EFS (${pricesOf([efs])}): the MiB EFS meters for them, `
      + 'Elastic\'s charge, Provisioned at the throughput the run reached (and that throughput for a month), and '
      + 'Bursting, which charges nothing but spends credits:', layout),
    '',
    ...renderTable([{ header: 'scenario', align: 'left' }, ...COST_TABLE_COLUMNS], efs.scenarios.map((s) => [s.scenario, ...costCells(s.cost)]), layout),
  ].join('\n');
}

export function runProbeDemo(): void {
  console.log('\n== Probing efs-sim with EFS General Purpose latencies and with none');
  const [efs, local] = ['efs-gp', 'local'].map(probeOn);
  const layout = outputLayout();
  console.log(`${renderSlowdownTable(efs, local, layout)}\n\n${renderEfsCost(efs, layout)}\n`);
  console.log(paragraph('Every create, open and small write pays a round trip on EFS: spread them over threads and directories (create-many-directories).', layout).join('\n'));
}
