import * as fs from 'fs';
import * as path from 'path';
import { readdir, readFile, readlink, stat } from '../../shared/fs-calls';
import { MiB } from '../../shared/sizes';
import { SeedEntry, SeedSource } from '../entry';
import { SMALL_FILE_BYTES } from '../engine';
import { WhileFast } from './while-fast';


/** Files up to this size are read in one synchronous call while the source answers fast. */
const SYNC_READ_BYTES = 64 * 1024;

/** A directory on a local (or mounted) file system: what `cp -r` and `rsync -r` copy. */
export class LocalDirectorySource implements SeedSource {
  private walk?: TreeWalk;

  constructor(private readonly dir: string) {}

  get description(): string {
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
 * Walks a tree once, every directory's entries stat'ed in parallel (the source may be a network
 * mount too), handing out entries as they are found, so copying starts with the first directory.
 */
class TreeWalk {
  readonly totals: Promise<{ files: number; bytes: number }>;
  private readonly fast = new WhileFast();
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
    const dir = path.join(this.root, relative);
    const dirents = await readdir(dir, { withFileTypes: true });
    const subdirectories: string[] = [];
    const entries = await Promise.all(dirents.map(async (dirent): Promise<SeedEntry | undefined> => {
      const rel = relative ? `${relative}/${dirent.name}` : dirent.name;
      const full = path.join(dir, dirent.name);
      if (dirent.isDirectory()) {
        subdirectories.push(rel);
        return { type: 'directory', path: rel, mode: (await stat(full)).mode & 0o7777 };
      }
      if (dirent.isSymbolicLink()) {
        const target = await readlink(full);
        return { type: 'symlink', path: rel, target, identity: `link:${target}` };
      }
      if (!dirent.isFile()) return undefined; // sockets, FIFOs and devices have no content to copy
      const s = await this.fast.run(() => fs.statSync(full), () => stat(full));
      return {
        type: 'file', path: rel, size: s.size, mode: s.mode & 0o7777, identity: `${s.size}:${Math.trunc(s.mtimeMs)}`,
        // Small files in one read; large ones streamed, so memory stays bounded.
        open: async () => {
          if (s.size <= SYNC_READ_BYTES) return this.fast.run(() => fs.readFileSync(full), () => readFile(full));
          return s.size <= SMALL_FILE_BYTES ? readFile(full) : fs.createReadStream(full, { highWaterMark: MiB });
        },
      };
    }));
    for (const entry of entries) if (entry) this.found.push(entry);
    this.wake?.();
    await Promise.all(subdirectories.map((sub) => this.visit(sub)));
  }
}
