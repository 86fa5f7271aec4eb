import { FileSystemCalls } from '../../../lambda/seed/boundary/file-system-calls';

// The local source reads synchronously only while reads come from memory; these calls stand in for
// the reads (a busy wait is a slow disk), and count which way each one ran.
describe('FileSystemCalls', () => {
  const busyFor = (ms: number) => {
    const until = process.hrtime.bigint() + BigInt(ms * 1e6);
    while (process.hrtime.bigint() < until) { /* a read that blocks */ }
  };

  function counting(syncMs: number) {
    const calls = { sync: 0, async: 0 };
    return {
      calls,
      sync: () => { calls.sync++; busyFor(syncMs); return 'sync'; },
      async: async () => { calls.async++; return 'async'; },
    };
  }

  test('fast calls stay synchronous', async () => {
    const fast = new FileSystemCalls(FileSystemCalls.SOURCE);
    const c = counting(0);
    for (let i = 0; i < 100; i++) await fast.run(c.sync, c.async);
    expect(c.calls).toEqual({ sync: 100, async: 0 });
  });

  test('eight slow calls move every later call to the thread pool; seven do not', async () => {
    const fast = new FileSystemCalls(FileSystemCalls.SOURCE);
    const slow = counting(2);
    for (let i = 0; i < 7; i++) await fast.run(slow.sync, slow.async);
    expect(fast.fast).toBe(true);
    await fast.run(slow.sync, slow.async);
    expect(fast.fast).toBe(false);
    await expect(fast.run(slow.sync, slow.async)).resolves.toBe('async');
    expect(slow.calls).toEqual({ sync: 8, async: 1 });
  });

  test('slow calls between fast ones, as on EFS (a write into the page cache between an open and a close that wait on the server), move later calls to the thread pool too', async () => {
    const calls = new FileSystemCalls(FileSystemCalls.SOURCE);
    const quick = counting(0);
    const slow = counting(2);
    for (let i = 0; i < 8; i++) {
      await calls.run(slow.sync, slow.async);
      await calls.run(quick.sync, quick.async);
    }
    expect(calls.fast).toBe(false);
    expect(slow.calls).toEqual({ sync: 8, async: 0 });
  });

  test('a slow call now and then among many fast ones (the scheduler, a page fault) changes nothing', async () => {
    const calls = new FileSystemCalls(FileSystemCalls.SOURCE);
    const quick = counting(0);
    const slow = counting(2);
    for (let i = 0; i < 5; i++) {
      for (let j = 0; j < 200; j++) await calls.run(quick.sync, quick.async);
      await calls.run(slow.sync, slow.async);
    }
    expect(calls.fast).toBe(true);
    expect(slow.calls.async + quick.calls.async).toBe(0);
  });

  test('after its first 2,048 calls one call in 61 is timed, and a file system that turns slow then is still found from those', async () => {
    const calls = new FileSystemCalls(FileSystemCalls.SOURCE);
    const quick = counting(0);
    for (let i = 0; i < 2048; i++) await calls.run(quick.sync, quick.async);
    const slow = counting(1.2);
    for (let i = 0; i < 2000 && calls.fast; i++) await calls.run(slow.sync, slow.async);
    expect(calls.fast).toBe(false);
    // Slow calls must be more than 1% of the timed ones: 21 after 2,048 fast ones, and the 21st
    // multiple of 61 past 2,048 is call 3,294. A fast call the machine made slow only hastens it.
    expect(slow.calls.sync).toBeLessThanOrEqual(3294 - 2048);
    expect(slow.calls.sync).toBeGreaterThan(8 * 61);
    expect(quick.calls).toEqual({ sync: 2048, async: 0 });
  });

  test('CDK_EFS_KIT_SYNC_CALLS=0 sends every call to the thread pool', async () => {
    process.env.CDK_EFS_KIT_SYNC_CALLS = '0';
    try {
      const calls = new FileSystemCalls(FileSystemCalls.SOURCE);
      const quick = counting(0);
      await calls.run(quick.sync, quick.async);
      expect(quick.calls).toEqual({ sync: 0, async: 1 });
    } finally {
      delete process.env.CDK_EFS_KIT_SYNC_CALLS;
    }
  });

  test('a fast call gives its value itself, with no promise to settle; a failing one throws', () => {
    const fast = new FileSystemCalls(FileSystemCalls.SOURCE);
    expect(fast.run(() => 'sync', async () => 'async')).toBe('sync');
    expect(() => fast.run(() => { throw new Error('ENOENT'); }, async () => 'never')).toThrow('ENOENT');
  });
});
