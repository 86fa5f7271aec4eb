import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Readable } from 'stream';
import { RetryPolicy, S3Attempts } from './s3-retry';

export interface S3ObjectRead {
  readonly stream: Readable;
  /** The object's length, as S3 gave it. */
  readonly bytes?: number;
}

/**
 * An S3 object's content as one stream, whatever breaks on the way: the GET is retried (s3-retry.ts),
 * and a body that breaks off (a reset, a silence past the timeout, a body shorter than its length)
 * goes on from the byte where it stopped, with a ranged GET of the same version (If-Match its ETag),
 * counted among the object's attempts. The stream fails only once those run out, with an
 * S3RequestError that names the object.
 */
export async function readObject(client: S3Client, bucket: string, key: string, policy?: RetryPolicy): Promise<S3ObjectRead> {
  const attempts = new S3Attempts(`GET s3://${bucket}/${key}`, policy);
  const first = await attempts.run(() => client.send(new GetObjectCommand({ Bucket: bucket, Key: key })));
  const bytes = first.ContentLength;
  async function* content(): AsyncGenerator<Buffer> {
    let body = first.Body as Readable;
    let at = 0;
    for (;;) {
      try {
        for await (const chunk of body) {
          at += chunk.length;
          yield chunk;
        }
        if (bytes === undefined || at >= bytes) return;
        throw Object.assign(new Error(`the body ended after ${at} of ${bytes} bytes`), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
      } catch (err) {
        body.destroy();
        await attempts.failed(err);
        const rest = await attempts.run(() => client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=${at}-`, IfMatch: first.ETag })));
        body = rest.Body as Readable;
      }
    }
  }
  return { stream: Readable.from(content(), { objectMode: false }), bytes };
}
