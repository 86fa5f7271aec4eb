/**
 * The seed's writer pool bounds, shared by the engine and the CLI (so this module imports nothing:
 * the CLI reads it to size libuv's thread pool before anything else loads).
 */
export const DEFAULT_CONCURRENCY = 64;
export const MAX_CONCURRENCY = 1024;
