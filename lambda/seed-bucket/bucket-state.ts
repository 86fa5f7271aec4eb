import { ListObjectVersionsCommand, S3Client } from '@aws-sdk/client-s3';
import { S3Attempts } from '../seed/sources/s3-retry';
import { BucketTarget, MANIFEST_NAME } from './bucket-target';
import type { ObjectRecord } from './bucket-manifest';

/** The current version of an object, as S3 lists it now. */
export interface CurrentObject {
  readonly etag: string;
  /** Undefined where the bucket is not versioned (S3 lists the version id 'null'). */
  readonly versionId?: string;
  readonly size: number;
}

/** A version id as the seed keeps it: undefined where the bucket is not versioned (S3 says 'null' there). */
export const versionOf = (versionId: string | undefined) => (versionId && versionId !== 'null' ? versionId : undefined);

/**
 * What the bucket holds under the prefix now: the current version of each key (by path relative to
 * the prefix), from ListObjectVersions (1,000 versions a page). A key whose latest version is a
 * delete marker is absent. The seed's own manifest key is left out unless asked for. Noncurrent versions cost listing
 * pages (S3 Files makes a version at every write: plan a noncurrent-version rule).
 */
export async function listCurrentObjects(client: S3Client, target: BucketTarget, options: { withManifest?: boolean } = {}): Promise<Map<string, CurrentObject>> {
  const current = new Map<string, CurrentObject>();
  let keyMarker: string | undefined;
  let versionIdMarker: string | undefined;
  for (;;) {
    const input = { Bucket: target.bucket, Prefix: target.prefix || undefined, KeyMarker: keyMarker, VersionIdMarker: versionIdMarker };
    const page = await new S3Attempts(`listing the versions under s3://${target.bucket}/${target.prefix}`).run(() => client.send(new ListObjectVersionsCommand(input)));
    for (const v of page.Versions ?? []) {
      if (!v.IsLatest || v.Key === undefined) continue;
      const relative = v.Key.slice(target.prefix.length);
      if (relative === MANIFEST_NAME && !options.withManifest) continue;
      current.set(relative, { etag: v.ETag ?? '', versionId: versionOf(v.VersionId), size: v.Size ?? 0 });
    }
    if (!page.IsTruncated) return current;
    keyMarker = page.NextKeyMarker;
    versionIdMarker = page.NextVersionIdMarker;
  }
}

/** Whether the object is still the very one the seed wrote: the same version (and, unversioned, the same ETag and size). */
export function stillAsWritten(record: ObjectRecord, now: CurrentObject | undefined): boolean {
  if (!now) return false;
  if (record.versionId !== now.versionId) return false;
  return record.etag === now.etag && record.size === now.size;
}

/**
 * Whether the seed may delete it: only the exact version it wrote, and only in a versioned bucket
 * (deleting that version id removes nothing else and leaves no delete marker). Without versioning a
 * delete would remove whatever is there, possibly an identical rewrite by the application: kept.
 */
export const mayDelete = (record: ObjectRecord, now: CurrentObject | undefined) => record.versionId !== undefined && stillAsWritten(record, now);
