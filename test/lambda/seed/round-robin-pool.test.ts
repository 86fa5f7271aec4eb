import { MAX_PREPARING, RoundRobinPool } from '../../../lambda/seed/copy/round-robin-pool';

// The pool the seed writes through: directories are prepared (made on the target) before their
// jobs run, a few at a time, and no writer's slot waits on a directory that is not ready.
describe('RoundRobinPool', () => {
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  /** A pool whose preparations wait to be released, except for the directories named ready. */
  function poolWithPreparations(concurrency: number, ready: string[] = []) {
    const prepared = new Set<string>(ready);
    const releases = new Map<string, () => void>();
    let holding = true;
    const seen = { preparingNow: 0, mostPreparing: 0, ranBeforePrepared: [] as string[] };
    const pool = new RoundRobinPool<string>({ concurrency, maxQueuedJobs: 100_000, maxQueuedBytes: 1e9 }, async (directory) => {
      if (!prepared.has(directory)) seen.ranBeforePrepared.push(directory);
      await tick();
    }, (directory) => (prepared.has(directory) || !holding ? (async () => { prepared.add(directory); })() : new Promise<void>((resolve) => {
      seen.preparingNow++;
      seen.mostPreparing = Math.max(seen.mostPreparing, seen.preparingNow);
      releases.set(directory, () => { seen.preparingNow--; prepared.add(directory); resolve(); });
    })));
    /** Releases the held preparations; later ones go through at once. */
    const releaseAll = () => {
      holding = false;
      releases.forEach((release) => release());
    };
    return { pool, seen, releaseAll };
  }

  test('runs a directory\'s jobs only once it is prepared, and while jobs are ready prepares a few directories at most', async () => {
    const { pool, seen, releaseAll } = poolWithPreparations(16, ['ready']);
    for (let j = 0; j < 1000; j++) await pool.add('ready', 'ready');
    await tick();
    for (let d = 0; d < 10; d++) for (let f = 0; f < 5; f++) await pool.add(`dir-${d}`, `dir-${d}`);
    for (let t = 0; t < 20; t++) await tick(); // 'ready' still has jobs queued
    expect(seen.mostPreparing).toBe(MAX_PREPARING);
    const drained = pool.drain();
    releaseAll();
    await drained;
    expect(seen.ranBeforePrepared).toEqual([]);
  });

  test('with no job ready, free slots prepare directories (an unchanged re-run only looks at them)', async () => {
    const { pool, seen, releaseAll } = poolWithPreparations(16);
    for (let d = 0; d < 10; d++) for (let f = 0; f < 5; f++) await pool.add(`dir-${d}`, `dir-${d}`);
    await tick();
    expect(seen.preparingNow).toBe(10);
    const drained = pool.drain();
    releaseAll();
    await drained;
    expect(seen.ranBeforePrepared).toEqual([]);
  });

  test('fills ready directories oldest first, one job each, and a failed preparation leaves its jobs to meet the failure', async () => {
    const order: string[] = [];
    const pool = new RoundRobinPool<string>({ concurrency: 1, maxQueuedJobs: 1000, maxQueuedBytes: 1e9 }, async (job) => {
      order.push(job);
    }, async (directory) => {
      if (directory === 'broken') throw new Error('not a directory');
    });
    for (const job of ['a/1', 'a/2', 'b/1', 'b/2', 'broken/1']) await pool.add(job.split('/')[0], job);
    await pool.drain();
    expect(order).toHaveLength(5);
    expect(order).toContain('broken/1');
    // With one writer, a directory is finished before the next is begun: it can be published meanwhile.
    expect(order.filter((j) => !j.startsWith('broken'))).toEqual(['a/1', 'a/2', 'b/1', 'b/2']);
  });

  test('gives each ready directory a job before any gets a second', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => { open = resolve; });
    const started: string[] = [];
    const pool = new RoundRobinPool<string>({ concurrency: 4, maxQueuedJobs: 1000, maxQueuedBytes: 1e9 }, async (job) => {
      started.push(job);
      await gate;
    });
    // x, a and b are each prepared in turn; x's second job waits until a and b have one each.
    for (let i = 0; i < 2; i++) pool.enqueue('x', `x/${i}`);
    for (const job of ['a/1', 'a/2', 'a/3', 'b/1', 'b/2', 'b/3']) pool.enqueue(job.split('/')[0], job);
    for (let t = 0; t < 10; t++) await tick();
    expect(started).toEqual(['x/0', 'a/1', 'b/1', 'x/1']);
    open();
    await pool.drain();
  });

  test('tells a job whether its directory has the pool to itself (no other directory queued or running)', async () => {
    const alone: Record<string, boolean> = {};
    const pool: RoundRobinPool<string> = new RoundRobinPool<string>({ concurrency: 2, maxQueuedJobs: 1000, maxQueuedBytes: 1e9 }, async (job) => {
      alone[job] = pool.alone(job.split('/')[0]);
      await tick();
    });
    for (const job of ['a/1', 'b/1', 'b/2', 'b/3']) await pool.add(job.split('/')[0], job);
    await pool.drain();
    // a/1 runs beside b/1; b/2 starts once a is done, and is alone.
    expect(alone).toEqual({ 'a/1': false, 'b/1': false, 'b/2': true, 'b/3': true });
  });
});
