import * as fs from 'fs';
import { close } from '../../shared/fs-calls';
import { FileContent, FileEntry, LINK_IDENTITY, LocalFileContent, SeedEntry, EntrySource } from './entry';
import { FileSystemCalls, isPromise } from '../boundary/file-system-calls';
import { BeneathOpener } from '../boundary/open-beneath';
import { Directory, HeldName } from '../boundary/held-name';
import { openNamedDirectory } from '../boundary/named-source';
import { checkProcFd } from '../boundary/target-tree';

/**
 * A directory on a local (or mounted) file system: what `cp -r` and `rsync -r` copy. The caller names
 * its root (through links, as with cp), which is opened once and held; everything below is reached
 * from that descriptor only, never by a path: each directory is opened beneath the root (see
 * BeneathOpener) and listed and lstat'ed through its own descriptor, each file opened beneath the
 * root when it is copied. Whoever can write the source may change it during the run; what the seed
 * reads stays inside it: a directory swapped for a link fails that entry, named, and nothing is read
 * through it.
 */
export class LocalDirectorySource implements EntrySource {
  private walk?: TreeWalk;
  private rootFd?: number;

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

  /** Lets the held root go (once the copy is over: copy workers read through it). */
  async close(): Promise<void> {
    const fd = this.rootFd;
    this.rootFd = undefined;
    if (fd !== undefined) await close(fd).catch(() => undefined);
  }

  private started(): TreeWalk {
    if (!this.walk) {
      try {
        this.rootFd = openNamedDirectory(this.dir);
        this.walk = new TreeWalk(this.rootFd);
      } catch (err) {
        // Reported through entries(), as any failure of the walk.
        const { code } = err as NodeJS.ErrnoException;
        this.walk = new TreeWalk(-1, code === 'ENOTDIR' || code === 'ENOENT' ? new Error(`the source ${this.dir} is not a directory`) : err as Error);
      }
    }
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
  private readonly opener = BeneathOpener.shared();
  private readonly found: SeedEntry[] = [];
  private done = false;
  private failure?: Error;
  private wake?: () => void;

  /** @param rootFd the held source root (-1 where it could not be opened: `openFailure` says why) */
  constructor(private readonly rootFd: number, openFailure?: Error) {
    this.totals = this.run(openFailure);
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

  private async run(openFailure?: Error): Promise<{ files: number; bytes: number }> {
    try {
      if (openFailure) throw openFailure;
      if (!this.fast.byDescriptor) await checkProcFd(this.fast, this.rootFd);
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

  /** Lists the directory `relative` through a descriptor opened beneath the root, then its subdirectories. */
  private async visit(relative: string): Promise<void> {
    let dirFd: number;
    let names: string[];
    try {
      dirFd = relative ? await this.fast.call(() => this.opener.openSync(this.rootFd, relative, OPEN_DIRECTORY), () => this.opener.open(this.rootFd, relative, OPEN_DIRECTORY)) : this.rootFd;
    } catch (err) {
      this.fail(relative, linkRefusal(err as NodeJS.ErrnoException) ?? `cannot list the source directory: ${(err as Error).message}`);
      return;
    }
    const dir = new Directory(dirFd);
    let known: SeedEntry[];
    try {
      try {
        // Names only: the lstat every entry needs anyway says what it is.
        names = (await this.fast.readdirRun(dir.self)).map((dirent) => dirent.name);
      } catch (err) {
        // The root's own failure ends the walk; a subdirectory's fails its entries alone.
        if (!relative) throw err;
        this.fail(relative, `cannot list the source directory: ${(err as Error).message}`);
        return;
      }
      const entries = names.map((name) => this.entryOf(relative ? `${relative}/${name}` : name, dir.at(name)));
      // While the source is fast every entry is known already; on a slow one, the lstats run in parallel.
      known = entries.some(isPromise) ? await Promise.all(entries) : entries as SeedEntry[];
    } finally {
      if (dirFd !== this.rootFd) this.fast.now(() => this.opener.close(dirFd));
    }
    const subdirectories: string[] = [];
    for (const entry of known) {
      this.found.push(entry);
      if (entry.type === 'directory') subdirectories.push(entry.path);
    }
    this.wake?.();
    await Promise.all(subdirectories.map((sub) => this.visit(sub)));
  }

  private fail(relative: string, reason: string): void {
    this.found.push({ type: 'failed', path: relative, reason });
    this.wake?.();
  }

  /**
   * `rel`'s entry, from an lstat of `held` (its name through its directory's descriptor). Its helpers
   * are methods, not closures made per entry (the bundle names each closure it makes, per file).
   */
  private entryOf(rel: string, held: HeldName): SeedEntry | Promise<SeedEntry> {
    try {
      const stats = this.fast.lstatRun(held);
      return isPromise(stats) ? stats.then((s) => this.entryFrom(rel, held, s), (err: Error) => unreadable(rel, err)) : this.entryFrom(rel, held, stats);
    } catch (err) {
      return unreadable(rel, err as Error); // gone since the listing, say
    }
  }

  private entryFrom(rel: string, held: HeldName, s: fs.Stats): SeedEntry | Promise<SeedEntry> {
    if (s.isFile()) return new LocalFile(rel, this.rootFd, s, this.fast);
    if (s.isDirectory()) return { type: 'directory', path: rel, mode: s.mode & 0o7777 };
    if (s.isSymbolicLink()) return this.fast.readlink(held).then((target): SeedEntry => ({ type: 'symlink', path: rel, target, identity: LINK_IDENTITY + target }), (err: Error) => unreadable(rel, err));
    return { type: 'special', path: rel, kind: specialKind(s) }; // no content to copy
  }
}

const unreadable = (rel: string, err: Error): SeedEntry => ({ type: 'failed', path: rel, reason: `cannot read the source: ${err.message}` });

/** A source directory, opened to be listed; never through a link (the opener adds O_NOFOLLOW). */
const OPEN_DIRECTORY = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY;

/** The failure of a directory the opener refused because a link is on its path; undefined for any other. */
function linkRefusal(err: NodeJS.ErrnoException): string | undefined {
  if (err.code !== 'ELOOP' && err.code !== 'EXDEV' && err.code !== 'ENOTDIR') return undefined;
  return `not copied: on the source it is reached through a symlink or is no longer a directory (${err.code}; replaced since it was listed), and a seed never follows one; nothing outside the source is read`;
}

/** A file of the tree; its content is read only when it is written. */
class LocalFile implements FileEntry {
  readonly type = 'file';
  readonly size: number;
  readonly mode: number;
  readonly identity: string;

  constructor(readonly path: string, private readonly root: number, stats: fs.Stats, private readonly calls: FileSystemCalls) {
    this.size = stats.size;
    this.mode = stats.mode & 0o7777;
    this.identity = `${stats.size}:${Math.trunc(stats.mtimeMs)}`;
  }

  /** Opened beneath the root by the writer, and copied through a buffer it reuses, read with this source's calls (synchronous while it is fast). */
  async open(): Promise<FileContent> {
    return new LocalFileContent(this.root, this.path, this.size, this.calls);
  }
}

function specialKind(s: fs.Stats): string {
  if (s.isFIFO()) return 'FIFO';
  if (s.isSocket()) return 'socket';
  if (s.isCharacterDevice()) return 'character device';
  return 'block device';
}
