/**
 * The probe's defaults that its handler, its construct and the CLI share (so this module imports
 * nothing): what a run may move, and the libuv threads its parallel scenarios need.
 */
export const DEFAULT_MAX_BYTES = 8 * 1024 ** 3;

/**
 * UV_THREADPOOL_SIZE for the probe: every file call blocks a libuv thread for its round trip, and
 * create-files runs 128 at once by default.
 */
export const PROBE_THREAD_POOL_SIZE = 256;
