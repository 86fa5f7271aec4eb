import * as path from 'path';
import { writtenIdentity } from './atomic-write';
import { LINK_IDENTITY } from '../sources/entry';
import { reservedName } from '../state/reserved-names';
import { RoundRobinPool } from '../copy/round-robin-pool';
import { MadeProof, NotProven, proveMade } from '../state/run-tokens';
import { MAX_DEPTH, UnsafeEntryError } from '../../../lib/seed/contract/entry-path';
import { TargetTree } from '../boundary/target-tree';
import { HeldName } from '../boundary/held-name';

/**
 * Deleting what seeds wrote (prune, removeOnDelete, replaced links) and what interrupted seeds left.
 * The paths come from the manifest, which anyone who can write the target can edit, and the target
 * may have changed since: every deletion happens in a directory the seed holds open, reached through
 * real directories only (never through a link), and a name is deleted only while it still is what
 * the seed wrote there (the same inode, size and modification time; a link to the same target).
 * Anything else is kept and reported. The check and the unlink are two calls: in between, only
 * someone who can write that directory could change the name, and could delete what is there anyway.
 */

/** A file or link to delete: its path and what the seed wrote there. */
export interface Written {
  readonly path: string;
  /** The file's identity as written (see writtenIdentity), or `link:<target>` for a link. */
  readonly identity?: string;
}

export interface Removed {
  /** Deleted, or gone already. */
  readonly gone: string[];
  /** Still there but not what the seed wrote (changed since, or replaced): kept. */
  readonly kept: string[];
}

/** The directory key of `file` ('' for the target root). */
const directoryKey = (file: string) => {
  const dir = path.posix.dirname(file);
  return dir === '.' ? '' : dir;
};

/**
 * Deletes the files and links a seed wrote, `concurrency` at a time, spread across directories as the
 * writes are (unlinks in one directory are serial on EFS, as creates are). A failure goes to `fail`
 * and the file stays; past `deadline` no deletion starts, and the files left are in neither list.
 */
export async function removeWritten(tree: TargetTree, files: Iterable<Written>, concurrency: number, fail: (relative: string, err: unknown) => void, deadline = Infinity): Promise<Removed> {
  const gone: string[] = [];
  const kept: string[] = [];
  const pool = new RoundRobinPool<Written>({ concurrency, maxQueuedJobs: Infinity, maxQueuedBytes: Infinity }, async (file) => {
    if (Date.now() >= deadline) return; // left for the next slice
    try {
      const key = directoryKey(file.path);
      const state = await tree.find(key);
      if (state === 'not a directory') throw new UnsafeEntryError(file.path, 'not removed: a directory on its path is not a real directory any more (a symlink is never followed)');
      // A directory that is gone took the file with it.
      if (state === 'missing') return void gone.push(file.path);
      const name = path.posix.basename(file.path);
      const outcome = await tree.using(key, async (dir) => {
        if (!await isAsWritten(tree, dir.at(name), file.identity)) return 'kept';
        await tree.calls.unlink(dir.at(name));
        return 'gone';
      });
      (outcome === 'gone' ? gone : kept).push(file.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') gone.push(file.path);
      else fail(file.path, err);
    }
  });
  for (const file of files) pool.enqueue(directoryKey(file.path), file);
  await pool.drain();
  return { gone, kept };
}

/** Whether `at` is still what the seed wrote: the same link target, or the same inode, size and modification time. */
async function isAsWritten(tree: TargetTree, at: HeldName, identity: string | undefined): Promise<boolean> {
  if (identity === undefined) return false; // recorded by a version that kept no identity: not provably the seed's
  const stats = await tree.calls.lstat(at);
  if (identity.startsWith(LINK_IDENTITY)) return stats.isSymbolicLink() && await tree.calls.readlink(at) === identity.slice(LINK_IDENTITY.length);
  return stats.isFile() && writtenIdentity(stats) === identity;
}

/**
 * Removes the directories among `candidates` that a seed made (`made`), deepest first, where nothing
 * else is left in them (rmdir leaves a directory that holds anything): those now gone, and whether
 * every candidate was tried (false when the deadline came first: the next call goes on).
 */
export async function removeMadeDirectories(tree: TargetTree, candidates: Iterable<string>, made: ReadonlySet<string>, deadline = Infinity): Promise<{ gone: string[]; finished: boolean }> {
  const byDepth = new Map<number, string[]>();
  for (const dir of new Set(candidates)) {
    if (!made.has(dir)) continue;
    const depth = dir.split('/').length;
    byDepth.set(depth, [...byDepth.get(depth) ?? [], dir]);
  }
  const gone: string[] = [];
  let finished = true;
  for (const depth of [...byDepth.keys()].sort((a, b) => b - a)) {
    await Promise.all(byDepth.get(depth)!.map(async (dir) => {
      if (Date.now() >= deadline) {
        finished = false;
        return;
      }
      const parent = directoryKey(dir);
      if (await tree.find(parent) !== 'real') return;
      // rmdir removes a link's name, never what it points to, and fails on anything but an empty directory.
      const removed = await tree.using(parent, (at) => tree.calls.rmdir(at.at(path.posix.basename(dir)))).then(() => true, (err: NodeJS.ErrnoException) => err.code === 'ENOENT');
      if (removed) {
        tree.forget(dir);
        gone.push(dir);
      }
    }));
  }
  return { gone, finished };
}

/**
 * Removes what interrupted seeds left in `directories` (keys, '' the root): staging directories never
 * published, whole, and temporary files never renamed, each only where `proof` shows a seed made it
 * (see run-tokens.ts); any other entry with a reserved name is left alone and returned. `finished` is
 * false when the deadline stopped it (the next call goes on).
 */
export async function removeLeftovers(tree: TargetTree, directories: Iterable<string>, proof: MadeProof, concurrency: number, deadline: number): Promise<{ finished: boolean; leftAlone: NotProven[] }> {
  const removal = new TreeRemoval(tree, concurrency, deadline);
  const leftAlone: NotProven[] = [];
  await Promise.all([...new Set(['', ...directories])].map(async (key) => {
    if (Date.now() >= deadline || await tree.find(key) !== 'real') return;
    const names = await tree.using(key, (dir) => tree.calls.readdir(dir.self)).catch(() => []);
    await Promise.all(names.filter((d) => reservedName(d.name)).map(async (d) => {
      const made = await proveMade(tree, key, d.name, proof).catch((err: Error) => ({ path: key === '' ? d.name : `${key}/${d.name}`, why: err.message }));
      if (typeof made !== 'string') leftAlone.push(made);
      else await removal.remove(key, d.name, made === 'staging');
    }));
  }));
  return { finished: await removal.finish(), leftAlone };
}

/**
 * Removes the directory `name` in the known directory `parent`, whole; a link or file there is
 * unlinked, never followed. Past `deadline` nothing more starts, and nothing deeper than MAX_DEPTH
 * below it is reached (no seed makes it: a chain planted 16,000 deep would cost minutes of system
 * time), which stays, with the directories above it.
 */
export async function removeTree(tree: TargetTree, parent: string, name: string, deadline = Infinity, concurrency = 16): Promise<void> {
  const removal = new TreeRemoval(tree, concurrency, deadline);
  await removal.remove(parent, name, true);
  await removal.finish();
}

/**
 * Removal of whole trees: each directory opened relative to its parent without following a link,
 * its entries unlinked through it (in parallel across directories), then removed from its parent.
 */
class TreeRemoval {
  private readonly pool: RoundRobinPool<() => Promise<void>>;
  private complete = true;

  constructor(private readonly tree: TargetTree, concurrency: number, private readonly deadline: number) {
    this.pool = new RoundRobinPool({ concurrency, maxQueuedJobs: Infinity, maxQueuedBytes: Infinity }, async (job) => {
      if (Date.now() >= this.deadline) this.complete = false;
      else await job().catch(() => undefined);
    });
  }

  /** Removes `name` in the directory `parent` (a key the tree knows), `depth` levels below where the removal started: a directory with all it holds. */
  async remove(parent: string, name: string, isDirectory: boolean, depth = 0): Promise<void> {
    const unlink = () => this.tree.using(parent, (dir) => this.tree.calls.unlink(dir.at(name)));
    if (!isDirectory) {
      this.pool.enqueue(parent, unlink);
      return;
    }
    if (Date.now() >= this.deadline) {
      this.complete = false;
      return;
    }
    // Left, as a directory that cannot be removed is (its parents' rmdir fails): no seed made it.
    if (depth >= MAX_DEPTH) return;
    const key = parent === '' ? name : `${parent}/${name}`;
    const opened = await this.tree.adopt(key, parent, name).then(() => true, (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOTDIR' || err.code === 'ELOOP') this.pool.enqueue(parent, unlink); // swapped for a link or a file: its name goes
      return false;
    });
    if (!opened) return;
    const entries = await this.tree.using(key, (dir) => this.tree.calls.readdir(dir.self)).catch(() => []);
    await Promise.all(entries.map((d) => this.remove(key, d.name, d.isDirectory(), depth + 1)));
    await this.pool.drain();
    if (Date.now() >= this.deadline) {
      this.complete = false;
      return;
    }
    await this.tree.using(parent, (dir) => this.tree.calls.rmdir(dir.at(name))).catch(() => undefined);
    this.tree.forget(key);
  }

  /** True when no deadline stopped it. */
  async finish(): Promise<boolean> {
    await this.pool.drain();
    return this.complete && Date.now() < this.deadline;
  }
}

/** The directories `file` (relative) is in, innermost first, up to but not including the root. */
export function* parentsOf(file: string): Generator<string> {
  for (let dir = path.posix.dirname(file); dir !== '.'; dir = path.posix.dirname(dir)) yield dir;
}
