import type { CheckResult } from '../../lambda/shared/mount-checks/check-result';
import { paragraph, TextLayout } from './text-layout';
import { renderTable } from './text-table';

const LABEL: Record<CheckResult['status'], string> = { pass: 'pass', warn: 'WARN', fail: 'FAIL', skip: 'skip' };

/**
 * The checks as the doctor and the probe print them. On a terminal one check a line (status, id,
 * what was found, and for a warning or failure the fix), wrapped under what was found; in
 * Markdown a table with the fix in a column of its own.
 */
export function checkLines(checks: CheckResult[], layout: TextLayout): string[] {
  if (layout.markdown) {
    const cell = (text: string) => text.replace(/\|/g, '\\|');
    return renderTable([{ header: 'status', align: 'left' }, { header: 'check', align: 'left' }, { header: 'found', align: 'left' }, { header: 'fix', align: 'left' }],
      checks.map((c) => [LABEL[c.status], c.id, cell(c.detail), cell(c.fix ?? '')]), layout);
  }
  const width = Math.max(0, ...checks.map((c) => c.id.length));
  // Under what was found where there is room for it, else under the id.
  const hanging = ' '.repeat(layout.width - (width + 8) >= 40 ? width + 8 : 6);
  return checks.flatMap((c) => paragraph(`${c.detail}${c.fix ? ` -> fix: ${c.fix}` : ''}`, layout, `${LABEL[c.status]}  ${c.id.padEnd(width)}  `, hanging));
}
