const EMPTY = Buffer.alloc(0);

/**
 * A stream of chunks read by byte counts (a header, a member's data), each byte handed out counted
 * through `onBytes` as it is taken: what a streamed archive expands to is known exactly, whatever
 * its headers say. Once the stream or `onBytes` has failed, every later read fails the same way.
 */
export class ByteStream {
  private chunk: Buffer = EMPTY;
  private at = 0;
  private readonly chunks: AsyncIterator<Buffer>;
  private failure?: unknown;
  /** Bytes handed out so far. */
  position = 0;

  constructor(source: AsyncIterable<Buffer>, private readonly onBytes: (bytes: number) => void) {
    this.chunks = source[Symbol.asyncIterator]();
  }

  /** Up to `max` bytes (at least one: a piece of the chunk at hand), or undefined at the end of the stream. */
  async next(max: number): Promise<Buffer | undefined> {
    if (this.failure !== undefined) throw this.failure;
    try {
      while (this.at === this.chunk.length) {
        const { value, done } = await this.chunks.next();
        if (done) return undefined;
        this.chunk = value;
        this.at = 0;
      }
      const piece = this.chunk.subarray(this.at, Math.min(this.chunk.length, this.at + max));
      this.at += piece.length;
      this.position += piece.length;
      this.onBytes(piece.length);
      return piece;
    } catch (err) {
      this.failure = err;
      throw err;
    }
  }

  /** Exactly `length` bytes, or fewer if the stream ends first. */
  async read(length: number): Promise<Buffer> {
    const first = await this.next(length);
    if (!first) return EMPTY;
    if (first.length === length) return first;
    const pieces = [first];
    let got = first.length;
    for (let piece; got < length && (piece = await this.next(length - got));) {
      pieces.push(piece);
      got += piece.length;
    }
    return Buffer.concat(pieces, got);
  }

  /** Passes over `length` bytes (counted all the same); how many there were before the end. */
  async skip(length: number): Promise<number> {
    let skipped = 0;
    for (let piece; skipped < length && (piece = await this.next(length - skipped));) skipped += piece.length;
    return skipped;
  }
}
