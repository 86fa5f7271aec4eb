/** What a tar's 512-byte header blocks and pax records say, decoded strictly (POSIX ustar and GNU tar formats). */

export const BLOCK = 512;

/** A header block as written, before any pax record or GNU long name applies to it. */
export interface RawHeader {
  readonly name: string;
  readonly linkname: string;
  /** The type flag as a character ('0' for a NUL flag). */
  readonly typeflag: string;
  readonly mode: number;
  readonly size: number;
  readonly mtimeMs: number;
  /**
   * A name or link field goes on after its first NUL. Readers take a field up to its NUL (a C
   * string), so 'evil\0.txt' would be 'evil': the seed refuses such a member rather than guess.
   */
  readonly hiddenText: boolean;
}

/** The archive cannot be read as a tar at all. */
export class TarFormatError extends Error {}

/** The end-of-archive marker is a zero block (GNU tar stops at the first, as without --ignore-zeros). */
export function isZeroBlock(block: Buffer): boolean {
  for (let i = 0; i < BLOCK; i++) if (block[i] !== 0) return false;
  return true;
}

export function decodeHeader(block: Buffer): RawHeader {
  checkChecksum(block);
  const magic = block.toString('latin1', 257, 263);
  const posix = magic === 'ustar\0';
  if (!posix && magic !== 'ustar ') throw new TarFormatError('a header is neither POSIX (ustar) nor GNU tar format');
  const name = field(block, 0, 100);
  const linkname = field(block, 157, 100);
  // Only POSIX headers have a prefix: GNU ones keep other fields there.
  const prefix = posix ? field(block, 345, 155) : { text: '', hidden: false };
  return {
    name: prefix.text ? `${prefix.text}/${name.text}` : name.text,
    linkname: linkname.text,
    typeflag: block[156] === 0 ? '0' : String.fromCharCode(block[156]),
    // A mode or time no tar wrote is not worth refusing the member for.
    mode: (numberAt(block, 100, 8) ?? 0) & 0o7777,
    size: sizeOf(block),
    mtimeMs: (numberAt(block, 136, 12) ?? 0) * 1000,
    hiddenText: name.hidden || linkname.hidden || prefix.hidden,
  };
}

/** A GNU long name or link (types L and K): the data up to its NUL, and whether text follows the NUL. */
export function decodeLongName(data: Buffer): { text: string; hidden: boolean } {
  const nul = data.indexOf(0);
  if (nul === -1) return { text: data.toString('utf8'), hidden: false };
  return { text: data.toString('utf8', 0, nul), hidden: !allZero(data, nul) };
}

/** A pax header's records ('<length> <key>=<value>\n' each), as key and value. */
export function decodePax(data: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  for (let at = 0; at < data.length;) {
    // Writers may pad the header's data with NULs.
    if (data[at] === 0 && allZero(data, at)) break;
    const space = data.indexOf(0x20, at);
    const digits = space === -1 ? '' : data.toString('latin1', at, space);
    const length = /^[0-9]{1,9}$/.test(digits) ? Number(digits) : 0;
    const end = at + length;
    if (length === 0 || end > data.length || data[end - 1] !== 0x0a) throw new TarFormatError(`a pax header is malformed at byte ${at} of its ${data.length}`);
    const record = data.subarray(space + 1, end - 1);
    const equals = record.indexOf(0x3d);
    if (equals === -1) throw new TarFormatError(`a pax record has no '=' (${JSON.stringify(record.toString('utf8').slice(0, 100))})`);
    records.set(record.toString('utf8', 0, equals), record.toString('utf8', equals + 1));
    at = end;
  }
  return records;
}

/** A pax size: decimal digits only. */
export function paxSize(value: string): number {
  const size = /^[0-9]{1,16}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(size)) throw new TarFormatError(`a pax size record is not a size: ${JSON.stringify(value.slice(0, 40))}`);
  return size;
}

function field(block: Buffer, offset: number, length: number): { text: string; hidden: boolean } {
  const end = offset + length;
  const nul = block.indexOf(0, offset);
  if (nul === -1 || nul >= end) return { text: block.toString('utf8', offset, end), hidden: false };
  return { text: block.toString('utf8', offset, nul), hidden: !allZero(block, nul, end) };
}

function allZero(bytes: Buffer, from: number, to = bytes.length): boolean {
  for (let i = from; i < to; i++) if (bytes[i] !== 0) return false;
  return true;
}

/**
 * A numeric field: octal digits (after optional spaces, ended by a space or NUL), or GNU's base-256
 * (the first byte 0x80, or 0xff for a negative value) for values octal cannot hold; undefined if it
 * is neither.
 */
function numberAt(block: Buffer, offset: number, length: number): number | undefined {
  const first = block[offset];
  if (first === 0x80 || first === 0xff) {
    let value = 0;
    for (let i = 1; i < length; i++) value = value * 256 + (first === 0xff ? 0xff - block[offset + i] : block[offset + i]);
    return first === 0xff ? -(value + 1) : value;
  }
  const match = /^ *([0-7]*)[ \0]*$/.exec(block.toString('latin1', offset, offset + length));
  if (!match) return undefined;
  return match[1] ? parseInt(match[1], 8) : 0;
}

/** The size frames the archive: it must be a whole number of bytes. */
function sizeOf(block: Buffer): number {
  const size = numberAt(block, 124, 12);
  if (size === undefined || size < 0 || !Number.isSafeInteger(size)) {
    throw new TarFormatError(`a header's size field is not a size: ${JSON.stringify(block.toString('latin1', 124, 136))}`);
  }
  return size;
}

/** The checksum: the sum of the header's bytes, its own field counted as spaces (signed sums too, as old tars wrote). */
function checkChecksum(block: Buffer): void {
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i++) {
    const byte = i >= 148 && i < 156 ? 0x20 : block[i];
    unsigned += byte;
    signed += byte > 127 ? byte - 256 : byte;
  }
  const stored = /^ *([0-7]{1,8})[ \0]*$/.exec(block.toString('latin1', 148, 156));
  const expected = stored ? parseInt(stored[1], 8) : -1;
  if (expected !== unsigned && expected !== signed) {
    throw new TarFormatError('a header\'s checksum does not match its bytes: not a tar archive, a damaged one, or a compressed one read as plain');
  }
}
