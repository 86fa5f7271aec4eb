import { checkLines } from '../report/check-lines';
import type { DoctorReport } from './run-doctor';

/** One line per check (status, id, what was found, and for a warning or failure the fix), then a summary. */
export function renderDoctorReport(report: DoctorReport): string {
  const lines = checkLines(report.checks);
  const { pass, warn, fail, skip } = report.counts;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  lines.push(`${report.fileSystemId} (${report.region}): ${pass} passed, ${plural(warn, 'warning')}, ${fail} failed, ${skip} skipped, in ${report.seconds.toFixed(1)} s`);
  return lines.join('\n');
}
