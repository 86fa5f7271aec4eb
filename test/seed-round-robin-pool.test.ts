import { MAX_PREPARING, RoundRobinPool } from '../lambda/seed/round-robin-pool';

// The pool the seed writes through: directories are prepared (made on the target) before their
// jobs run, a few at a time, and no writer's slot waits on a directory that is not ready.
describe('RoundRobinPool', () => {
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  test('runs a directory\'s jobs only once it is prepared, and never more than a few preparations at once', async () => {
    const prepared = new Set<string>();
    const releases = new Map<string, () => void>();
    let preparingNow = 0;
    let mostPreparing = 0;
    const ranBeforePrepared: string[] = [];
    const pool = new RoundRobinPool<string>({ concurrency: 16, maxQueuedJobs: 1000, maxQueuedBytes: 1e9 }, async (directory) => {
      if (!prepared.has(directory)) ranBeforePrepared.push(directory);
    }, (directory) => new Promise<void>((resolve) => {
      preparingNow++;
      mostPreparing = Math.max(mostPreparing, preparingNow);
      releases.set(directory, () => { preparingNow--; prepared.add(directory); resolve(); });
    }));
    for (let d = 0; d < 10; d++) for (let f = 0; f < 5; f++) await pool.add(`dir-${d}`, `dir-${d}`);
    const drained = pool.drain();
    while (prepared.size < 10) {
      await tick();
      const [directory, release] = [...releases][0];
      releases.delete(directory);
      release();
    }
    await drained;
    expect(ranBeforePrepared).toEqual([]);
    expect(mostPreparing).toBe(MAX_PREPARING);
  });

  test('takes ready directories round-robin, and a failed preparation leaves its jobs to meet the failure', async () => {
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
    // Once both are ready, a and b alternate.
    expect(order.filter((j) => !j.startsWith('broken'))).toEqual(['a/1', 'b/1', 'a/2', 'b/2']);
  });
});
