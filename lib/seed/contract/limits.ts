/**
 * The seed's writer pool bounds, shared by the engine and the CLI (so this module imports nothing:
 * the CLI reads it to size libuv's thread pool before anything else loads).
 */
export const DEFAULT_CONCURRENCY = 64;
/** libuv runs at most this many threads, whatever UV_THREADPOOL_SIZE asks for. */
export const UV_THREADPOOL_MAX = 1024;
/** Each writer holds a libuv thread for its round trip: more writers than threads would only queue. */
export const MAX_CONCURRENCY = UV_THREADPOOL_MAX;
