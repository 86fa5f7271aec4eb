import * as path from 'path';
import { safeEntryPath, UnsafeEntryError } from '../../lib/seed/contract/entry-path';
import type { FileEntry, SeedEntry } from '../seed/sources/entry';
import { BucketTarget, objectKey } from './bucket-target';
import type { SeedTally } from './seed-tally';

/**
 * The source's entries as the seed takes them: each path checked (a safe relative path, a key S3
 * Files serves, no file where another entry needs a directory or the reverse), each file once.
 * Directories, links, special files and refused entries are counted or failed in the tally here.
 */
export class EntryPaths {
  private readonly files = new Set<string>();
  private readonly directories = new Set<string>();

  constructor(private readonly target: BucketTarget, private readonly tally: SeedTally) {}

  /** A file the seed is to write, with its path relative to the prefix; undefined for any other entry. */
  admit(entry: SeedEntry): { relative: string; file: FileEntry } | undefined {
    if (entry.type === 'failed') {
      this.tally.fail(entry.path, entry.reason);
      return undefined;
    }
    let relative: string;
    try {
      relative = safeEntryPath(entry.path);
      if (relative === '' && entry.type !== 'directory') throw new UnsafeEntryError(entry.path, 'the name is empty');
      if (entry.type === 'file') objectKey(this.target, relative);
      if (entry.type === 'file' || entry.type === 'directory') this.refuseConflicts(entry.path, relative, entry.type === 'directory');
    } catch (err) {
      if (entry.type === 'file') entry.discard?.();
      this.tally.fail(entry.path, (err as Error).message);
      return undefined;
    }
    if (entry.type === 'directory') {
      if (relative !== '') this.tally.directories++;
    } else if (entry.type === 'special') {
      this.tally.specialFiles.push(relative);
    } else if (entry.type === 'symlink') {
      // Never followed (the local walk lstats; an archive's link is a name): an object cannot be a link.
      this.tally.skippedLinks.push(relative);
    } else if (this.files.has(relative)) {
      entry.discard?.();
      this.tally.fail(entry.path, 'the source lists this path twice');
    } else {
      return { relative, file: entry };
    }
    return undefined;
  }

  /** The file at `relative` is being written: the source has it (prune leaves its record alone). */
  claim(relative: string): void {
    this.files.add(relative);
  }

  has(relative: string): boolean {
    return this.files.has(relative);
  }

  /** Refuses a file where the source has a directory, or a directory (a file's parent too) where it has a file; else notes the directories. */
  private refuseConflicts(raw: string, relative: string, isDirectory: boolean): void {
    if (!isDirectory && this.directories.has(relative)) throw new UnsafeEntryError(raw, 'the source also has entries below this path, so it is a directory');
    const newDirectories: string[] = [];
    for (let dir = isDirectory ? relative : path.posix.dirname(relative); dir !== '.' && dir !== '' && !this.directories.has(dir); dir = path.posix.dirname(dir)) {
      if (this.files.has(dir)) throw new UnsafeEntryError(raw, `the source also has a file at ${JSON.stringify(dir)}, so it cannot be a directory`);
      newDirectories.push(dir);
    }
    for (const dir of newDirectories) this.directories.add(dir);
  }
}
