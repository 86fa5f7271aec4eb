import { Readable } from 'stream';
import type * as yauzl from 'yauzl';
import { DEFAULT_DIRECTORY_MODE, DEFAULT_FILE_MODE, LINK_IDENTITY, SeedEntry, EntrySource } from './entry';
import { MAX_LINK_TARGET_BYTES } from '../target/link-graph';
import { ArchiveBudget, ArchiveLimits } from './archive-limits';
import { fromRandomAccessReader, localFileReader, RangeReader } from './range-reader';
import { openNamedFile } from '../boundary/named-source';
import { directoryRecords, ZipRecord } from './zip-directory';
import { checkDirectorySize, readZipEnd, ZipEnd } from './zip-end';
import { readMember } from './zip-member';

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const SPECIAL_KINDS = new Map([[0o010000, 'FIFO'], [0o020000, 'character device'], [0o060000, 'block device'], [0o140000, 'socket']]);

/** A .zip file on disk. */
export async function openZipFile(file: string): Promise<RangeReader> {
  return localFileReader(await openNamedFile(file));
}

/** A .zip read through a yauzl reader (see S3BlockReader), `bytes` long. */
export async function openZipReader(reader: yauzl.RandomAccessReader, bytes: number): Promise<RangeReader> {
  return fromRandomAccessReader(reader, bytes);
}

/**
 * A .zip (zips need random access: the central directory is at the end), on disk or read in place
 * in S3. Its end record is read first: a zip that declares too many members is refused before its
 * directory is. The directory is then read twice, one record at a time, never held: once to count
 * what the members declare (a bomb is refused before anything is written, and the totals are
 * known), once to hand the members out. Members are read concurrently, each held to the size and
 * CRC-32 the directory declares for it.
 */
export class ZipArchiveSource implements EntrySource {
  private opened?: Promise<{ reader: RangeReader; end: ZipEnd }>;
  private surveyed?: Promise<{ files: number; bytes: number }>;

  constructor(readonly description: string, private readonly openZip: () => Promise<RangeReader>, private readonly limits: ArchiveLimits = {}) {}

  async totals() {
    return this.survey().catch(() => undefined);
  }

  async *entries(): AsyncIterable<SeedEntry> {
    const { reader, end } = await this.open();
    await this.survey();
    // Counted again as they are handed out: the limits hold even if the archive changed in between.
    const budget = new ArchiveBudget(this.description, this.limits, reader.size);
    for await (const record of this.records(reader, end)) {
      const { name, size, unixMode } = record;
      const isDirectory = name.endsWith('/');
      budget.admit(name, isDirectory ? 0 : size);
      budget.expand(name, isDirectory ? 0 : size);
      const mode = unixMode & 0o7777;
      const kind = unixMode & S_IFMT;
      if (isDirectory) {
        yield { type: 'directory', path: name, mode: mode || DEFAULT_DIRECTORY_MODE };
      } else if (kind === S_IFLNK) {
        yield await this.symlink(reader, end, record);
      } else if (SPECIAL_KINDS.has(kind)) {
        yield { type: 'special', path: name, kind: SPECIAL_KINDS.get(kind)! };
      } else {
        yield {
          type: 'file', path: name, size, mode: mode || DEFAULT_FILE_MODE,
          identity: `${size}:crc32:${record.crc32}`,
          open: () => readMember(reader, record, end.directoryOffset),
        };
      }
    }
  }

  /** Closes the archive; call once the seed is done with it. */
  async close(): Promise<void> {
    const opened = await this.opened?.catch(() => undefined);
    await opened?.reader.close();
  }

  /** A link's target is its content: never read more of it than a link can hold. */
  private async symlink(reader: RangeReader, end: ZipEnd, record: ZipRecord): Promise<SeedEntry> {
    const { name: path, size } = record;
    if (size > MAX_LINK_TARGET_BYTES) return { type: 'failed', path, reason: `the link target is ${size} bytes, longer than ${MAX_LINK_TARGET_BYTES} (Linux's limit)` };
    try {
      const target = (await readAll(await readMember(reader, record, end.directoryOffset))).toString('utf8');
      return { type: 'symlink', path, target, identity: LINK_IDENTITY + target };
    } catch (err) {
      return { type: 'failed', path, reason: (err as Error).message };
    }
  }

  /** The first pass over the directory: what the members declare, against the limits. */
  private survey() {
    this.surveyed ??= (async () => {
      const { reader, end } = await this.open();
      const budget = new ArchiveBudget(this.description, this.limits, reader.size);
      let files = 0;
      let bytes = 0;
      for await (const { name, size } of this.records(reader, end)) {
        const declared = name.endsWith('/') ? 0 : size;
        budget.admit(name, declared);
        budget.expand(name, declared);
        if (!name.endsWith('/')) {
          files++;
          bytes += size;
        }
      }
      return { files, bytes };
    })();
    return this.surveyed;
  }

  private open() {
    this.opened ??= (async () => {
      const reader = await this.openZip().catch((err: Error) => { throw this.unreadable(err); });
      try {
        const end = await readZipEnd(reader).catch((err: Error) => { throw this.unreadable(err); });
        new ArchiveBudget(this.description, this.limits, reader.size).declareMembers(end.entries);
        try {
          checkDirectorySize(end);
        } catch (err) {
          throw this.unreadable(err as Error);
        }
        return { reader, end };
      } catch (err) {
        await reader.close();
        throw err;
      }
    })();
    return this.opened;
  }

  private async *records(reader: RangeReader, end: ZipEnd): AsyncGenerator<ZipRecord> {
    try {
      yield* directoryRecords(reader, end);
    } catch (err) {
      throw this.unreadable(err as Error);
    }
  }

  private unreadable(err: Error): Error {
    // The cause stays: S3 failing past its retries is not a broken archive (the CLI's exit code tells them apart).
    return new Error(`${this.description} is not a readable .zip archive: ${err.message}`, { cause: err });
  }
}

async function readAll(content: Buffer | Readable): Promise<Buffer> {
  if (Buffer.isBuffer(content)) return content;
  const chunks: Buffer[] = [];
  for await (const chunk of content) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
