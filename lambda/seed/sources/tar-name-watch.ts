import { Transform, TransformCallback } from 'stream';

const BLOCK = 512;
/** Headers that describe the next entry rather than being one: pax, GNU long name, GNU long link. */
const META_TYPES = new Set(['x', 'L', 'K']);
/** A pax global header: no entry follows that is its own. */
const GLOBAL_TYPE = 'g';

/**
 * Passes a tar stream through unchanged, noting for each entry whether a name in its headers has
 * text after a NUL. A header's name ends at its first NUL (a C string), and tar-stream drops what
 * follows: 'evil\0.txt' would be written as 'evil' without a word. The seed refuses such a name.
 * `hidden` holds one flag per entry tar-stream emits, in order (its meta headers folded into it).
 */
export class TarNameWatch extends Transform {
  readonly hidden: boolean[] = [];
  private header = Buffer.alloc(0);
  /** Data bytes (padded to whole blocks) still to pass before the next header. */
  private skip = 0;
  /** Data bytes of a GNU long name still to look at, and whether its NUL came already. */
  private longName = 0;
  private longNameNul = false;
  private pending = false;

  _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    // Looked at before passed on: tar-stream emits no entry whose headers were not seen here.
    this.scan(chunk);
    done(null, chunk);
  }

  private scan(chunk: Buffer): void {
    for (let at = 0; at < chunk.length;) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - at);
        if (this.longName > 0) this.lookAtLongName(chunk.subarray(at, at + Math.min(n, this.longName)));
        this.skip -= n;
        at += n;
        continue;
      }
      if (this.header.length === 0 && chunk.length - at >= BLOCK) {
        this.readHeader(chunk.subarray(at, at + BLOCK)); // the usual case: a whole header in the chunk
        at += BLOCK;
        continue;
      }
      const n = Math.min(BLOCK - this.header.length, chunk.length - at);
      this.header = Buffer.concat([this.header, chunk.subarray(at, at + n)]);
      at += n;
      if (this.header.length === BLOCK) {
        this.readHeader(this.header);
        this.header = Buffer.alloc(0);
      }
    }
  }

  private readHeader(block: Buffer): void {
    if (block.every((byte) => byte === 0)) return; // end of archive
    const type = String.fromCharCode(block[156]);
    const ustar = block.subarray(257, 263).toString('latin1') === 'ustar\0';
    const hidden = textAfterNul(block.subarray(0, 100)) || textAfterNul(block.subarray(157, 257)) || (ustar && textAfterNul(block.subarray(345, 500)));
    const size = sizeOf(block);
    this.skip = Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'L' || type === 'K') {
      this.longName = size;
      this.longNameNul = false;
    }
    if (META_TYPES.has(type)) {
      this.pending ||= hidden;
    } else if (type !== GLOBAL_TYPE) {
      this.hidden.push(this.pending || hidden);
      this.pending = false;
    }
  }

  private lookAtLongName(bytes: Buffer): void {
    this.longName -= bytes.length;
    for (const byte of bytes) {
      if (byte === 0) this.longNameNul = true;
      else if (this.longNameNul) this.pending = true;
    }
  }
}

function textAfterNul(field: Buffer): boolean {
  const nul = field.indexOf(0);
  return nul !== -1 && field.subarray(nul).some((byte) => byte !== 0);
}

/** The header's size field: octal text, or base-256 for large sizes (high bit set). */
function sizeOf(block: Buffer): number {
  const field = block.subarray(124, 136);
  if (field[0] & 0x80) return field.subarray(1).reduce((n, byte) => n * 256 + byte, 0);
  const text = field.toString('latin1').replace(/[\0 ]+$/, '').trim();
  return text ? parseInt(text, 8) : 0;
}
