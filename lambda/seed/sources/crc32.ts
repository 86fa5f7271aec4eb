import * as zlib from 'zlib';

/**
 * CRC-32 (as zip uses it) of `data`, continuing from `value`: zlib's (Node 20.15 and later), or
 * this table's on older Nodes.
 */
export const crc32: (data: Buffer, value?: number) => number = typeof zlib.crc32 === 'function' ? zlib.crc32 : tableCrc32;

let table: Int32Array | undefined;

function tableCrc32(data: Buffer, value = 0): number {
  table ??= Int32Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c;
  });
  let crc = ~value;
  for (const byte of data) crc = table[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return ~crc >>> 0;
}
