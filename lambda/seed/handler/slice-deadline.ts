/** Stop starting files this long before the function times out: in-flight writes must finish. */
export const SAFETY_MARGIN_MS = 60_000;

/**
 * When one invocation's slice of work stops starting files (ms since the epoch): the safety margin
 * before the function's own timeout, or the whole run's deadline if that comes first.
 */
export function sliceDeadline(remainingMs: number, runDeadline = Infinity): number {
  return Math.min(Date.now() + remainingMs - SAFETY_MARGIN_MS, runDeadline);
}
