import * as fs from 'fs';
import { promisify } from 'util';
import * as yauzl from 'yauzl';
import { Readable } from 'stream';
import { DEFAULT_DIRECTORY_MODE, DEFAULT_FILE_MODE, LINK_IDENTITY, SeedEntry, EntrySource } from '../entry';
import { MAX_LINK_TARGET_BYTES } from '../safety';
import { ArchiveBudget, ArchiveLimits } from './archive-limits';

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const SPECIAL_KINDS = new Map([[0o010000, 'FIFO'], [0o020000, 'character device'], [0o060000, 'block device'], [0o140000, 'socket']]);

/** A zip opened by yauzl (from a file, or a reader of an S3 object), and its size in bytes. */
export interface OpenedZip {
  readonly zip: yauzl.ZipFile;
  readonly bytes: number;
}

const ZIP_OPTIONS: yauzl.Options = { lazyEntries: true, autoClose: false, validateEntrySizes: true, decodeStrings: false };

/** A .zip file on disk. */
export async function openZipFile(file: string): Promise<OpenedZip> {
  const zip = await promisify(yauzl.open as (file: string, options: yauzl.Options, cb: (err: Error | null, zip: yauzl.ZipFile) => void) => void)(file, ZIP_OPTIONS);
  return { zip, bytes: (await fs.promises.stat(file)).size };
}

/** A .zip read through `reader` (see S3BlockReader), `bytes` long. */
export async function openZipReader(reader: yauzl.RandomAccessReader, bytes: number): Promise<OpenedZip> {
  const fromReader = promisify(yauzl.fromRandomAccessReader as (r: yauzl.RandomAccessReader, size: number, options: yauzl.Options, cb: (err: Error | null, zip: yauzl.ZipFile) => void) => void);
  return { zip: await fromReader(reader, bytes, ZIP_OPTIONS), bytes };
}

/**
 * A .zip (zips need random access: the central directory is at the end), on disk or read in place
 * in S3. Members are read concurrently; yauzl checks every member's size and CRC against the
 * directory.
 */
export class ZipArchiveSource implements EntrySource {
  private opened?: Promise<{ zip: yauzl.ZipFile; entries: yauzl.Entry[]; bytes: number }>;

  constructor(readonly description: string, private readonly openZip: () => Promise<OpenedZip>, private readonly limits: ArchiveLimits = {}) {}

  async totals() {
    const { entries } = await this.open();
    const files = entries.filter((e) => !nameOf(e).endsWith('/'));
    return { files: files.length, bytes: files.reduce((sum, e) => sum + e.uncompressedSize, 0) };
  }

  async *entries(): AsyncIterable<SeedEntry> {
    const { zip, entries, bytes } = await this.open();
    // The central directory declares every member up front: a bomb is refused before anything is written.
    const budget = new ArchiveBudget(this.description, this.limits, bytes);
    const named = entries.map((entry) => ({ entry, name: nameOf(entry) }));
    for (const { entry, name } of named) budget.admit(name, name.endsWith('/') ? 0 : entry.uncompressedSize);
    const openRaw = promisify(zip.openReadStream.bind(zip)) as (entry: yauzl.Entry) => Promise<Readable>;
    // The reader sees a member's error through its iterator; yauzl's inner pipe may emit it once
    // more after the reader has gone, which must not crash the process.
    const openStream = async (entry: yauzl.Entry) => (await openRaw(entry)).on('error', () => undefined);
    for (const { entry, name } of named) {
      const unixMode = (entry.externalFileAttributes >>> 16) & 0xffff;
      const mode = unixMode & 0o7777;
      const kind = unixMode & S_IFMT;
      if (name.endsWith('/')) {
        yield { type: 'directory', path: name, mode: mode || DEFAULT_DIRECTORY_MODE };
      } else if (kind === S_IFLNK) {
        // A link's target is its content: never read more of it than a link can hold.
        if (entry.uncompressedSize > MAX_LINK_TARGET_BYTES) {
          yield { type: 'failed', path: name, reason: `the link target is ${entry.uncompressedSize} bytes, longer than ${MAX_LINK_TARGET_BYTES} (Linux's limit)` };
          continue;
        }
        const target = (await readAll(await openStream(entry))).toString('utf8');
        yield { type: 'symlink', path: name, target, identity: LINK_IDENTITY + target };
      } else if (SPECIAL_KINDS.has(kind)) {
        yield { type: 'special', path: name, kind: SPECIAL_KINDS.get(kind)! };
      } else {
        yield {
          type: 'file', path: name, size: entry.uncompressedSize, mode: mode || DEFAULT_FILE_MODE,
          identity: `${entry.uncompressedSize}:crc32:${entry.crc32}`,
          open: () => openStream(entry),
        };
      }
    }
  }

  /** Closes the archive; call once the seed is done with it. */
  async close(): Promise<void> {
    if (this.opened) (await this.opened).zip.close();
  }

  private open() {
    this.opened ??= (async () => {
      const { zip, bytes } = await this.openZip()
        .catch((err: Error) => { throw new Error(`${this.description} is not a readable .zip archive: ${err.message}`); });
      const entries: yauzl.Entry[] = [];
      await new Promise<void>((resolve, reject) => {
        zip.on('entry', (entry: yauzl.Entry) => { entries.push(entry); zip.readEntry(); });
        zip.on('end', resolve);
        zip.on('error', (err: Error) => reject(new Error(`${this.description} is not a readable .zip archive: ${err.message}`)));
        zip.readEntry();
      });
      return { zip, entries, bytes };
    })();
    return this.opened;
  }
}

/**
 * yauzl would reject a whole archive for one bad name; we decode names ourselves and refuse the bad
 * entries one by one (bit 11 of the flags marks UTF-8, the rest is CP437, ~latin1).
 */
function nameOf(entry: yauzl.Entry): string {
  return (entry.fileName as unknown as Buffer).toString(entry.generalPurposeBitFlag & 0x800 ? 'utf8' : 'latin1');
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
