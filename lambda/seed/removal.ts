import * as fs from 'fs';
import * as path from 'path';
import { lstat, unlink } from '../shared/fs-calls';
import { NEW_DIRECTORY_PREFIX, TEMP_PREFIX } from './atomic-write';
import { RoundRobinPool } from './round-robin-pool';
import { UnsafeEntryError } from './safety';

/**
 * Deleting what seeds wrote (prune, removeOnDelete). The paths come from the manifest, which anyone
 * who can write the target can edit, and the target's directories may have been replaced by links
 * since: every deletion goes through directories checked to be real ones, never through a link, and
 * only directories a seed made are ever removed.
 */

/** What a path below the root is, as far as deleting through it goes. */
type DirectoryState = 'real' | 'missing' | 'not a directory';

/** Whether a directory below `root` is reached through real directories only (each part lstat'ed once). */
export class RealDirectories {
  private readonly checked = new Map<string, Promise<DirectoryState>>([['.', Promise.resolve('real')]]);

  constructor(private readonly root: string) {}

  /** 'real' when `relative` ('.' for the root) and every directory above it are real directories, not links. */
  state(relative: string): Promise<DirectoryState> {
    let known = this.checked.get(relative);
    if (!known) {
      known = this.state(path.posix.dirname(relative)).then((parent) => (parent !== 'real' ? parent
        : lstat(path.join(this.root, relative)).then((s): DirectoryState => (s.isDirectory() ? 'real' : 'not a directory'),
          (err: NodeJS.ErrnoException): DirectoryState => (err.code === 'ENOENT' ? 'missing' : 'not a directory'))));
      this.checked.set(relative, known);
    }
    return known;
  }

  async isReal(relative: string): Promise<boolean> {
    return await this.state(relative) === 'real';
  }
}

/**
 * Deletes files a seed wrote (paths relative to `root`) `concurrency` at a time, spread across
 * directories as the writes are: unlinks in one directory are serial on EFS, as creates are. Returns
 * the files now gone (deleted, or gone already, directory and all); any other failure goes to `fail` and the file stays.
 * A file whose directory is no longer a real directory (a link put there since) is left, and reported.
 * Past `deadline` no unlink starts: the files left are neither gone nor failed.
 */
export async function removeFiles(root: string, files: Iterable<string>, concurrency: number, fail: (relative: string, err: unknown) => void, real = new RealDirectories(root), deadline = Infinity): Promise<string[]> {
  const gone: string[] = [];
  const pool = new RoundRobinPool<string>({ concurrency, maxQueuedJobs: Infinity, maxQueuedBytes: Infinity }, async (relative) => {
    if (Date.now() >= deadline) return; // left for the next slice
    try {
      const directory = await real.state(path.posix.dirname(relative));
      if (directory === 'not a directory') {
        throw new UnsafeEntryError(relative, 'not removed: a directory on its path is not a real directory any more (a symlink is never followed)');
      }
      // A directory that is gone took the file with it.
      if (directory === 'real') await unlink(path.join(root, relative));
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
 * Removes the directories among `candidates` that a seed made (`made`), deepest first, where nothing
 * else is left in them (rmdir leaves a directory that holds anything); returns those now gone.
 */
export async function removeMadeDirectories(root: string, candidates: Iterable<string>, made: ReadonlySet<string>, real = new RealDirectories(root)): Promise<string[]> {
  const byDepth = new Map<number, string[]>();
  for (const dir of new Set(candidates)) {
    if (!made.has(dir)) continue;
    const depth = dir.split('/').length;
    byDepth.set(depth, [...byDepth.get(depth) ?? [], dir]);
  }
  const gone: string[] = [];
  for (const depth of [...byDepth.keys()].sort((a, b) => b - a)) {
    await Promise.all(byDepth.get(depth)!.map(async (dir) => {
      if (!await real.isReal(path.posix.dirname(dir))) return;
      // rmdir removes a link's name, never what it points to, and fails on anything but an empty directory.
      const removed = await fs.promises.rmdir(path.join(root, dir)).then(() => true, (err: NodeJS.ErrnoException) => err.code === 'ENOENT');
      if (removed) gone.push(dir);
    }));
  }
  return gone;
}

export interface LeftoverRemoval {
  readonly concurrency: number;
  /** No unlink starts after this (epoch ms). */
  readonly deadline: number;
  readonly real: RealDirectories;
}

/**
 * Removes what interrupted seeds left in `root` and in `directories` (relative): staging directories
 * never published, whole, and temporary files never renamed (names only the seed makes), never
 * following a link (a link is unlinked, not entered). True when nothing is left; false when the
 * deadline stopped it (the next call goes on).
 */
export async function removeLeftovers(root: string, directories: Iterable<string>, { concurrency, deadline, real }: LeftoverRemoval): Promise<boolean> {
  const tops: string[] = [];
  await Promise.all([...new Set(['.', ...directories])].map(async (dir) => {
    if (!await real.isReal(dir)) return;
    const names = await fs.promises.readdir(path.join(root, dir)).catch(() => [] as string[]);
    for (const name of names) if (name.startsWith(NEW_DIRECTORY_PREFIX) || name.startsWith(TEMP_PREFIX)) tops.push(path.join(root, dir, name));
  }));
  let complete = true;
  const pool = new RoundRobinPool<string>({ concurrency, maxQueuedJobs: Infinity, maxQueuedBytes: Infinity }, async (file) => {
    if (Date.now() >= deadline) complete = false;
    else await unlink(file).catch(() => undefined);
  });
  // Depth first: a directory's files are unlinked (in parallel, across directories), then it is removed.
  const removeTree = async (where: string): Promise<void> => {
    const stats = await lstat(where).catch(() => undefined);
    if (!stats?.isDirectory()) {
      if (stats) pool.enqueue(path.dirname(where), where);
      return;
    }
    const names = await fs.promises.readdir(where).catch(() => [] as string[]);
    await Promise.all(names.map((name) => removeTree(path.join(where, name))));
    await pool.drain();
    if (Date.now() < deadline) await fs.promises.rmdir(where).catch(() => undefined);
  };
  await Promise.all(tops.map(removeTree));
  await pool.drain();
  return complete && Date.now() < deadline;
}

/** The directories `file` (relative) is in, innermost first, up to but not including the root. */
export function* parentsOf(file: string): Generator<string> {
  for (let dir = path.posix.dirname(file); dir !== '.'; dir = path.posix.dirname(dir)) yield dir;
}
