/** A call slower than this did not come from memory; this many in a row mean the source is slow. */
const SLOW_CALL_NS = 1_000_000n;
const SLOW_CALLS_IN_A_ROW = 3;

/**
 * Runs a source's listings, stats and small reads synchronously while they take microseconds (the page cache,
 * tmpfs): handing each to libuv's thread pool costs tens of microseconds of the one JS thread once
 * the pool's 64+ threads are busy writing, and that thread is what limits a small-file copy. A few
 * slow calls in a row (a cold disk, a network mount; one alone may be the scheduler) move every later
 * call to the thread pool, so a slow source stalls the writers for a few milliseconds at most.
 */
export class WhileFast {
  private slowInARow = 0;

  /** Whether calls still run synchronously. */
  get fast(): boolean {
    return this.slowInARow < SLOW_CALLS_IN_A_ROW;
  }

  /** The synchronous call's value while calls are fast (no promise to settle), else the asynchronous call's promise. */
  run<T>(syncCall: () => T, asyncCall: () => Promise<T>): T | Promise<T> {
    if (!this.fast) return asyncCall();
    const started = process.hrtime.bigint();
    try {
      return syncCall();
    } finally {
      this.slowInARow = process.hrtime.bigint() - started > SLOW_CALL_NS ? this.slowInARow + 1 : 0;
    }
  }
}
