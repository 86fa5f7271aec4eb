// How many copy worker threads a seed function runs: the construct sizes the function and tells
// the handler through its environment. Imports nothing.

/**
 * Copy worker threads for a seed with `vcpus` vCPUs: one per vCPU beyond the first, which the
 * copy's main thread keeps (the walk, the scheduling, the directories); none below 3 vCPUs, where
 * measured on 2 vCPUs the main thread alone copied fastest (see bench/RESULTS.md).
 */
export function copyWorkersFor(vcpus: number): number {
  return vcpus >= 3 ? vcpus - 1 : 0;
}

/** The environment variable that tells a seed handler how many copy workers to run. */
export const SEED_WORKERS_ENV = 'SEED_WORKERS';
