import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { SeedEntry, SeedSource } from '../entry';
import { SMALL_FILE_BYTES } from '../engine';

const readFile = promisify(fs.readFile);

/** A directory on a local (or mounted) file system: what `cp -r` and `rsync -r` copy. */
export class LocalDirectorySource implements SeedSource {
  private listing?: Promise<SeedEntry[]>;

  constructor(private readonly dir: string) {}

  get description(): string {
    return this.dir;
  }

  async totals() {
    const entries = await this.list();
    const files = entries.filter((e) => e.type === 'file');
    return { files: files.length, bytes: files.reduce((sum, e) => sum + (e.type === 'file' ? e.size : 0), 0) };
  }

  async *entries(): AsyncIterable<SeedEntry> {
    yield* await this.list();
  }

  private list(): Promise<SeedEntry[]> {
    this.listing ??= this.walk();
    return this.listing;
  }

  /** Walks the tree with every directory's entries stat'ed in parallel (the source may be a network mount too). */
  private async walk(): Promise<SeedEntry[]> {
    const stat = await fs.promises.stat(this.dir).catch(() => undefined);
    if (!stat?.isDirectory()) throw new Error(`the source ${this.dir} is not a directory`);
    const out: SeedEntry[] = [];
    const visit = async (relative: string): Promise<void> => {
      const dir = path.join(this.dir, relative);
      const dirents = await fs.promises.readdir(dir, { withFileTypes: true });
      await Promise.all(dirents.map(async (dirent) => {
        const rel = relative ? `${relative}/${dirent.name}` : dirent.name;
        const full = path.join(dir, dirent.name);
        if (dirent.isDirectory()) {
          out.push({ type: 'directory', path: rel, mode: (await fs.promises.stat(full)).mode & 0o7777 });
          await visit(rel);
        } else if (dirent.isSymbolicLink()) {
          const target = await fs.promises.readlink(full);
          out.push({ type: 'symlink', path: rel, target, identity: `link:${target}` });
        } else if (dirent.isFile()) {
          const s = await fs.promises.stat(full);
          out.push({
            type: 'file', path: rel, size: s.size, mode: s.mode & 0o7777, identity: `${s.size}:${Math.trunc(s.mtimeMs)}`,
            // Small files in one read; large ones streamed, so memory stays bounded.
            open: async () => (s.size <= SMALL_FILE_BYTES ? readFile(full) : fs.createReadStream(full, { highWaterMark: 1024 * 1024 })),
          });
        }
        // Sockets, FIFOs and devices have no content to copy.
      }));
    };
    await visit('');
    return out;
  }
}
