import * as zlib from 'zlib';

/**
 * Archives built byte by byte, so that a test can write what no archiver would: headers that lie
 * about sizes, names that go on after a NUL, members after the end-of-archive marker, zips whose
 * end record declares millions of members. Small, generated per test (nothing committed).
 */

export interface TarHeaderSpec {
  readonly name: string | Buffer;
  /** Type flag: '0' file, '5' directory, '2' symlink, 'x' pax, 'L' GNU long name... */
  readonly type?: string;
  readonly size?: number;
  readonly linkname?: string | Buffer;
  readonly prefix?: string | Buffer;
  readonly mode?: number;
  /** 'posix' (ustar\0 00, the default) or 'gnu' (ustar  \0). */
  readonly format?: 'posix' | 'gnu';
  /** The size field written as GNU's base-256, as for members of 8 GiB and more. */
  readonly base256Size?: boolean;
}

export function tarHeader(spec: TarHeaderSpec): Buffer {
  const block = Buffer.alloc(512);
  const put = (value: string | Buffer, offset: number, length: number) => Buffer.from(value).copy(block, offset, 0, length);
  put(spec.name, 0, 100);
  put(`${(spec.mode ?? 0o644).toString(8).padStart(7, '0')}\0`, 100, 8);
  put('0000000\0', 108, 8);
  put('0000000\0', 116, 8);
  const size = spec.size ?? 0;
  if (spec.base256Size) {
    block[124] = 0x80;
    for (let i = 135, rest = size; i > 124; i--, rest = Math.floor(rest / 256)) block[i] = rest % 256;
  } else {
    put(`${size.toString(8).padStart(11, '0')}\0`, 124, 12);
  }
  put('14400000000\0', 136, 12);
  put(spec.type ?? '0', 156, 1);
  if (spec.linkname) put(spec.linkname, 157, 100);
  put(spec.format === 'gnu' ? 'ustar  \0' : 'ustar\x0000', 257, 8);
  if (spec.prefix) put(spec.prefix, 345, 155);
  block.fill(' ', 148, 156);
  const sum = block.reduce((total, byte) => total + byte, 0);
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return block;
}

/** `content` padded to whole 512-byte blocks. */
export function tarData(content: string | Buffer): Buffer {
  const bytes = Buffer.from(content);
  return Buffer.concat([bytes, Buffer.alloc((512 - (bytes.length % 512)) % 512)]);
}

/** A file member: its header and its padded data. */
export function tarFile(name: string | Buffer, content: string | Buffer, spec: Partial<TarHeaderSpec> = {}): Buffer {
  return Buffer.concat([tarHeader({ name, size: Buffer.byteLength(content), ...spec }), tarData(content)]);
}

/** A pax header (type x, or g for a global one) carrying these records. */
export function paxHeader(records: Record<string, string | Buffer>, type = 'x'): Buffer {
  const body = Buffer.concat(Object.entries(records).map(([key, value]) => {
    const text = Buffer.concat([Buffer.from(` ${key}=`), Buffer.from(value), Buffer.from('\n')]);
    let length = text.length + 1;
    while (String(length).length + text.length !== length) length = String(length).length + text.length;
    return Buffer.concat([Buffer.from(String(length)), text]);
  }));
  return Buffer.concat([tarHeader({ name: 'PaxHeaders/x', type, size: body.length }), tarData(body)]);
}

/** A GNU long name (type L) or long link (type K) header carrying `name` as written (NUL included where the test wants one). */
export function gnuLongHeader(name: string | Buffer, type: 'L' | 'K' = 'L'): Buffer {
  const data = Buffer.from(name);
  return Buffer.concat([tarHeader({ name: '././@LongLink', type, size: data.length, format: 'gnu' }), tarData(data)]);
}

/** The end-of-archive marker: two zero blocks. */
export const TAR_END = Buffer.alloc(1024);

/**
 * Gzip members of 64 MiB of zeros, compressed once and repeated `times` (gunzip reads concatenated
 * members as one stream): 64 MiB of tar data per 64 KiB or so of archive.
 */
export function gzippedZeros(times: number): Buffer {
  zerosMember ??= zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
  return Buffer.concat(Array(times).fill(zerosMember));
}
let zerosMember: Buffer | undefined;

export interface ZipMemberSpec {
  readonly name: string;
  readonly content?: string | Buffer;
  /** 0 stored, 8 deflated (the default). */
  readonly method?: number;
  /** Sizes and CRC as the headers declare them, if they should lie. */
  readonly declaredSize?: number;
  readonly declaredCompressedSize?: number;
  readonly declaredCrc?: number;
  /** Unix mode in the external attributes (type and permission bits). */
  readonly unixMode?: number;
  readonly flags?: number;
  /** Where the central directory says the local header is, if it should lie. */
  readonly declaredOffset?: number;
  /** Sizes and offset in a Zip64 extra field (0xffffffff in the fixed fields), as for members past 4 GiB. */
  readonly zip64?: boolean;
}

export interface ZipSpec {
  /** Write Zip64 end records (and take the member count from them). */
  readonly zip64?: boolean;
  /** The member count the end records declare, if it should lie. */
  readonly declaredEntries?: number;
  readonly comment?: string | Buffer;
}

/** A zip with exactly these members and these lies. */
export function zipArchive(members: ZipMemberSpec[], spec: ZipSpec = {}): Buffer {
  const locals: Buffer[] = [];
  const records: Buffer[] = [];
  let offset = 0;
  for (const member of members) {
    const content = Buffer.from(member.content ?? '');
    const method = member.method ?? 8;
    const data = method === 8 ? zlib.deflateRawSync(content) : content;
    const name = Buffer.from(member.name);
    const crc = member.declaredCrc ?? zlib.crc32(content);
    const size = member.declaredSize ?? content.length;
    const compressedSize = member.declaredCompressedSize ?? data.length;
    const flags = (member.flags ?? 0) | 0x800;
    const zip64 = member.zip64 ? Buffer.alloc(28) : Buffer.alloc(0);
    if (member.zip64) {
      zip64.writeUInt16LE(0x0001, 0);
      zip64.writeUInt16LE(24, 2);
      zip64.writeBigUInt64LE(BigInt(size), 4);
      zip64.writeBigUInt64LE(BigInt(compressedSize), 12);
      zip64.writeBigUInt64LE(BigInt(member.declaredOffset ?? offset), 20);
    }
    const fixed = (value: number) => (member.zip64 ? 0xffffffff : value);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(fixed(compressedSize), 18);
    local.writeUInt32LE(fixed(size), 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(zip64.length, 28);
    locals.push(local, name, zip64, data);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(0x031e, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(flags, 8);
    record.writeUInt16LE(method, 10);
    record.writeUInt32LE(crc, 16);
    record.writeUInt32LE(fixed(compressedSize), 20);
    record.writeUInt32LE(fixed(size), 24);
    record.writeUInt16LE(name.length, 28);
    record.writeUInt16LE(zip64.length, 30);
    record.writeUInt32LE(((member.unixMode ?? 0o100644) << 16) >>> 0, 38);
    record.writeUInt32LE(fixed(member.declaredOffset ?? offset), 42);
    records.push(record, name, zip64);
    offset += 30 + name.length + zip64.length + data.length;
  }
  const directory = Buffer.concat(records);
  const entries = spec.declaredEntries ?? members.length;
  const comment = Buffer.from(spec.comment ?? '');
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(entries, 0xffff), 8);
  end.writeUInt16LE(Math.min(entries, 0xffff), 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  end.writeUInt16LE(comment.length, 20);
  if (!spec.zip64) return Buffer.concat([...locals, directory, end, comment]);
  const zip64End = Buffer.alloc(56);
  zip64End.writeUInt32LE(0x06064b50, 0);
  zip64End.writeBigUInt64LE(44n, 4);
  zip64End.writeUInt16LE(45, 12);
  zip64End.writeUInt16LE(45, 14);
  zip64End.writeBigUInt64LE(BigInt(entries), 24);
  zip64End.writeBigUInt64LE(BigInt(entries), 32);
  zip64End.writeBigUInt64LE(BigInt(directory.length), 40);
  zip64End.writeBigUInt64LE(BigInt(offset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(offset + directory.length), 8);
  locator.writeUInt32LE(1, 16);
  end.writeUInt16LE(0xffff, 8);
  end.writeUInt16LE(0xffff, 10);
  end.writeUInt32LE(0xffffffff, 16);
  return Buffer.concat([...locals, directory, zip64End, locator, end, comment]);
}
