import { Readable } from 'stream';
import { read } from '../shared/fs-calls';
import { FileContent, LocalFileContent } from '../seed/sources/entry';
import { closeSourceFile, openSourceFile } from '../seed/sources/source-file';

/** What a file's content is sent to S3 as: bytes in memory (one PutObject), or a stream (lib-storage's Upload, multipart when large). */
export type ObjectBody = { readonly bytes: Buffer } | { readonly stream: Readable };

/** Bodies of up to this many bytes (a local file, an archive member, an S3 object) are read whole and sent in one PutObject (S3's own limit is 5 GiB). */
export const INLINE_BYTES = 8 * 1024 * 1024;

const CHUNK_BYTES = 1024 * 1024;

/**
 * The body of a file whose content is `content` and whose source said it has `size` bytes. A local
 * file is opened beneath the held source root by the EFS seed's own opener (never through a link;
 * see lambda/seed/sources/source-file.ts) and read through its descriptor, up to the size its fstat
 * gave; a size other than the walk's fails it, naming it, as on EFS.
 */
export async function objectBody(path: string, content: FileContent, size: number): Promise<ObjectBody> {
  if (Buffer.isBuffer(content)) return { bytes: content };
  if (!(content instanceof LocalFileContent)) return size <= INLINE_BYTES ? { bytes: await collect(path, content, size) } : { stream: content };
  const opened = await openSourceFile(content);
  if (opened.size !== size) {
    closeSourceFile(content, opened.fd);
    throw new Error(`${path}: the source file is ${opened.size} bytes now, ${size} when it was listed (it changed during the seed); not written`);
  }
  if (size <= INLINE_BYTES) {
    try {
      const bytes = Buffer.allocUnsafe(size);
      for (let at = 0; at < size;) {
        const n = await read(opened.fd, bytes.subarray(at), at);
        if (n === 0) throw new Error(`${path}: the source file ended at ${at} of its ${size} bytes (it changed during the seed); not written`);
        at += n;
      }
      return { bytes };
    } finally {
      closeSourceFile(content, opened.fd);
    }
  }
  return { stream: Readable.from(chunks(path, content, opened.fd, size), { objectMode: false }) };
}

/** The file's bytes in chunks of 1 MiB, up to `size`; the descriptor is closed when the stream ends or is given up. */
async function* chunks(path: string, content: LocalFileContent, fd: number, size: number): AsyncGenerator<Buffer> {
  try {
    for (let at = 0; at < size;) {
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - at));
      const n = await read(fd, buffer, at);
      if (n === 0) throw new Error(`${path}: the source file ended at ${at} of its ${size} bytes (it changed during the seed)`);
      at += n;
      yield n === buffer.length ? buffer : buffer.subarray(0, n);
    }
  } finally {
    closeSourceFile(content, fd);
  }
}

/** A small member's stream, read whole (so that its PutObject can be retried), and no more than its declared size. */
async function collect(path: string, stream: Readable, size: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      total += (chunk as Buffer).length;
      if (total > size) throw new Error(`${path}: the source holds more than the ${size} bytes it declared; not written`);
      parts.push(chunk as Buffer);
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(parts, total);
}
