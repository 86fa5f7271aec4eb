import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CopyObjectCommand, CreateMultipartUploadCommand, S3Client, UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import type { FileEntry } from '../seed/sources/entry';
import { S3Attempts } from '../seed/sources/s3-retry';
import type { ObjectRecord } from './bucket-manifest';
import type { BucketSeedOptions } from './bucket-seed-options';
import { writtenRecord } from './written-record';

/** CopyObject copies at most 5 GiB; a larger object is copied in parts (UploadPartCopy), at most 10,000 of them. */
const MAX_COPY_BYTES = 5 * 1024 ** 3;
const COPY_PART_BYTES = 512 * 1024 * 1024;
const MAX_PARTS = 10_000;
const MIN_PART_BYTES = 5 * 1024 * 1024;

export type CopyOptions = Pick<BucketSeedOptions, 'multipartCopyAboveBytes' | 'copyPartBytes'>;

/** One copy: where to, from where (CopySource), on which condition (the listed ETag), and how it is named in errors. */
interface Copy {
  readonly client: S3Client;
  readonly bucket: string;
  readonly key: string;
  readonly source: string;
  readonly ifMatch: string | undefined;
  readonly what: string;
}

/** A server-side copy of an S3 source's object into `bucket` at `key`, as it was listed (CopySourceIfMatch: its ETag). */
export async function copyObject(client: S3Client, bucket: string, key: string, entry: FileEntry, options: CopyOptions): Promise<ObjectRecord> {
  const remote = entry.remote!;
  const copy: Copy = {
    client, bucket, key,
    source: `${remote.bucket}/${remote.key.split('/').map(encodeURIComponent).join('/')}`,
    ifMatch: entry.identity.startsWith('etag:') ? entry.identity.slice('etag:'.length) || undefined : undefined,
    what: `COPY s3://${remote.bucket}/${remote.key} to s3://${bucket}/${key}`,
  };
  if (entry.size > (options.multipartCopyAboveBytes ?? MAX_COPY_BYTES)) {
    const partBytes = Math.max(options.copyPartBytes ?? COPY_PART_BYTES, Math.ceil(entry.size / MAX_PARTS), MIN_PART_BYTES);
    return copyInParts(copy, entry, partBytes);
  }
  const answer = await new S3Attempts(copy.what).run(() => client.send(new CopyObjectCommand({
    Bucket: bucket, Key: key, CopySource: copy.source, CopySourceIfMatch: copy.ifMatch,
  })));
  return writtenRecord(entry, answer.CopyObjectResult?.ETag, answer.VersionId);
}

/**
 * A server-side copy in parts, for objects over CopyObject's 5 GiB: each part an UploadPartCopy of a
 * byte range (retried on its own), every one conditional on the ETag listed; a copy that fails is
 * aborted, so no parts are left to pay for.
 */
async function copyInParts(copy: Copy, entry: FileEntry, partBytes: number): Promise<ObjectRecord> {
  const { client, bucket, key, what } = copy;
  const created = await new S3Attempts(`${what}: starting the multipart copy`).run(() => client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key })));
  const uploadId = created.UploadId!;
  try {
    const parts: Array<{ ETag?: string; PartNumber: number }> = [];
    for (let start = 0, n = 1; start < entry.size; start += partBytes, n++) {
      const range = `bytes=${start}-${Math.min(start + partBytes, entry.size) - 1}`;
      const part = await new S3Attempts(`${what}: part ${n}`).run(() => client.send(new UploadPartCopyCommand({
        Bucket: bucket, Key: key, UploadId: uploadId, PartNumber: n, CopySource: copy.source, CopySourceRange: range, CopySourceIfMatch: copy.ifMatch,
      })));
      parts.push({ ETag: part.CopyPartResult?.ETag, PartNumber: n });
    }
    const done = await new S3Attempts(`${what}: completing the multipart copy`).run(() => client.send(new CompleteMultipartUploadCommand({
      Bucket: bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts },
    })));
    return writtenRecord(entry, done.ETag, done.VersionId);
  } catch (err) {
    await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId })).catch(() => undefined);
    throw err;
  }
}
