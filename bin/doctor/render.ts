import type { CheckResult } from '../../lambda/shared/mount-checks/check-result';
import type { DoctorReport } from './run-doctor';

const LABEL: Record<CheckResult['status'], string> = { pass: 'pass', warn: 'WARN', fail: 'FAIL', skip: 'skip' };

/** One line per check (status, id, what was found, and for a warning or failure the fix), then a summary. */
export function renderDoctorReport(report: DoctorReport): string {
  const width = Math.max(...report.checks.map((c) => c.id.length));
  const lines = report.checks.map((c) => `${LABEL[c.status]}  ${c.id.padEnd(width)}  ${c.detail}${c.fix ? ` -> fix: ${c.fix}` : ''}`);
  const { pass, warn, fail, skip } = report.counts;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  lines.push(`${report.fileSystemId} (${report.region}): ${pass} passed, ${plural(warn, 'warning')}, ${fail} failed, ${skip} skipped, in ${report.seconds.toFixed(1)} s`);
  return lines.join('\n');
}
