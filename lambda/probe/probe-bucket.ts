import { DeleteObjectsCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import * as path from 'path';
import { boundedRequests } from '../shared/aws-call-deadline';
import { forEachConcurrently } from './io';

/**
 * The bucket behind an S3 Files mount, as the probe's S3 Files scenarios use it: objects put there
 * appear in the file system (the import), files written through the mount reach it (the export).
 * `root` (the probed directory) is the object key prefix `prefix`.
 */
export class ProbeBucket {
  /**
   * `url` is `s3://bucket/prefix/`, the key prefix the probed directory `root` is; `endpoint`
   * another S3 (moto in the tests). Throws naming the problem for a URL of another shape.
   */
  static open(url: string, root: string, options: { region?: string; endpoint?: string } = {}): ProbeBucket {
    const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(\/.*)?$/.exec(url);
    if (!match) throw new Error(`the bucket must be given as s3://<bucket>/<prefix the directory is>, got '${url}'`);
    const prefix = (match[2] ?? '').replace(/^\/+/, '');
    const client = new S3Client({
      region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
      endpoint: options.endpoint,
      forcePathStyle: options.endpoint !== undefined,
      requestHandler: boundedRequests(),
    });
    return new ProbeBucket(client, match[1], prefix && !prefix.endsWith('/') ? `${prefix}/` : prefix, path.resolve(root));
  }

  private constructor(readonly client: S3Client, readonly name: string, private readonly prefix: string, private readonly root: string) {}

  /** The object key of `file`, a path under the probed directory. */
  keyOf(file: string): string {
    const relative = path.relative(this.root, path.resolve(file));
    if (relative.startsWith('..') || path.isAbsolute(relative)) throw new Error(`${file} is not under the probed directory ${this.root}`);
    return this.prefix + relative.split(path.sep).join('/');
  }

  /** Puts each `[key, body]`, 16 at a time. */
  async put(objects: ReadonlyArray<readonly [string, Buffer]>): Promise<void> {
    await forEachConcurrently(objects, 16, async ([key, body]) => { await this.client.send(new PutObjectCommand({ Bucket: this.name, Key: key, Body: body })); });
  }

  /** Every object under `keyPrefix`, with its size. */
  async list(keyPrefix: string): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    for (let token: string | undefined; ;) {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.name, Prefix: keyPrefix, ContinuationToken: token }));
      for (const o of page.Contents ?? []) found.set(o.Key!, o.Size ?? 0);
      if (!page.IsTruncated) return found;
      token = page.NextContinuationToken;
    }
  }

  /** Deletes `keys` (their current versions), 1,000 a request. */
  async remove(keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      await this.client.send(new DeleteObjectsCommand({ Bucket: this.name, Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true } }));
    }
  }
}
