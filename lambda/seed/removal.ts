import * as fs from 'fs';
import * as path from 'path';
import { unlink } from '../shared/fs-calls';
import { NEW_DIRECTORY_PREFIX, TEMP_PREFIX } from './atomic-write';
import { RoundRobinPool } from './round-robin-pool';

/**
 * Deletes files a seed wrote (paths relative to `root`) `concurrency` at a time, spread across
 * directories as the writes are: unlinks in one directory are serial on EFS, as creates are. Returns
 * the files now gone (deleted, or gone already); any other failure goes to `fail` and the file stays.
 */
export async function removeFiles(root: string, files: Iterable<string>, concurrency: number, fail: (relative: string, err: unknown) => void): Promise<string[]> {
  const gone: string[] = [];
  const pool = new RoundRobinPool<string>({ concurrency, maxQueuedJobs: Infinity, maxQueuedBytes: Infinity }, async (relative) => {
    try {
      await unlink(path.join(root, relative));
      gone.push(relative);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') gone.push(relative);
      else fail(relative, err);
    }
  });
  for (const relative of files) pool.enqueue(path.posix.dirname(relative), relative);
  await pool.drain();
  return gone;
}

/**
 * Removes the directories `files` were in (and their parents), deepest first, but not those in
 * `keep` nor `root` itself: a directory that still holds anything is left, as rmdir leaves it.
 */
export async function removeEmptiedDirectories(root: string, files: Iterable<string>, keep: ReadonlySet<string> = new Set()): Promise<void> {
  const byDepth = new Map<number, Set<string>>();
  for (const file of files) {
    for (const dir of parentsOf(file)) {
      if (keep.has(dir)) break; // and so are its parents, which hold it
      const depth = dir.split('/').length;
      if (!byDepth.has(depth)) byDepth.set(depth, new Set());
      byDepth.get(depth)!.add(dir);
    }
  }
  for (const depth of [...byDepth.keys()].sort((a, b) => b - a)) {
    await Promise.all([...byDepth.get(depth)!].map((dir) => fs.promises.rmdir(path.join(root, dir)).catch(() => undefined)));
  }
}

/**
 * Removes what interrupted seeds left in `root` and in the directories `files` are in: staging
 * directories never published and temporary files never renamed (names only the seed makes).
 */
export async function removeLeftovers(root: string, files: Iterable<string>): Promise<void> {
  const directories = new Set(['.']);
  for (const file of files) {
    for (const dir of parentsOf(file)) {
      if (directories.has(dir)) break; // with its parents
      directories.add(dir);
    }
  }
  await Promise.all([...directories].map(async (dir) => {
    const where = path.join(root, dir);
    const names = await fs.promises.readdir(where).catch(() => [] as string[]);
    const leftovers = names.filter((name) => name.startsWith(NEW_DIRECTORY_PREFIX) || name.startsWith(TEMP_PREFIX));
    await Promise.all(leftovers.map((name) => fs.promises.rm(path.join(where, name), { recursive: true, force: true })));
  }));
}

/** The directories `file` (relative) is in, innermost first, up to but not including the root. */
function* parentsOf(file: string): Generator<string> {
  for (let dir = path.posix.dirname(file); dir !== '.'; dir = path.posix.dirname(dir)) yield dir;
}
