import * as fs from 'fs';
import type { NfsRequests } from './metering';
import { close, open, read, writeAll } from '../shared/fs-calls';

// The calls the scenarios time are the plain system calls the seed makes too.
export { close, fsync, futimes, mkdir, open, read, readdir, rename, stat, unlink, writeAll } from '../shared/fs-calls';

export const { O_CREAT, O_EXCL, O_WRONLY, O_RDONLY, O_TRUNC, O_SYNC, O_NONBLOCK } = fs.constants;
/** Linux's O_DIRECT: reads bypass the client's page cache and go to the server. */
export const O_DIRECT: number = (fs.constants as Record<string, number>).O_DIRECT ?? 0;

/** Opens `file`, runs `fn` on the descriptor, and closes it whatever happens (close's round trip counts too). */
export async function withOpenFile<T>(file: string, flags: number, fn: (fd: number) => Promise<T>): Promise<T> {
  const fd = await open(file, flags, 0o644);
  try {
    return await fn(fd);
  } finally {
    await close(fd);
  }
}

/** What writeWholeFile sends: an OPEN that creates, the WRITEs, a CLOSE. */
export const WRITE_WHOLE_FILE_REQUESTS: NfsRequests = { data: 'write', metadataReads: 1, metadataWrites: 1 };

/** Creates (or truncates) `file` with `content` in one sequence: open, write, close. */
export async function writeWholeFile(file: string, content: Buffer): Promise<void> {
  await withOpenFile(file, O_WRONLY | O_CREAT | O_TRUNC, (fd) => writeAll(fd, content));
}

/** What readWholeFile sends: an OPEN, the READs, a CLOSE. */
export const READ_WHOLE_FILE_REQUESTS: NfsRequests = { data: 'read', metadataReads: 2, metadataWrites: 0 };

/** Reads a file of known size whole, as a web server does: open, read, close (no extra read for the end). */
export function readWholeFile(file: string, flags: number, bytes: number): Promise<void> {
  const buffer = Buffer.allocUnsafe(bytes);
  return withOpenFile(file, flags, async (fd) => {
    for (let total = 0, n = -1; total < bytes && n !== 0; total += n) n = await read(fd, buffer.subarray(total), total);
  });
}

/** Runs `fn` on every item with at most `concurrency` in flight, in the items' order. */
export async function forEachConcurrently<T>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await fn(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** Deterministic pseudo-random numbers (mulberry32), so every round and every run does the same work. */
export function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A size from `min` to `max` (either order) drawn from `random`: scenarios' file sizes. */
export function sizeBetween(random: () => number, min: number, max: number): number {
  const [low, high] = min <= max ? [min, max] : [max, min];
  return low + Math.floor(random() * (high - low + 1));
}

/** `1KiB`, `1MiB`, `100MiB`, `1.5GiB`: sizes in operation names. */
export function sizeLabel(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)}${units[unit]}`;
}
