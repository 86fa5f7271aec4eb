import { checkLines } from '../report/check-lines';
import { paragraph, TextLayout } from '../report/text-layout';
import type { DoctorReport } from './run-doctor';

/** The checks (see checkLines), then a summary. */
export function renderDoctorReport(report: DoctorReport, layout: TextLayout): string {
  const { pass, warn, fail, skip } = report.counts;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const summary = `${report.fileSystemId} (${report.region ?? 'no Region given'}): ${pass} passed, ${plural(warn, 'warning')}, ${fail} failed, ${skip} skipped, in ${report.seconds.toFixed(1)} s`;
  return [...checkLines(report.checks, layout), ...(layout.markdown ? [''] : []), ...paragraph(summary, layout, '', '  ')].join('\n');
}
