import * as fs from 'fs';
import * as path from 'path';
import { Job } from './file-copy';
import { DirectoryMaker, TargetListings } from './target-directories';

/**
 * Entries the manifest says are unchanged, waiting, by directory, for that directory's listing: one
 * pool task per directory, not one per file, so an unchanged re-run costs little more than the walk.
 */
export class UnchangedEntries {
  private readonly waiting = new Map<string, Job[]>();

  constructor(private readonly listings: TargetListings, private readonly directories: DirectoryMaker) {}

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

  /** Run as the check task, once the directory is made: which waiting entries are there, which gone. */
  async settle(directory: string): Promise<{ present: Job[]; gone: Job[] }> {
    const listing = this.directories.existed(directory) ? await this.listings.list(this.directories.pathOf(directory)) : new Map<string, fs.Dirent>();
    const jobs = this.waiting.get(directory) ?? [];
    this.waiting.delete(directory);
    const present: Job[] = [];
    const gone: Job[] = [];
    for (const job of jobs) {
      const dirent = listing.get(path.posix.basename(job.path));
      const there = job.kind === 'file' ? dirent?.isFile() : dirent?.isSymbolicLink();
      (there ? present : gone).push(job);
    }
    return { present, gone };
  }
}
