/**
 * The canaries' requests, as the construct schedules them and the handler runs them for
 * `"scenarios": "canary"`: a ProbeRequest's shape (a contract imports no construct module).
 */
export interface CanaryRequest {
  readonly label: string;
  readonly rounds: number;
  readonly scenarios: { readonly [scenario: string]: { readonly [parameter: string]: number | number[] } };
}

/**
 * The light request a scheduled probe runs every few minutes: a few seconds of small writes,
 * creates and metadata calls, enough to track the latency applications feel (p50/p99) without
 * becoming load. 1.25 MiB and about 500 round trips per run, by the scenarios' plans.
 */
export const CANARY_REQUEST: CanaryRequest = {
  label: 'canary',
  rounds: 1,
  scenarios: {
    'write-sizes': { files: 5, sizesBytes: [1024, 256 * 1024] },
    'create-files': { files: 64, threads: 16, directories: 16 },
    'metadata': { files: 32, listings: 5 },
  },
};

/**
 * The canary on S3 Files: the same small operations, and what only S3 Files has, kept light: a new
 * bucket prefix of 20 small objects appearing and imported, 2 reads on each side of the direct-read
 * threshold, and 3 files' way to the bucket (about a minute's wait, the write-back window).
 */
export const S3_FILES_CANARY_REQUEST: CanaryRequest = {
  ...CANARY_REQUEST,
  scenarios: {
    ...CANARY_REQUEST.scenarios,
    'import': { files: 20 },
    'direct-read': { files: 2, largeBytes: 1024 * 1024 },
    'export-lag': { files: 3, spacingMs: 1000 },
  },
};

