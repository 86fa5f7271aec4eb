import { Readable } from 'stream';
import * as zlib from 'zlib';
import * as tar from 'tar-stream';
import { DEFAULT_DIRECTORY_MODE, DEFAULT_FILE_MODE, LINK_IDENTITY, SeedEntry, EntrySource } from '../entry';
import { SMALL_FILE_BYTES } from '../copy';
import { ArchiveBudget, ArchiveLimits } from './archive-limits';
import { TarNameWatch } from './tar-name-watch';

/** An opened archive: its bytes as a stream, and its size where known (for the compression ratio). */
export interface ArchiveStream {
  readonly stream: Readable;
  readonly bytes?: number;
}

/**
 * A .tar or .tar.gz read as a stream, never held whole: small members are read into memory (so
 * many can be written in parallel, across directories), large ones stream straight to their file
 * while the archive waits.
 */
export class TarArchiveSource implements EntrySource {
  constructor(
    readonly description: string,
    private readonly open: () => Promise<ArchiveStream>,
    private readonly gzipped: boolean,
    private readonly limits: ArchiveLimits = {},
  ) {}

  async *entries(): AsyncIterable<SeedEntry> {
    const extract = tar.extract();
    const broken = (err: Error) => extract.destroy(new Error(`${this.description} is not a readable ${this.gzipped ? '.tar.gz' : '.tar'} archive: ${err.message}`));
    const { stream, bytes } = await this.open();
    const input = stream.on('error', broken);
    const decompressed = this.gzipped ? input.pipe(zlib.createGunzip().on('error', broken)) : input;
    const names = new TarNameWatch();
    decompressed.pipe(names).pipe(extract as unknown as NodeJS.WritableStream);
    const budget = new ArchiveBudget(this.description, this.limits, bytes);

    for await (const entry of extract) {
      // tar-stream's members are streamx streams: async-iterable like Node's.
      const member = entry as unknown as Readable;
      const h = entry.header;
      const mode = h.mode !== undefined ? h.mode & 0o7777 : undefined;
      const isFile = h.type === 'file' || h.type === 'contiguous-file';
      const size = isFile ? h.size ?? 0 : 0;
      if (names.hidden.shift()) {
        member.resume();
        yield { type: 'failed', path: h.name, reason: 'a name in its header goes on after a NUL byte, which would cut it short' };
        continue;
      }
      try {
        budget.admit(h.name, size);
      } catch (err) {
        extract.destroy();
        throw err;
      }
      if (isFile && size <= SMALL_FILE_BYTES) {
        const identity = `${size}:${h.mtime?.getTime() ?? 0}`;
        const content = await readAll(member);
        yield { type: 'file', path: h.name, size, mode: mode ?? DEFAULT_FILE_MODE, identity, inMemory: true, open: async () => content };
        continue;
      }
      if (isFile) {
        const identity = `${size}:${h.mtime?.getTime() ?? 0}`;
        yield { type: 'file', path: h.name, size, mode: mode ?? DEFAULT_FILE_MODE, identity, open: async () => member, discard: () => member.resume() };
        // The next member only arrives once this one has been written (or discarded).
        await new Promise((resolve) => { member.once('end', resolve); member.once('close', resolve); });
        continue;
      }
      member.resume();
      if (h.type === 'directory') yield { type: 'directory', path: h.name, mode: mode ?? DEFAULT_DIRECTORY_MODE };
      else if (h.type === 'symlink') yield { type: 'symlink', path: h.name, target: h.linkname ?? '', identity: LINK_IDENTITY + (h.linkname ?? '') };
      else if (SPECIAL_KINDS[h.type ?? '']) yield { type: 'special', path: h.name, kind: SPECIAL_KINDS[h.type!] };
      else yield { type: 'failed', path: h.name, reason: h.type === 'link' ? `hard links are not supported (it links to ${h.linkname})` : `members of type ${h.type} are not supported` };
    }
  }
}

const SPECIAL_KINDS: Record<string, string> = { 'fifo': 'FIFO', 'character-device': 'character device', 'block-device': 'block device' };

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
