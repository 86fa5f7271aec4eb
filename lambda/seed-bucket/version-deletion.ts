import { DeleteObjectsCommand, ListObjectVersionsCommand, S3Client } from '@aws-sdk/client-s3';
import { S3Attempts } from '../seed/sources/s3-retry';
import type { ObjectRecord } from './bucket-manifest';
import { CurrentObject, mayDelete } from './bucket-state';

/** A recorded object the seed may delete: its path under the prefix, its key, the exact version it wrote. */
export interface DoomedVersion {
  readonly relative: string;
  readonly key: string;
  readonly versionId: string;
}

/**
 * Splits recorded objects (those `skip` does not name) into the versions the seed may delete and the
 * paths it must keep because they changed since it wrote them (or the bucket is not versioned).
 * An object gone already is in neither: forgotten.
 */
export function deletableVersions(
  records: ReadonlyMap<string, ObjectRecord>, current: ReadonlyMap<string, CurrentObject>, prefix: string, skip: (relative: string) => boolean = () => false,
): { doomed: DoomedVersion[]; kept: string[] } {
  const doomed: DoomedVersion[] = [];
  const kept: string[] = [];
  for (const [relative, record] of records) {
    if (skip(relative)) continue;
    const now = current.get(relative);
    if (!now) continue;
    if (mayDelete(record, now)) doomed.push({ relative, key: prefix + relative, versionId: record.versionId! });
    else kept.push(relative);
  }
  return { doomed, kept };
}

/**
 * Deletes exactly these versions, 1,000 a request (DeleteObjects with a VersionId each: nothing else
 * is removed and no delete marker is left). Returns S3's reason for each key it refused.
 */
export async function deleteVersions(client: S3Client, bucket: string, objects: ReadonlyArray<{ key: string; versionId: string }>): Promise<Map<string, string>> {
  const refused = new Map<string, string>();
  for (let i = 0; i < objects.length; i += 1000) {
    const batch = objects.slice(i, i + 1000).map((o) => ({ Key: o.key, VersionId: o.versionId }));
    try {
      const answer = await new S3Attempts(`DELETE ${batch.length} versions in s3://${bucket}`).run(() => client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch, Quiet: true } })));
      for (const e of answer.Errors ?? []) if (e.Key) refused.set(e.Key, `${e.Code ?? 'refused'}: ${e.Message ?? ''}`.trim());
    } catch (err) {
      for (const o of batch) refused.set(o.Key, (err as Error).message);
    }
  }
  return refused;
}

/**
 * Deletes every version (and delete marker) of one of the seed's own keys (its manifest, its claim):
 * deleting only the current one would make the one before it current again.
 */
export async function deleteEveryVersion(client: S3Client, bucket: string, key: string): Promise<Map<string, string>> {
  const versions: Array<{ key: string; versionId: string }> = [];
  let keyMarker: string | undefined;
  let versionIdMarker: string | undefined;
  for (;;) {
    const input = { Bucket: bucket, Prefix: key, KeyMarker: keyMarker, VersionIdMarker: versionIdMarker };
    const page = await new S3Attempts(`listing the versions of s3://${bucket}/${key}`).run(() => client.send(new ListObjectVersionsCommand(input)));
    for (const v of [...page.Versions ?? [], ...page.DeleteMarkers ?? []]) {
      if (v.Key === key && v.VersionId) versions.push({ key, versionId: v.VersionId });
    }
    if (!page.IsTruncated) break;
    keyMarker = page.NextKeyMarker;
    versionIdMarker = page.NextVersionIdMarker;
  }
  return deleteVersions(client, bucket, versions);
}
