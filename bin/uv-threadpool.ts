/**
 * Node runs file system calls on libuv's thread pool, 4 threads unless UV_THREADPOOL_SIZE says
 * otherwise, read when the pool first starts. `seed` writes `--concurrency` files at once and
 * `probe` runs up to a few hundred operations at once (create-files: 128 threads by default), so
 * size the pool before anything touches the file system. Imported first by the CLI entry point.
 */
import { PROBE_THREAD_POOL_SIZE } from '../lib/probe/contract/limits';
import { DEFAULT_CONCURRENCY, UV_THREADPOOL_MAX } from '../lib/seed/contract/limits';

function requestedConcurrency(argv: string[]): number {
  const i = argv.findIndex((a) => a === '--concurrency' || a.startsWith('--concurrency='));
  if (i === -1) return DEFAULT_CONCURRENCY;
  const value = argv[i].includes('=') ? argv[i].split('=')[1] : argv[i + 1];
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_CONCURRENCY;
}

if (!process.env.UV_THREADPOOL_SIZE) {
  // A few threads more than the writers, for reads, DNS and zlib, up to libuv's cap.
  // argv: node, the script, then the command.
  const wanted = process.argv[2] === 'probe' ? PROBE_THREAD_POOL_SIZE : requestedConcurrency(process.argv) + 4;
  process.env.UV_THREADPOOL_SIZE = String(Math.min(UV_THREADPOOL_MAX, wanted));
}
