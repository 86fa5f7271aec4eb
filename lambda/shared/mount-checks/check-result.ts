/** What one check found, as the doctor prints it and the readiness gate logs it. */
export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  /** A stable id, e.g. `dns-file-system`, `tcp-2049`; several results may share one (one per mount target). */
  readonly id: string;
  readonly status: CheckStatus;
  /** What was checked and what was found, in one line. */
  readonly detail: string;
  /** What to change, for warn and fail. */
  readonly fix?: string;
}

export const pass = (id: string, detail: string): CheckResult => ({ id, status: 'pass', detail });
export const warn = (id: string, detail: string, fix: string): CheckResult => ({ id, status: 'warn', detail, fix });
export const fail = (id: string, detail: string, fix: string): CheckResult => ({ id, status: 'fail', detail, fix });
export const skip = (id: string, detail: string): CheckResult => ({ id, status: 'skip', detail });
