import * as fs from 'fs';
import * as path from 'path';
import { unlink } from '../shared/fs-calls';
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
    for (let dir = path.posix.dirname(file); dir !== '.'; dir = path.posix.dirname(dir)) {
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

