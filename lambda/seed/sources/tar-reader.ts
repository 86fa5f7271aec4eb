import { ByteStream } from './byte-stream';
import { BLOCK, decodeHeader, decodeLongName, decodePax, isZeroBlock, paxSize, TarFormatError } from './tar-header';

/** What a member is, by its type flag (old tars mark a directory by a '/' at the end of a file's name). */
export type TarMemberType = 'file' | 'directory' | 'symlink' | 'link' | 'fifo' | 'character-device' | 'block-device' | 'other';

/** A member's header as it applies: pax records and GNU long names folded in. */
export interface TarMember {
  readonly name: string;
  readonly type: TarMemberType;
  /** The raw type flag, for messages about types the seed does not take. */
  readonly typeflag: string;
  readonly linkname: string;
  readonly mode: number;
  readonly mtimeMs: number;
  /** The data that follows the header, in bytes. */
  readonly size: number;
  /** Why the member cannot be taken as its headers describe it, if so (its data is passed over). */
  readonly problem?: string;
}

/** The data of the headers that describe the next member (pax, GNU long name and link) is at most this. */
const MAX_META_BYTES = 1024 * 1024;

const TYPES: Record<string, TarMemberType> = {
  '0': 'file', '7': 'file', '1': 'link', '2': 'symlink', '3': 'character-device', '4': 'block-device', '5': 'directory', '6': 'fifo',
};

/**
 * Reads a tar archive member by member, the only parser of it in the seed: the names it checks are
 * the names it hands on, and every byte it passes over is counted (see ByteStream). It reads as GNU
 * tar does without --ignore-zeros: it stops at the first zero block (the end-of-archive marker, or a
 * lone zero block, which GNU tar warns about and also stops at), so nothing `tar -t` would not list
 * is extracted, and nothing after the marker is read at all; a directory's or a hard link's size
 * is no data (GNU tar reads on from the next block), any other member's data is skipped by its size.
 */
export class TarReader {
  /** Global pax records: they apply to every member after them. */
  private global = new Map<string, string>();
  /** Data bytes of the current member not yet read, and the padding after them. */
  private remaining = 0;
  private padding = 0;
  private current?: TarMember;
  private ended = false;

  constructor(private readonly bytes: ByteStream) {}

  /** The next member (what is left of the current one is passed over first), or undefined at the end. */
  async next(): Promise<TarMember | undefined> {
    await this.passCurrent();
    let local = new Map<string, string>();
    let longName: { text: string; hidden: boolean } | undefined;
    let longLink: { text: string; hidden: boolean } | undefined;
    let metaHidden = false;
    while (!this.ended) {
      const block = await this.bytes.read(BLOCK);
      // An archive may end without its marker (GNU tar accepts that too), but not inside a header.
      if (block.length === 0) break;
      if (block.length < BLOCK) throw new TarFormatError('the archive ends inside a header');
      if (isZeroBlock(block)) break;
      const header = decodeHeader(block);
      const { typeflag } = header;
      if (typeflag === 'x' || typeflag === 'g' || typeflag === 'L' || typeflag === 'K') {
        const data = await this.meta(header.size, typeflag);
        if (typeflag === 'x') local = new Map([...local, ...decodePax(data)]);
        else if (typeflag === 'g') this.global = new Map([...this.global, ...decodePax(data)]);
        else if (typeflag === 'L') longName = decodeLongName(data);
        else longLink = decodeLongName(data);
        metaHidden ||= header.hiddenText;
        continue;
      }
      const pax = this.global.size === 0 ? local : new Map([...this.global, ...local]);
      const name = pax.get('path') ?? longName?.text ?? header.name;
      const linkname = pax.get('linkpath') ?? longLink?.text ?? header.linkname;
      const size = pax.has('size') ? paxSize(pax.get('size')!) : header.size;
      const type = typeflag === '0' && name.endsWith('/') ? 'directory' : TYPES[typeflag] ?? 'other';
      const hidden = header.hiddenText || metaHidden || longName?.hidden || longLink?.hidden
        || (pax.get('path') ?? '').includes('\0') || (pax.get('linkpath') ?? '').includes('\0');
      this.current = {
        // The header's whole-second time, not a pax record's finer one: it is part of a file's identity in the manifest.
        name, type, typeflag, linkname, size, mode: header.mode, mtimeMs: header.mtimeMs,
        problem: hidden ? 'a name in its header goes on after a NUL byte, which would cut it short'
          : (typeflag === 'S' || [...pax.keys()].some((key) => key.startsWith('GNU.sparse.'))) ? 'sparse files are not supported' : undefined,
      };
      // GNU tar reads a directory's or a hard link's header as having no data, whatever its size says.
      this.remaining = typeflag === '5' || typeflag === '1' ? 0 : size;
      this.padding = padding(this.remaining);
      return this.current;
    }
    this.ended = true;
    return undefined;
  }

  /** The current member's data, piece by piece (handed out as read: a large file streams through). */
  async *data(): AsyncGenerator<Buffer> {
    while (this.remaining > 0) {
      const piece = await this.bytes.next(this.remaining);
      if (!piece) throw this.truncated();
      this.remaining -= piece.length;
      yield piece;
    }
  }

  /** The current member's data whole (a small file), in a buffer of its own. */
  async readData(): Promise<Buffer> {
    const content = Buffer.allocUnsafe(this.remaining);
    for (let at = 0; at < content.length;) {
      const piece = await this.bytes.next(content.length - at);
      if (!piece) throw this.truncated();
      piece.copy(content, at);
      at += piece.length;
      this.remaining -= piece.length;
    }
    return content;
  }

  /** Passes over what is left of the current member: its data not read, and its padding. */
  private async passCurrent(): Promise<void> {
    if (this.remaining > 0) {
      const skipped = await this.bytes.skip(this.remaining);
      this.remaining -= skipped;
      if (this.remaining > 0) throw this.truncated();
    }
    if (this.padding > 0) {
      // Padding missing at the very end is harmless: the data was whole.
      await this.bytes.skip(this.padding);
      this.padding = 0;
    }
  }

  private async meta(size: number, typeflag: string): Promise<Buffer> {
    if (size > MAX_META_BYTES) throw new TarFormatError(`a header of type ${typeflag} holds ${size} bytes, more than the ${MAX_META_BYTES} such headers are read to`);
    const data = await this.bytes.read(size);
    if (data.length < size) throw new TarFormatError(`the archive ends inside a header of type ${typeflag}`);
    await this.bytes.skip(padding(size));
    return data;
  }

  private truncated(): TarFormatError {
    const { name, size } = this.current!;
    return new TarFormatError(`the archive ends inside ${JSON.stringify(name)}: the member declares ${size} bytes but holds ${size - this.remaining}`);
  }
}

function padding(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}
