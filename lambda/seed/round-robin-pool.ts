/**
 * A bounded pool that runs jobs `concurrency` at a time, taking them round-robin across
 * directories: Linux holds a directory's lock for the whole round trip of a create, so on EFS
 * creates in one directory are serial, and only interleaving directories keeps the pool busy.
 * `add` waits while too many jobs or bytes are queued, which bounds memory for streamed sources.
 */
export interface PoolLimits {
  readonly concurrency: number;
  /** Queued (not yet running) jobs at most. */
  readonly maxQueuedJobs: number;
  /** Bytes held by queued jobs at most (buffered archive members). */
  readonly maxQueuedBytes: number;
}

interface Queued<T> { readonly job: T; readonly bytes: number }

export class RoundRobinPool<T> {
  private readonly queues = new Map<string, Queued<T>[]>();
  private readonly order: string[] = [];
  private cursor = 0;
  private queuedJobs = 0;
  private queuedBytes = 0;
  private running = 0;
  private peakRunning = 0;
  private waiters: Array<() => void> = [];
  private idle: Array<() => void> = [];

  constructor(private readonly limits: PoolLimits, private readonly run: (job: T) => Promise<void>) {}

  /** The most jobs that ran at once. */
  get peakConcurrency(): number {
    return this.peakRunning;
  }

  /** Queue `job` under `directory`; resolves once there is room for more. */
  async add(directory: string, job: T, bytes = 0): Promise<void> {
    let queue = this.queues.get(directory);
    if (!queue) {
      queue = [];
      this.queues.set(directory, queue);
      this.order.push(directory);
    }
    queue.push({ job, bytes });
    this.queuedJobs++;
    this.queuedBytes += bytes;
    this.pump();
    while (this.queuedJobs >= this.limits.maxQueuedJobs || (this.queuedBytes > this.limits.maxQueuedBytes && this.queuedJobs > 1)) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Resolves when every queued and running job has finished. */
  async drain(): Promise<void> {
    while (this.running > 0 || this.queuedJobs > 0) {
      await new Promise<void>((resolve) => this.idle.push(resolve));
    }
  }

  private pump(): void {
    while (this.running < this.limits.concurrency && this.queuedJobs > 0) {
      const next = this.takeNext();
      this.running++;
      this.peakRunning = Math.max(this.peakRunning, this.running);
      this.run(next.job).finally(() => {
        this.running--;
        this.pump();
        if (this.running === 0 && this.queuedJobs === 0) this.release('idle');
      });
    }
    this.release('waiters');
  }

  private takeNext(): Queued<T> {
    if (this.cursor >= this.order.length) this.cursor = 0;
    const directory = this.order[this.cursor];
    const queue = this.queues.get(directory)!;
    const item = queue.shift()!;
    if (queue.length === 0) {
      this.queues.delete(directory);
      this.order.splice(this.cursor, 1);
    } else {
      this.cursor++;
    }
    this.queuedJobs--;
    this.queuedBytes -= item.bytes;
    return item;
  }

  private release(which: 'waiters' | 'idle'): void {
    const list = which === 'idle' ? this.idle : this.waiters;
    if (which === 'idle') this.idle = []; else this.waiters = [];
    list.forEach((resolve) => resolve());
  }
}
