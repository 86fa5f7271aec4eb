/**
 * Lambda allots CPU in proportion to memory: the equivalent of one vCPU at 1,769 MB, up to six at
 * the most a function may have, 10,240 MB. Shared by the constructs (sizing functions) and the
 * handlers (how many threads to run). Imports nothing.
 */
export const LAMBDA_MIB_PER_VCPU = 1769;
export const LAMBDA_MAX_MEMORY_MIB = 10240;
export const LAMBDA_MAX_VCPUS = 6;

/**
 * Copy worker threads for a seed with `vcpus` vCPUs: one per vCPU beyond the first, which the
 * engine's own thread keeps (the walk, the scheduling, the directories); none below 3 vCPUs, where
 * measured on 2 vCPUs the engine's thread alone copied fastest (see bench/RESULTS.md).
 */
export function copyWorkersFor(vcpus: number): number {
  return vcpus >= 3 ? vcpus - 1 : 0;
}

/** The environment variable that tells a seed handler how many copy workers to run. */
export const SEED_WORKERS_ENV = 'SEED_WORKERS';
