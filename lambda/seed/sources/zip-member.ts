import { pipeline, Readable, Transform, TransformCallback } from 'stream';
import { promisify } from 'util';
import * as zlib from 'zlib';
import { crc32 } from './crc32';
import type { RangeReader } from './range-reader';
import type { ZipRecord } from './zip-directory';

const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const LOCAL_HEADER_BYTES = 30;
const STORED = 0;
const DEFLATED = 8;
/** Members up to this size, compressed and not, are read with one read and inflated whole: a buffer a copy worker can take. */
export const WHOLE_MEMBER_BYTES = 256 * 1024;
/** Local extra fields are usually the directory's, or a little longer (times, Zip64 sizes): read this much more with a small member. */
const LOCAL_EXTRA_SLACK = 1024;

const inflateRaw = promisify(zlib.inflateRaw) as (data: Buffer, options: zlib.ZlibOptions) => Promise<Buffer>;

/**
 * A member's content, checked against what the central directory declares: its length (a member
 * that holds more is stopped as soon as it does, so a lie cannot make it expand further) and its
 * CRC-32. A member that fails a check fails alone, with a message that says which check.
 * `dataLimit` is where members' data must end (the start of the central directory).
 */
export async function readMember(reader: RangeReader, record: ZipRecord, dataLimit: number): Promise<Buffer | Readable> {
  const { flags, method, size, compressedSize } = record;
  if (flags & 0x41) throw new Error('the member is encrypted: the seed cannot read it');
  if (method !== STORED && method !== DEFLATED) throw new Error(`the member is compressed with method ${method}; the seed reads stored (0) and deflated (8) members`);
  if (method === STORED && compressedSize !== size) throw new Error(holdsOtherThanDeclared(size, compressedSize));
  if (size <= WHOLE_MEMBER_BYTES && compressedSize <= WHOLE_MEMBER_BYTES) return readWhole(reader, record, dataLimit);
  const start = await dataStart(reader, record, dataLimit);
  const raw = reader.stream(start, start + compressedSize);
  const check = new LengthAndCrcCheck(record);
  if (method === STORED) return pipeline(raw, check, ignore);
  const inflate = zlib.createInflateRaw();
  // Registered before the pipeline's own handler: the member fails with this message, not zlib's alone.
  inflate.once('error', (err) => check.destroy(damaged(err)));
  return pipeline(raw, inflate, check, ignore);
}

/** A small member: its local header and data in one read, inflated at most one byte past its declared size. */
async function readWhole(reader: RangeReader, record: ZipRecord, dataLimit: number): Promise<Buffer> {
  const { localHeaderOffset, compressedSize, size, method } = record;
  const guess = Math.min(dataLimit, localHeaderOffset + LOCAL_HEADER_BYTES + Buffer.byteLength(record.name) + LOCAL_EXTRA_SLACK + compressedSize);
  let bytes = await reader.read(localHeaderOffset, Math.max(LOCAL_HEADER_BYTES, guess - localHeaderOffset));
  const start = dataStartIn(bytes, record, dataLimit) - localHeaderOffset;
  if (start + compressedSize > bytes.length) bytes = Buffer.concat([bytes, await reader.read(localHeaderOffset + bytes.length, start + compressedSize - bytes.length)]);
  const data = bytes.subarray(start, start + compressedSize);
  let content: Buffer = data;
  if (method === DEFLATED) {
    content = await inflateRaw(data, { maxOutputLength: size + 1 }).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'ERR_BUFFER_TOO_LARGE' ? new Error(holdsOtherThanDeclared(size, size + 1)) : damaged(err);
    });
  }
  if (content.length !== size) throw new Error(holdsOtherThanDeclared(size, content.length));
  if (crc32(content) !== record.crc32) throw crcMismatch();
  // Stored data is a view of the read: copied, so the buffer holds the member alone.
  return content === data ? Buffer.from(data) : content;
}

/** Where the member's data starts: after its local header (whose name and extra field may differ in length from the directory's). */
async function dataStart(reader: RangeReader, record: ZipRecord, dataLimit: number): Promise<number> {
  return dataStartIn(await reader.read(record.localHeaderOffset, LOCAL_HEADER_BYTES), record, dataLimit);
}

function dataStartIn(header: Buffer, record: ZipRecord, dataLimit: number): number {
  if (header.readUInt32LE(0) !== LOCAL_HEADER_SIGNATURE) throw new Error(`its local header is not where the central directory says (at byte ${record.localHeaderOffset})`);
  const start = record.localHeaderOffset + LOCAL_HEADER_BYTES + header.readUInt16LE(26) + header.readUInt16LE(28);
  if (start + record.compressedSize > dataLimit) throw new Error(`its ${record.compressedSize} bytes of data would run into the central directory (at byte ${dataLimit})`);
  return start;
}

/** Passes the content on while it is no longer than declared; at its end, checks its length and CRC-32. */
class LengthAndCrcCheck extends Transform {
  private length = 0;
  private crc = 0;

  constructor(private readonly record: ZipRecord) {
    super();
  }

  _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.length += chunk.length;
    if (this.length > this.record.size) return done(new Error(holdsOtherThanDeclared(this.record.size, this.length)));
    this.crc = crc32(chunk, this.crc);
    done(null, chunk);
  }

  _flush(done: TransformCallback): void {
    if (this.length !== this.record.size) return done(new Error(holdsOtherThanDeclared(this.record.size, this.length)));
    done(this.crc === this.record.crc32 ? null : crcMismatch());
  }
}

function holdsOtherThanDeclared(declared: number, held: number): string {
  return held > declared ? `the member declares ${declared} bytes but holds more` : `the member declares ${declared} bytes but holds less (${held})`;
}

const crcMismatch = () => new Error('the member\'s content does not match the CRC-32 the archive declares for it: the archive is damaged');
const damaged = (err: Error) => new Error(`the member's compressed data is damaged (${err.message})`);
const ignore = () => undefined;
