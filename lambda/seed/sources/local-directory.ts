import * as fs from 'fs';
import * as path from 'path';
import { lstat, readdir, readlink, stat } from '../../shared/fs-calls';
import { FileContent, FileEntry, LINK_IDENTITY, LocalFileContent, SeedEntry, EntrySource } from '../entry';
import { FileSystemCalls, isPromise } from '../file-system-calls';

/** A directory on a local (or mounted) file system: what `cp -r` and `rsync -r` copy. */
export class LocalDirectorySource implements EntrySource {
  private walk?: TreeWalk;

  constructor(private readonly dir: string) {}

  get description(): string {
    return this.dir;
  }

  get localDirectory(): string {
    return this.dir;
  }

  /** Known once the whole tree has been walked; the copy does not wait for it. */
  async totals() {
    return this.started().totals;
  }

  entries(): AsyncIterable<SeedEntry> {
    return this.started().entries();
  }

  private started(): TreeWalk {
    this.walk ??= new TreeWalk(this.dir);
    return this.walk;
  }
}

/**
 * Walks a tree once, handing out entries as they are found, so copying starts with the first
 * directory. While the source answers in microseconds it is read synchronously, with no promise per
 * entry; on a slow one (a network mount) every directory's entries are stat'ed in parallel.
 */
class TreeWalk {
  readonly totals: Promise<{ files: number; bytes: number }>;
  private readonly fast = new FileSystemCalls(FileSystemCalls.SOURCE);
  private readonly found: SeedEntry[] = [];
  private done = false;
  private failure?: Error;
  private wake?: () => void;

  constructor(private readonly root: string) {
    this.totals = this.run();
    this.totals.catch(() => undefined); // reported through entries()
  }

  async *entries(): AsyncIterable<SeedEntry> {
    for (let i = 0; ;) {
      if (i < this.found.length) {
        yield this.found[i++];
      } else if (this.failure) {
        throw this.failure;
      } else if (this.done) {
        return;
      } else {
        await new Promise<void>((resolve) => { this.wake = resolve; });
      }
    }
  }

  private async run(): Promise<{ files: number; bytes: number }> {
    try {
      const top = await stat(this.root).catch(() => undefined);
      if (!top?.isDirectory()) throw new Error(`the source ${this.root} is not a directory`);
      await this.visit('');
      return this.found.reduce((t, e) => (e.type === 'file' ? { files: t.files + 1, bytes: t.bytes + e.size } : t), { files: 0, bytes: 0 });
    } catch (err) {
      this.failure = err as Error;
      throw err;
    } finally {
      this.done = true;
      this.wake?.();
    }
  }

  private async visit(relative: string): Promise<void> {
    const dir = relative ? path.join(this.root, relative) : this.root;
    let names: string[];
    try {
      // Names only: the lstat every entry needs anyway says what it is.
      names = await this.fast.run(() => fs.readdirSync(dir), () => readdir(dir));
    } catch (err) {
      // The root's own failure ends the walk; a subdirectory's fails its entries alone.
      if (!relative) throw err;
      this.found.push({ type: 'failed', path: relative, reason: `cannot list the source directory: ${(err as Error).message}` });
      this.wake?.();
      return;
    }
    const entries = names.map((name) => this.entryOf(relative ? `${relative}/${name}` : name, `${dir}/${name}`));
    // While the source is fast every entry is known already; on a slow one, the lstats run in parallel.
    const known = entries.some(isPromise) ? await Promise.all(entries) : entries as SeedEntry[];
    const subdirectories: string[] = [];
    for (const entry of known) {
      this.found.push(entry);
      if (entry.type === 'directory') subdirectories.push(entry.path);
    }
    this.wake?.();
    await Promise.all(subdirectories.map((sub) => this.visit(sub)));
  }

  private entryOf(rel: string, full: string): SeedEntry | Promise<SeedEntry> {
    const failed = (err: Error): SeedEntry => ({ type: 'failed', path: rel, reason: `cannot read the source: ${err.message}` });
    const entry = (s: fs.Stats): SeedEntry | Promise<SeedEntry> => {
      if (s.isFile()) return new LocalFile(rel, full, s, this.fast);
      if (s.isDirectory()) return { type: 'directory', path: rel, mode: s.mode & 0o7777 };
      if (s.isSymbolicLink()) return readlink(full).then((target): SeedEntry => ({ type: 'symlink', path: rel, target, identity: LINK_IDENTITY + target }), failed);
      return { type: 'special', path: rel, kind: specialKind(s) }; // no content to copy
    };
    try {
      const stats = this.fast.run(() => fs.lstatSync(full), () => lstat(full));
      return isPromise(stats) ? stats.then(entry, failed) : entry(stats);
    } catch (err) {
      return failed(err as Error); // gone since the listing, say
    }
  }
}

/** A file of the tree; its content is read only when it is written. */
class LocalFile implements FileEntry {
  readonly type = 'file';
  readonly size: number;
  readonly mode: number;
  readonly identity: string;

  constructor(readonly path: string, private readonly full: string, stats: fs.Stats, private readonly calls: FileSystemCalls) {
    this.size = stats.size;
    this.mode = stats.mode & 0o7777;
    this.identity = `${stats.size}:${Math.trunc(stats.mtimeMs)}`;
  }

  /** Copied by the writer through a buffer it reuses, read with this source's calls (synchronous while it is fast). */
  async open(): Promise<FileContent> {
    return new LocalFileContent(this.full, this.size, this.calls);
  }
}

function specialKind(s: fs.Stats): string {
  if (s.isFIFO()) return 'FIFO';
  if (s.isSocket()) return 'socket';
  if (s.isCharacterDevice()) return 'character device';
  return 'block device';
}
