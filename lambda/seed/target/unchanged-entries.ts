import * as fs from 'fs';
import * as path from 'path';
import { writtenIdentity } from './atomic-write';
import { Job } from '../copy/file-copy';
import { DirectoryMaker, keyOf, TargetListings } from './target-directories';
import { TargetTree } from '../boundary/target-tree';

/**
 * Entries the manifest says are unchanged, waiting, by directory, for that directory's listing: one
 * pool task per directory, not one per file, so an unchanged re-run costs little more than the walk.
 * Where the listing is not enough (a run that did not end cleanly may have changed files the manifest
 * still records as before, or the manifest kept no identity of a file), each entry is also checked to
 * be what the seed wrote: the same inode, size and modification time; a link to the same target.
 */
export interface Settled {
  /** Still there as the seed wrote them. */
  readonly present: Job[];
  /** Gone, or changed since: written again. */
  readonly gone: Job[];
  /** Identities found for files the manifest kept none of (an older version's): recorded now. */
  readonly identities: Map<string, string>;
}

export class UnchangedEntries {
  private readonly waiting = new Map<string, Job[]>();

  constructor(
    private readonly tree: TargetTree,
    private readonly listings: TargetListings,
    private readonly directories: DirectoryMaker,
    /** What the seed wrote at each path, where the manifest knows. */
    private readonly written: ReadonlyMap<string, string>,
  ) {}

  /** Holds `job` for `directory`'s check; true when the directory needs a check task queued. */
  add(directory: string, job: Job): boolean {
    const queue = this.waiting.get(directory);
    if (queue) {
      queue.push(job);
      return false;
    }
    this.waiting.set(directory, [job]);
    return true;
  }

  /**
   * Run as the check task, once the directory is made: which waiting entries are there, which gone.
   * Where `verify` says so, asked once the directory is listed (the listing shows whether another
   * seed's place is there), each entry there is checked to be what the seed wrote.
   */
  async settle(directory: string, mustVerify: () => boolean): Promise<Settled> {
    const key = keyOf(directory);
    const existed = this.directories.existed(directory);
    const listing = existed ? await this.listings.list(key) : new Map<string, fs.Dirent>();
    const verify = mustVerify();
    const jobs = this.waiting.get(directory) ?? [];
    this.waiting.delete(directory);
    const present: Job[] = [];
    const gone: Job[] = [];
    const identities = new Map<string, string>();
    const unsure: Job[] = [];
    for (const job of jobs) {
      const dirent = listing.get(path.posix.basename(job.path));
      const there = job.kind === 'file' ? dirent?.isFile() : dirent?.isSymbolicLink();
      if (!there) gone.push(job);
      else if (verify || (job.kind === 'file' && !this.written.has(job.path))) unsure.push(job);
      else present.push(job);
    }
    if (unsure.length > 0) {
      await this.tree.using(key, (dir) => Promise.all(unsure.map(async (job) => {
        const at = dir.at(path.posix.basename(job.path));
        const stats = await this.tree.calls.lstat(at).catch(() => undefined);
        let same: boolean;
        if (job.kind === 'symlink') {
          same = stats?.isSymbolicLink() === true && await this.tree.calls.readlink(at).catch(() => undefined) === job.entry.target;
        } else if (!stats?.isFile()) {
          same = false;
        } else {
          const recorded = this.written.get(job.path);
          if (recorded === undefined) identities.set(job.path, writtenIdentity(stats)); // adopted as it is, as the older version trusted it
          same = recorded === undefined || recorded === writtenIdentity(stats);
        }
        (same ? present : gone).push(job);
      })));
    }
    return { present, gone, identities };
  }
}
