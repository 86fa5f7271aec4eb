import type { FileHandle } from 'fs/promises';
import { Readable } from 'stream';
import { promisify } from 'util';
import type * as yauzl from 'yauzl';

/** An archive read by ranges where it lies (a zip on disk, or in S3): the zip reader's only way in. */
export interface RangeReader {
  readonly size: number;
  /** Exactly `length` bytes at `position`; fails if the archive ends first. */
  read(position: number, length: number): Promise<Buffer>;
  /** The bytes from `start` up to `end`, streamed; destroying the stream stops the reads. */
  stream(start: number, end: number): Readable;
  /** Releases the archive once every read has settled. */
  close(): Promise<void>;
}

/** Streams read a local file in pieces of this size. */
const STREAM_PIECE_BYTES = 256 * 1024;

/** A local file, read through `handle` (closed with the reader); closing waits for reads in flight, so none ever reads a reused descriptor. */
export async function localFileReader(handle: FileHandle): Promise<RangeReader> {
  const { size } = await handle.stat().catch(async (err) => {
    await handle.close();
    throw err;
  });
  const readAt = async (position: number, length: number) => {
    const bytes = Buffer.allocUnsafe(length);
    for (let at = 0; at < length;) {
      const { bytesRead } = await handle.read(bytes, at, length - at, position + at);
      if (bytesRead === 0) throw new Error(`the file ends at ${position + at} bytes, before ${position + length}`);
      at += bytesRead;
    }
    return bytes;
  };
  return {
    size,
    read: readAt,
    stream(start, end) {
      // Destroyed, it stops once the read in flight is done (no read is left queued for a stream that is gone).
      return Readable.from((async function* pieces() {
        for (let at = start; at < end; at += STREAM_PIECE_BYTES) yield await readAt(at, Math.min(STREAM_PIECE_BYTES, end - at));
      })(), { objectMode: false });
    },
    close: () => handle.close(),
  };
}

/** A yauzl reader (see S3BlockReader), `size` bytes long. */
export function fromRandomAccessReader(reader: yauzl.RandomAccessReader, size: number): RangeReader {
  const readInto = promisify(reader.read.bind(reader)) as (buffer: Buffer, offset: number, length: number, position: number) => Promise<void>;
  return {
    size,
    async read(position, length) {
      if (position + length > size) throw new Error(`the object ends at ${size} bytes, before ${position + length}`);
      const bytes = Buffer.allocUnsafe(length);
      if (length > 0) await readInto(bytes, 0, length, position);
      return bytes;
    },
    stream: (start, end) => reader.createReadStream({ start, end }),
    // Nothing to release: the reader holds no descriptor (its blocks go with it).
    close: async () => undefined,
  };
}
