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
      // Undefined: the SDK's own chain (AWS_REGION, the profile's); a bucket elsewhere is followed.
      region: options.region,
      followRegionRedirects: true,
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

  /** Puts an object of `bytes` (filled with `fill`) at each key, 16 at a time; the versions made, by key. */
  async put(objects: ReadonlyArray<{ readonly key: string; readonly bytes: number; readonly fill: number }>): Promise<Map<string, string | undefined>> {
    const versions = new Map<string, string | undefined>();
    await forEachConcurrently(objects, 16, async ({ key, bytes, fill }) => {
      // Made here, not before: at most 16 bodies in memory at once.
      const put = await this.client.send(new PutObjectCommand({ Bucket: this.name, Key: key, Body: Buffer.alloc(bytes, fill) }));
      versions.set(key, put.VersionId);
    });
    return versions;
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

  /**
   * Deletes the versions this probe made (`versions`, by key; an unversioned bucket's undefined), 1,000
   * a request: nothing else, and no delete marker left. Throws naming the keys S3 refused.
   */
  async remove(versions: ReadonlyMap<string, string | undefined>): Promise<void> {
    const objects = [...versions].map(([Key, VersionId]) => ({ Key, VersionId }));
    const refused: string[] = [];
    for (let i = 0; i < objects.length; i += 1000) {
      const answer = await this.client.send(new DeleteObjectsCommand({ Bucket: this.name, Delete: { Objects: objects.slice(i, i + 1000), Quiet: true } }));
      refused.push(...(answer.Errors ?? []).map((e) => `${e.Key} (${e.Code})`));
    }
    if (refused.length > 0) throw new Error(`the bucket kept ${refused.length} of the probe's objects: ${refused.slice(0, 3).join(', ')}`);
  }

  /** Lets the client's connections go. */
  close(): void {
    this.client.destroy();
  }
}
