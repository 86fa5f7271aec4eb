import { Readable } from 'stream';
import * as zlib from 'zlib';
import * as tar from 'tar-stream';
import { DEFAULT_DIRECTORY_MODE, DEFAULT_FILE_MODE, SeedEntry, SeedSource } from '../entry';
import { SMALL_FILE_BYTES } from '../engine';
import { ArchiveBudget, ArchiveLimits } from './archive-limits';

/**
 * A .tar or .tar.gz read as a stream, never held whole: small members are read into memory (so
 * many can be written in parallel, across directories), large ones stream straight to their file
 * while the archive waits.
 */
export class TarArchiveSource implements SeedSource {
  constructor(
    readonly description: string,
    private readonly open: () => Promise<Readable>,
    private readonly gzipped: boolean,
    private readonly limits: ArchiveLimits = {},
  ) {}

  async *entries(): AsyncIterable<SeedEntry> {
    const extract = tar.extract();
    const broken = (err: Error) => extract.destroy(new Error(`${this.description} is not a readable ${this.gzipped ? '.tar.gz' : '.tar'} archive: ${err.message}`));
    const input = (await this.open()).on('error', broken);
    const decompressed = this.gzipped ? input.pipe(zlib.createGunzip().on('error', broken)) : input;
    decompressed.pipe(extract as unknown as NodeJS.WritableStream);
    const budget = new ArchiveBudget(this.limits);

    for await (const entry of extract) {
      // tar-stream's members are streamx streams: async-iterable like Node's.
      const member = entry as unknown as Readable;
      const h = entry.header;
      const mode = h.mode !== undefined ? h.mode & 0o7777 : undefined;
      if (h.type === 'directory') {
        member.resume();
        yield { type: 'directory', path: h.name, mode: mode ?? DEFAULT_DIRECTORY_MODE };
      } else if (h.type === 'symlink') {
        member.resume();
        yield { type: 'symlink', path: h.name, target: h.linkname ?? '', identity: `link:${h.linkname}` };
      } else if (h.type === 'file' || h.type === 'contiguous-file') {
        const size = h.size ?? 0;
        const identity = `${size}:${h.mtime?.getTime() ?? 0}`;
        const refusal = budget.refusal(size);
        if (refusal) {
          member.resume();
          yield refused(h.name, size, refusal);
        } else if (size <= SMALL_FILE_BYTES) {
          const content = await readAll(member);
          yield { type: 'file', path: h.name, size, mode: mode ?? DEFAULT_FILE_MODE, identity, inMemory: true, open: async () => content };
        } else {
          yield { type: 'file', path: h.name, size, mode: mode ?? DEFAULT_FILE_MODE, identity, open: async () => member, discard: () => member.resume() };
          // The next member only arrives once this one has been written (or discarded).
          await new Promise((resolve) => { member.once('end', resolve); member.once('close', resolve); });
        }
      } else {
        member.resume();
        yield refused(h.name, 0, h.type === 'link'
          ? `hard links are not supported (it links to ${h.linkname})`
          : `members of type ${h.type} are not supported`);
      }
    }
  }
}

/** A member the engine reports as failed, with the reason, without writing anything. */
function refused(name: string, size: number, reason: string): SeedEntry {
  return { type: 'file', path: name, size, mode: DEFAULT_FILE_MODE, identity: 'refused', open: () => Promise.reject(new Error(reason)) };
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
