import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { DEFAULT_FILE_MODE, EntrySource, SeedEntry } from './entry';
import type { S3Location } from './s3-client';
import { readObject } from './s3-object-read';
import { folderPrefix } from '../../../lib/seed/contract/s3-prefix';
import { S3Attempts } from './s3-retry';

/** Every object under an S3 prefix, as a file at its key minus the prefix. */
export class S3ObjectsSource implements EntrySource {
  private readonly prefix: string;

  /**
   * @param location what `client` was made from, where known: then a copy worker fetches each object
   *   with a client of its own, and the S3 work (HTTP, TLS) spreads over the workers' vCPUs too
   */
  constructor(private readonly client: S3Client, private readonly bucket: string, prefix: string, private readonly location?: S3Location) {
    this.prefix = folderPrefix(prefix);
  }

  get description(): string {
    return `s3://${this.bucket}/${this.prefix}`;
  }

  /** Each page of the listing is retried on its own (s3-retry.ts); one that still fails stops the run with an S3RequestError. */
  async *entries(): AsyncIterable<SeedEntry> {
    let token: string | undefined;
    do {
      const input = { Bucket: this.bucket, Prefix: this.prefix || undefined, ContinuationToken: token };
      const page = await new S3Attempts(`listing ${this.description}`).run(() => this.client.send(new ListObjectsV2Command(input)));
      for (const object of page.Contents ?? []) {
        const entry = this.entryFor(object.Key!, object.Size ?? 0, object.ETag ?? '', object.LastModified);
        if (entry) yield entry;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** One key, as the Distributed Map worker receives them (`{Key, Size, Etag, LastModified}`). */
  entryFor(key: string, size: number, etag: string, lastModified?: Date): SeedEntry | undefined {
    const relative = key.slice(this.prefix.length);
    if (!key.startsWith(this.prefix) || relative === '') return undefined;
    // "Folders" made in the S3 console are empty objects whose key ends in '/'.
    if (relative.endsWith('/')) return { type: 'directory', path: relative, mode: 0o755 };
    return {
      type: 'file', path: relative, size, mode: DEFAULT_FILE_MODE, identity: `etag:${etag}`, mtimeMs: lastModified?.getTime(),
      remote: this.location && { bucket: this.bucket, key, location: this.location },
      open: async () => (await readObject(this.client, this.bucket, key)).stream,
    };
  }
}
