import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Readable } from 'stream';
import * as yauzl from 'yauzl';
import { MiB } from '../../shared/sizes';
import { S3Attempts } from './s3-retry';

/** Bytes fetched per ranged GET: large enough that a GET's latency is small against its transfer. */
const BLOCK_BYTES = 8 * MiB;
/** Blocks kept for readers that come back for them (members are read in about the order they lie). */
const CACHED_BLOCKS = 8;

/**
 * A zip in S3, read where it lies for yauzl: ranged GETs of whole blocks, kept in a small cache,
 * instead of the whole archive spooled to local disk first. An archive larger than Lambda's /tmp
 * then seeds, memory stays near CACHED_BLOCKS x BLOCK_BYTES, and each of a long seed's 15-minute
 * slices fetches only the central directory and the blocks holding the members still to write.
 */
export class S3BlockReader extends yauzl.RandomAccessReader {
  /** Fetched or being fetched, oldest first (a Map keeps insertion order). */
  private readonly blocks = new Map<number, Promise<Buffer>>();

  constructor(private readonly client: S3Client, private readonly bucket: string, private readonly key: string, readonly size: number) {
    super();
  }

  _readStreamForRange(start: number, end: number): Readable {
    const blockOf = (at: number) => Math.floor(at / BLOCK_BYTES);
    const reader = this;
    return Readable.from((async function* slices() {
      for (let at = start; at < end;) {
        const index = blockOf(at);
        const block = await reader.block(index);
        const offset = index * BLOCK_BYTES;
        const until = Math.min(end, offset + block.length);
        if (until <= at) throw new Error(`s3://${reader.bucket}/${reader.key} ended at ${offset + block.length} bytes, before ${end}`);
        yield block.subarray(at - offset, until - offset);
        at = until;
      }
    })(), { objectMode: false });
  }

  private block(index: number): Promise<Buffer> {
    let block = this.blocks.get(index);
    if (block) {
      // Most recently used last.
      this.blocks.delete(index);
    } else {
      block = this.fetch(index);
      block.catch(() => this.blocks.delete(index)); // a failed GET is retried by the next reader
    }
    this.blocks.set(index, block);
    if (this.blocks.size > CACHED_BLOCKS) this.blocks.delete(this.blocks.keys().next().value!);
    return block;
  }

  /** One block, its GET and its body retried together (s3-retry.ts): a block that breaks off is fetched again whole. */
  private fetch(index: number): Promise<Buffer> {
    const first = index * BLOCK_BYTES;
    const last = Math.min(first + BLOCK_BYTES, this.size) - 1;
    const range = `bytes=${first}-${last}`;
    return new S3Attempts(`GET s3://${this.bucket}/${this.key} (${range})`).run(async () => {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key, Range: range }));
      const bytes = await object.Body!.transformToByteArray();
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    });
  }
}
