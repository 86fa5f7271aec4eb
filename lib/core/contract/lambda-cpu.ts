/**
 * Lambda allots CPU in proportion to memory: the equivalent of one vCPU at 1,769 MB, up to six at
 * the most a function may have, 10,240 MB. Shared by the constructs (sizing functions) and the
 * handlers (how many threads to run). Imports nothing.
 */
export const LAMBDA_MIB_PER_VCPU = 1769;
export const LAMBDA_MAX_MEMORY_MIB = 10240;
export const LAMBDA_MAX_VCPUS = 6;
