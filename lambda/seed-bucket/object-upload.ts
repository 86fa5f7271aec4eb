import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'stream';
import type { FileEntry } from '../seed/sources/entry';
import { S3Attempts } from '../seed/sources/s3-retry';
import type { ObjectRecord } from './bucket-manifest';
import { INLINE_BYTES, objectBody } from './object-body';
import { Slots } from './slots';
import { writtenRecord } from './written-record';

/** Bytes of bodies in memory (files read whole, multipart parts) held at once, whatever the concurrency: 3 multipart uploads at a time. */
const MEMORY_BUDGET_BYTES = 128 * 1024 * 1024;
/** Multipart parts: lib-storage reads a stream in parts of this size, `PART_QUEUE` of them in flight. */
const PART_BYTES = 8 * 1024 * 1024;
const PART_QUEUE = 4;

/** Uploads files' content into one bucket, all its uploads together within the memory budget. */
export class ObjectUploader {
  private readonly memory = new Slots(MEMORY_BUDGET_BYTES);

  constructor(private readonly client: S3Client, private readonly bucket: string) {}

  /** One PutObject for content in memory (retried), a multipart upload (lib-storage) for a stream. */
  async upload(relative: string, key: string, entry: FileEntry): Promise<ObjectRecord> {
    // A body read whole holds its size; a multipart upload up to its parts in flight and the one being filled.
    const held = Math.min(entry.size <= INLINE_BYTES ? entry.size : PART_BYTES * (PART_QUEUE + 1), MEMORY_BUDGET_BYTES);
    await this.memory.take(held);
    try {
      const body = await objectBody(relative, await entry.open(), entry.size);
      return 'bytes' in body ? await this.put(relative, key, entry, body.bytes) : await this.uploadInParts(relative, key, entry, body.stream);
    } finally {
      this.memory.give(held);
    }
  }

  private async put(relative: string, key: string, entry: FileEntry, bytes: Buffer): Promise<ObjectRecord> {
    if (bytes.length !== entry.size) throw new Error(`${relative}: ${bytes.length} bytes read, ${entry.size} listed; not written`);
    const answer = await new S3Attempts(`PUT s3://${this.bucket}/${key}`).run(() => this.client.send(new PutObjectCommand({
      Bucket: this.bucket, Key: key, Body: bytes, ContentLength: bytes.length,
    })));
    return writtenRecord(entry, answer.ETag, answer.VersionId);
  }

  private async uploadInParts(relative: string, key: string, entry: FileEntry, stream: Readable): Promise<ObjectRecord> {
    let sent = 0;
    stream.on('data', (chunk: Buffer) => { sent += chunk.length; });
    // A stream cannot be replayed: an upload that fails fails the file alone (the next run writes it).
    const upload = new Upload({
      client: this.client, params: { Bucket: this.bucket, Key: key, Body: stream },
      partSize: PART_BYTES, queueSize: PART_QUEUE, leavePartsOnError: false,
    });
    const answer = await upload.done().finally(() => stream.destroy());
    if (sent !== entry.size) throw new Error(`${relative}: ${sent} bytes uploaded, ${entry.size} listed (the source changed)`);
    return writtenRecord(entry, answer.ETag, answer.VersionId);
  }
}
