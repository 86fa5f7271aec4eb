import type { ProbeOperation, ProbeRequest } from './probe-request';

/**
 * The canary's small operations, which a web application or CMS pays per file it touches: the
 * slowest one's p99 is what the monitoring's latency alarm watches.
 */
export const CANARY_SMALL_OPERATIONS: ProbeOperation[] = [
  { scenario: 'metadata', operation: 'open-close' },
  { scenario: 'metadata', operation: 'stat' },
  { scenario: 'metadata', operation: 'create' },
  { scenario: 'write-sizes', operation: 'write-1KiB-file' },
];

/** The small operations among the scenarios `request` runs (all of them when it names none). */
export function smallOperationsOf(request: ProbeRequest): ProbeOperation[] {
  const names = request.scenarios && Object.keys(request.scenarios);
  return CANARY_SMALL_OPERATIONS.filter((o) => !names || names.includes(o.scenario));
}
