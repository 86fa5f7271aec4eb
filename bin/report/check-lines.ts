import type { CheckResult } from '../../lambda/shared/mount-checks/check-result';

const LABEL: Record<CheckResult['status'], string> = { pass: 'pass', warn: 'WARN', fail: 'FAIL', skip: 'skip' };

/** One line per check, as the doctor and the probe print them: status, id, what was found, and for a warning or failure the fix. */
export function checkLines(checks: CheckResult[]): string[] {
  const width = Math.max(0, ...checks.map((c) => c.id.length));
  return checks.map((c) => `${LABEL[c.status]}  ${c.id.padEnd(width)}  ${c.detail}${c.fix ? ` -> fix: ${c.fix}` : ''}`);
}
