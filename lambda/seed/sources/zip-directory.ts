import { MiB } from '../../shared/sizes';
import type { RangeReader } from './range-reader';
import { MIN_RECORD_BYTES, ZipEnd } from './zip-end';

/** What the central directory says of one member: only what the seed uses, nothing else kept. */
export interface ZipRecord {
  /** UTF-8 when the member says so (flag bit 11), else CP437, read as latin1. */
  readonly name: string;
  readonly flags: number;
  readonly method: number;
  readonly crc32: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly localHeaderOffset: number;
  /** The Unix mode in the external attributes' high half (type and permission bits), 0 if none. */
  readonly unixMode: number;
}

const RECORD_SIGNATURE = 0x02014b50;
const ZIP64_EXTRA = 0x0001;
const MAX32 = 0xffffffff;
/** The directory is read in pieces this large: what reading it holds, whatever its size. */
const READ_BYTES = MiB;

/**
 * The central directory's records, read in 1 MiB pieces and handed out one at a time, so that
 * reading it holds a piece and a record, not the directory; exactly the members its end record
 * declares, each within the directory it declares.
 */
export async function* directoryRecords(reader: RangeReader, end: ZipEnd): AsyncGenerator<ZipRecord> {
  const directoryEnd = end.directoryOffset + end.directoryBytes;
  let window = Buffer.alloc(0);
  /** Where `window` starts in the archive. */
  let windowOffset = end.directoryOffset;
  let at = 0;
  /** Reads on until the window holds `bytes` from `at`. */
  const readOn = async (bytes: number, what: string) => {
    const wanted = windowOffset + at + bytes;
    if (wanted > directoryEnd) throw new Error(`${what} runs past the end of the central directory`);
    const from = windowOffset + window.length;
    const more = await reader.read(from, Math.min(directoryEnd, Math.max(wanted, from + READ_BYTES)) - from);
    window = Buffer.concat([window.subarray(at), more]);
    windowOffset += at;
    at = 0;
  };
  for (let index = 0; index < end.entries; index++) {
    const what = () => `central directory record ${index + 1} of ${end.entries}`;
    if (at + MIN_RECORD_BYTES > window.length) await readOn(MIN_RECORD_BYTES, what());
    if (window.readUInt32LE(at) !== RECORD_SIGNATURE) throw new Error(`${what()} is not where the directory says (at byte ${windowOffset + at})`);
    const recordBytes = MIN_RECORD_BYTES + window.readUInt16LE(at + 28) + window.readUInt16LE(at + 30) + window.readUInt16LE(at + 32);
    if (at + recordBytes > window.length) await readOn(recordBytes, what());
    const record = window.subarray(at, at + recordBytes);
    at += recordBytes;
    yield decodeRecord(record, what);
  }
}

function decodeRecord(record: Buffer, what: () => string): ZipRecord {
  const flags = record.readUInt16LE(8);
  const nameBytes = record.readUInt16LE(28);
  const extraBytes = record.readUInt16LE(30);
  const name = record.toString(flags & 0x800 ? 'utf8' : 'latin1', MIN_RECORD_BYTES, MIN_RECORD_BYTES + nameBytes);
  let compressedSize = record.readUInt32LE(20);
  let size = record.readUInt32LE(24);
  let localHeaderOffset = record.readUInt32LE(42);
  if (compressedSize === MAX32 || size === MAX32 || localHeaderOffset === MAX32) {
    // The Zip64 extra field holds the 64-bit values, in this order, of those set to 0xffffffff.
    const zip64 = extraField(record.subarray(MIN_RECORD_BYTES + nameBytes, MIN_RECORD_BYTES + nameBytes + extraBytes), ZIP64_EXTRA);
    let at = 0;
    const next = () => {
      if (!zip64 || at + 8 > zip64.length) throw new Error(`${what()} (${JSON.stringify(name)}) lacks the Zip64 sizes it refers to`);
      const value = zip64.readBigUInt64LE(at);
      at += 8;
      if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${what()} (${JSON.stringify(name)}) declares a size too large for any archive`);
      return Number(value);
    };
    if (size === MAX32) size = next();
    if (compressedSize === MAX32) compressedSize = next();
    if (localHeaderOffset === MAX32) localHeaderOffset = next();
  }
  return {
    name, flags, compressedSize, size, localHeaderOffset,
    method: record.readUInt16LE(10),
    crc32: record.readUInt32LE(16),
    unixMode: record.readUInt32LE(38) >>> 16,
  };
}

/** The data of the extra field `id`, if the record has one. */
function extraField(extra: Buffer, id: number): Buffer | undefined {
  for (let at = 0; at + 4 <= extra.length;) {
    const length = extra.readUInt16LE(at + 2);
    if (extra.readUInt16LE(at) === id) return extra.subarray(at + 4, Math.min(extra.length, at + 4 + length));
    at += 4 + length;
  }
  return undefined;
}
