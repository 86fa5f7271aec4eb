import { pipeline, Readable } from 'stream';
import * as zlib from 'zlib';
import { LINK_IDENTITY, SeedEntry, EntrySource } from './entry';
import { SMALL_FILE_BYTES } from '../copy/copy';
import { ArchiveBudget, ArchiveLimitError, ArchiveLimits } from './archive-limits';
import { ByteStream } from './byte-stream';
import { TarMember, TarReader } from './tar-reader';

/** An opened archive: its bytes as a stream, and its size where known (for the compression ratio). */
export interface ArchiveStream {
  readonly stream: Readable;
  readonly bytes?: number;
}

/** Gunzipped in pieces this large: fewer turns of the reader per megabyte than zlib's 16 KiB. */
const GUNZIP_CHUNK_BYTES = 64 * 1024;

/**
 * A .tar or .tar.gz read as a stream, never held whole: small members are read into memory (so
 * many can be written in parallel, across directories), large ones stream straight to their file
 * while the archive waits. Every byte gunzipped counts against the archive's limits (padding and
 * skipped data too), and nothing after the end-of-archive marker is read (see TarReader).
 */
export class TarArchiveSource implements EntrySource {
  constructor(
    readonly description: string,
    private readonly open: () => Promise<ArchiveStream>,
    private readonly gzipped: boolean,
    private readonly limits: ArchiveLimits = {},
  ) {}

  async *entries(): AsyncIterable<SeedEntry> {
    const { stream, bytes } = await this.open();
    // A failure of either stream fails the other; once the reader stops, stopping the last stops both.
    const input: Readable = this.gzipped ? pipeline(stream, zlib.createGunzip({ chunkSize: GUNZIP_CHUNK_BYTES }), () => undefined) : stream;
    const budget = new ArchiveBudget(this.description, this.limits, bytes);
    let current = '';
    const reader = new TarReader(new ByteStream(input, (n) => budget.expand(current, n)));
    try {
      for (let member; (member = await this.read(() => reader.next()));) {
        current = member.name;
        budget.admit(member.name, member.type === 'file' && !member.problem ? member.size : 0);
        if (member.problem) yield { type: 'failed', path: member.name, reason: member.problem };
        else if (member.type === 'file') yield* this.file(member, reader);
        else yield entryOf(member);
      }
    } finally {
      // At the end-of-archive marker, or stopped: nothing more is read or gunzipped.
      input.destroy();
      stream.destroy();
    }
  }

  private async *file(member: TarMember, reader: TarReader): AsyncIterable<SeedEntry> {
    const { name, size, mode, mtimeMs } = member;
    const identity = `${size}:${mtimeMs}`;
    if (size <= SMALL_FILE_BYTES) {
      const content = await this.read(() => reader.readData());
      yield { type: 'file', path: name, size, mode, identity, inMemory: true, open: async () => content };
      return;
    }
    // The next member only arrives once this one has been written (or passed over): its data streams
    // from the archive. A member cut short fails its file (nothing is published), and then the archive.
    let done!: () => void;
    const passed = new Promise<void>((resolve) => { done = resolve; });
    let content: Readable | undefined;
    yield {
      type: 'file', path: name, size, mode, identity,
      open: async () => {
        content = Readable.from(reader.data(), { objectMode: false });
        // Closed once it has ended or been given up, when no read of it is in flight.
        content.once('close', done);
        return content;
      },
      // Given up before or after it was opened (a write that failed before reading it, say).
      discard: () => (content ? content.destroy() : done()),
    };
    await passed;
  }

  /** What the reader reads, its failures named for this archive (a tripped limit says which, as it is). */
  private async read<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (err) {
      if (err instanceof ArchiveLimitError) throw err;
      // The cause stays: S3 failing past its retries is not a broken archive (the CLI's exit code tells them apart).
      throw new Error(`${this.description} is not a readable ${this.gzipped ? '.tar.gz' : '.tar'} archive: ${(err as Error).message}`, { cause: err });
    }
  }
}

function entryOf(member: TarMember): SeedEntry {
  const { name: path, type, mode, linkname } = member;
  switch (type) {
    case 'directory': return { type: 'directory', path, mode };
    case 'symlink': return { type: 'symlink', path, target: linkname, identity: LINK_IDENTITY + linkname };
    case 'fifo': return { type: 'special', path, kind: 'FIFO' };
    case 'character-device': return { type: 'special', path, kind: 'character device' };
    case 'block-device': return { type: 'special', path, kind: 'block device' };
    case 'link': return { type: 'failed', path, reason: `hard links are not supported (it links to ${linkname})` };
    default: return { type: 'failed', path, reason: `members of type ${member.typeflag} are not supported` };
  }
}
