import type { RangeReader } from './range-reader';

/** Where a zip's central directory lies and how many members it declares, from its end records. */
export interface ZipEnd {
  readonly entries: number;
  readonly directoryOffset: number;
  readonly directoryBytes: number;
}

const END_SIGNATURE = 0x06054b50;
const END_BYTES = 22;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_LOCATOR_BYTES = 20;
const ZIP64_END_SIGNATURE = 0x06064b50;
const ZIP64_END_BYTES = 56;
/** The smallest central directory record (no name, no extra field, no comment). */
export const MIN_RECORD_BYTES = 46;

/**
 * Reads the end-of-central-directory record (and the Zip64 one it points to, when there is one):
 * a few kilobytes at the end of the archive, enough to refuse a zip that declares too many members
 * before its directory is read. Checks that the directory it declares lies before it and can hold
 * the members it declares (46 bytes each at least), so reading it stays within what was declared.
 */
export async function readZipEnd(reader: RangeReader): Promise<ZipEnd> {
  const tailBytes = Math.min(reader.size, ZIP64_LOCATOR_BYTES + END_BYTES + 0xffff);
  const tail = await reader.read(reader.size - tailBytes, tailBytes);
  const at = endRecordIn(tail);
  if (at === undefined) throw new Error('no end-of-central-directory record: not a zip, or a truncated one');
  const endOffset = reader.size - tailBytes + at;
  let entries = tail.readUInt16LE(at + 10);
  let directoryBytes = tail.readUInt32LE(at + 12);
  let directoryOffset = tail.readUInt32LE(at + 16);
  let disk = tail.readUInt16LE(at + 4);
  let directoryEnd = endOffset;
  const locator = at - ZIP64_LOCATOR_BYTES;
  if (locator >= 0 && tail.readUInt32LE(locator) === ZIP64_LOCATOR_SIGNATURE) {
    const zip64Offset = uint64(tail, locator + 8);
    if (zip64Offset + ZIP64_END_BYTES > endOffset - ZIP64_LOCATOR_BYTES) throw new Error('the Zip64 end record lies outside the archive');
    const zip64 = await reader.read(zip64Offset, ZIP64_END_BYTES);
    if (zip64.readUInt32LE(0) !== ZIP64_END_SIGNATURE) throw new Error('the Zip64 end record is not where its locator says');
    disk = zip64.readUInt32LE(16);
    entries = uint64(zip64, 32);
    directoryBytes = uint64(zip64, 40);
    directoryOffset = uint64(zip64, 48);
    directoryEnd = zip64Offset;
  }
  if (disk !== 0) throw new Error('multi-disk zips are not supported');
  if (directoryOffset + directoryBytes > directoryEnd) {
    throw new Error(`the central directory it declares (${directoryBytes} bytes at ${directoryOffset}) runs past its end record (at ${directoryEnd})`);
  }
  return { entries, directoryOffset, directoryBytes };
}

/** Checks that `end`'s directory can hold the members it declares (a count the directory cannot back is a lie). */
export function checkDirectorySize(end: ZipEnd): void {
  if (end.entries * MIN_RECORD_BYTES > end.directoryBytes) {
    throw new Error(`its end record declares ${end.entries} members in a central directory of ${end.directoryBytes} bytes, too small to hold them`);
  }
}

/**
 * The end record's offset in `tail`: the last signature whose comment runs exactly to the end
 * (a signature inside a comment does not pass for the record).
 */
function endRecordIn(tail: Buffer): number | undefined {
  for (let at = tail.length - END_BYTES; at >= 0; at--) {
    if (tail.readUInt32LE(at) === END_SIGNATURE && at + END_BYTES + tail.readUInt16LE(at + 20) === tail.length) return at;
  }
  return undefined;
}

function uint64(bytes: Buffer, offset: number): number {
  const value = bytes.readBigUInt64LE(offset);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('a Zip64 end record holds a number too large for any archive');
  return Number(value);
}
