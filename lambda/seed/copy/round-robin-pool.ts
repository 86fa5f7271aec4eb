/**
 * A bounded pool that runs jobs `concurrency` at a time, spread across directories: Linux holds a
 * directory's lock for the whole round trip of a create, so on EFS creates in one directory are
 * serial, and only working in many directories at once keeps the pool busy. Each ready directory
 * gets a job, oldest first, before any gets a second (a second would mostly wait on the lock); the rest
 * of the pool takes jobs round-robin. The oldest directories thus finish first, not all at the end.
 * A directory's jobs run only once it is prepared (created on the target). While jobs are ready,
 * preparing takes a few of the pool's slots at most (creates in one parent are serial anyway), so no
 * writer sits waiting for a mkdir; with none ready, any free slot prepares (on an unchanged re-run,
 * preparing is only looking).
 * `add` waits while too many jobs or bytes are queued (or held, see `hold`), which bounds memory for
 * streamed sources.
 */
export interface PoolLimits {
  readonly concurrency: number;
  /** Queued (not yet running) jobs at most. */
  readonly maxQueuedJobs: number;
  /** Bytes held by queued jobs at most (buffered archive members). */
  readonly maxQueuedBytes: number;
}

interface Queued<T> { readonly job: T; readonly bytes: number }

/** Directories prepared at once, at most. */
export const MAX_PREPARING = 4;

export class RoundRobinPool<T> {
  private readonly queues = new Map<string, Queued<T>[]>();
  /** Prepared directories with queued jobs, in the order they became ready. */
  private readonly order: string[] = [];
  /** Directories with queued jobs, to prepare in the order they came, from `nextUnprepared` on. */
  private readonly unprepared: string[] = [];
  private nextUnprepared = 0;
  private readonly prepared = new Set<string>();
  private readonly preparingNow = new Set<string>();
  private cursor = 0;
  private queuedJobs = 0;
  private queuedBytes = 0;
  private heldBytes = 0;
  private running = 0;
  /** Running jobs by directory. */
  private readonly runningIn = new Map<string, number>();
  private peakRunning = 0;
  private waiters: Array<() => void> = [];
  private idle: Array<() => void> = [];

  /**
   * @param prepare makes a directory ready for its jobs, once per directory; a failure is left for
   * the jobs to meet (they see it when they make the directory themselves).
   */
  constructor(
    private readonly limits: PoolLimits,
    private readonly run: (job: T) => Promise<void>,
    private readonly prepare: (directory: string) => Promise<void> = async () => undefined,
  ) {}

  /** The most jobs that ran at once. */
  get peakConcurrency(): number {
    return this.peakRunning;
  }

  /** Queue `job` under `directory`; resolves once there is room for more. */
  async add(directory: string, job: T, bytes = 0): Promise<void> {
    this.enqueue(directory, job, bytes);
    if (this.full()) await this.room();
  }

  /** Resolves once queued jobs, and bytes queued or held, are within the limits. */
  async room(): Promise<void> {
    while (this.full()) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /**
   * Bytes wait to be released by queued jobs starting or by holders letting go (a single job above
   * the byte limit never waits on itself).
   */
  private full(): boolean {
    const tooManyBytes = this.queuedBytes + this.heldBytes > this.limits.maxQueuedBytes && (this.queuedJobs > 1 || this.heldBytes > 0);
    return this.queuedJobs >= this.limits.maxQueuedJobs || tooManyBytes;
  }

  /** Counts bytes held outside the queue (entries waiting on something else) against the byte limit. */
  hold(bytes: number): void {
    this.heldBytes += bytes;
  }

  /** Gives back bytes `hold` counted. */
  letGo(bytes: number): void {
    this.heldBytes -= bytes;
    this.release('waiters');
  }

  /** Queue `job` without waiting for room: for a running job's follow-ups, which must never wait on the pool. */
  enqueue(directory: string, job: T, bytes = 0): void {
    let queue = this.queues.get(directory);
    if (!queue) {
      queue = [];
      this.queues.set(directory, queue);
      if (this.prepared.has(directory)) this.order.push(directory);
      else if (!this.preparingNow.has(directory)) this.unprepared.push(directory);
    }
    queue.push({ job, bytes });
    this.queuedJobs++;
    this.queuedBytes += bytes;
    this.pump();
  }

  /** Whether directories are waiting to be prepared, or being prepared. */
  get preparing(): boolean {
    return this.preparingNow.size > 0 || this.nextUnprepared < this.unprepared.length;
  }

  /** Whether no directory but `directory` has jobs queued or running. */
  alone(directory: string): boolean {
    const others = (directories: { size: number; has(d: string): boolean }) => directories.size - (directories.has(directory) ? 1 : 0);
    return others(this.queues) === 0 && others(this.runningIn) === 0;
  }

  /** Resolves when every queued and running job has finished. */
  async drain(): Promise<void> {
    while (this.running > 0 || this.queuedJobs > 0) {
      await new Promise<void>((resolve) => this.idle.push(resolve));
    }
  }

  private pump(): void {
    while (this.running < this.limits.concurrency && this.queuedJobs > 0) {
      const task = this.takeNext();
      if (!task) break; // the queued jobs wait for their directories
      this.running++;
      this.peakRunning = Math.max(this.peakRunning, this.running);
      task().finally(() => {
        this.running--;
        this.pump();
        if (this.running === 0 && this.queuedJobs === 0) this.release('idle');
      });
    }
    this.release('waiters');
  }

  /** A directory to prepare while few are (or no job is ready), else the next prepared directory's next job. */
  private takeNext(): (() => Promise<void>) | undefined {
    if ((this.preparingNow.size < MAX_PREPARING || this.order.length === 0) && this.nextUnprepared < this.unprepared.length) {
      const directory = this.unprepared[this.nextUnprepared++];
      this.preparingNow.add(directory);
      return () => this.prepare(directory).catch(() => undefined).then(() => {
        this.preparingNow.delete(directory);
        this.prepared.add(directory);
        if (this.queues.has(directory)) this.order.push(directory);
      });
    }
    if (this.order.length === 0) return undefined;
    const first = this.order.findIndex((directory) => !this.runningIn.has(directory));
    if (first !== -1) return this.takeJob(first);
    if (this.cursor >= this.order.length) this.cursor = 0;
    return this.takeJob(this.cursor, true);
  }

  /** The next job of the directory at `index` in `order`; `roundRobin` moves the cursor past it. */
  private takeJob(index: number, roundRobin = false): () => Promise<void> {
    const directory = this.order[index];
    const queue = this.queues.get(directory)!;
    const item = queue.shift()!;
    if (queue.length === 0) {
      this.queues.delete(directory);
      this.order.splice(index, 1);
      if (index < this.cursor) this.cursor--;
    } else if (roundRobin) {
      this.cursor++;
    }
    this.queuedJobs--;
    this.queuedBytes -= item.bytes;
    return async () => {
      this.runningIn.set(directory, (this.runningIn.get(directory) ?? 0) + 1);
      try {
        await this.run(item.job);
      } finally {
        const left = this.runningIn.get(directory)! - 1;
        if (left === 0) this.runningIn.delete(directory); else this.runningIn.set(directory, left);
      }
    };
  }

  private release(which: 'waiters' | 'idle'): void {
    const list = which === 'idle' ? this.idle : this.waiters;
    if (which === 'idle') this.idle = []; else this.waiters = [];
    list.forEach((resolve) => resolve());
  }
}
