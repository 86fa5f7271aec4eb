import { S3Client } from '@aws-sdk/client-s3';
import { readListedManifest } from './bucket-manifest';
import { listCurrentObjects } from './bucket-state';
import { BucketTarget, MANIFEST_NAME, manifestKey } from './bucket-target';
import { RequestCounts } from './request-counts';
import { deletableVersions, deleteEveryVersion, deleteVersions } from './version-deletion';

export interface BucketRemovalSummary {
  /** Objects deleted: the exact versions the seed wrote. */
  readonly removed: number;
  /** Recorded objects left because they changed since the seed wrote them (or the bucket is not versioned): the application's. */
  readonly kept: string[];
  /** Objects S3 refused to delete, with its reason. */
  readonly failed: Array<{ readonly path: string; readonly error: string }>;
  readonly requests: Record<string, number>;
}

/**
 * Removes what a bucket seed wrote under the target's prefix (what a custom resource's Delete with
 * removeOnDelete would do): each recorded object whose current version is the one the seed wrote is
 * deleted by that version id (no delete marker is left); an object the application wrote, or
 * rewrote since, is never deleted. The manifest goes last, every version of it (deleting the current
 * one alone would make the one before current again), once nothing it records is left to delete;
 * where some deletion failed it stays, so a later removal can finish.
 */
export async function removeBucketSeed(client: S3Client, target: BucketTarget): Promise<BucketRemovalSummary> {
  const counts = new RequestCounts(client);
  try {
    const current = await listCurrentObjects(client, target, { withManifest: true });
    const manifest = await readListedManifest(client, target, current);
    const { doomed, kept } = deletableVersions(manifest.objects, current, target.prefix);
    const refused = await deleteVersions(client, target.bucket, doomed);
    const failed = [...refused].map(([key, error]) => ({ path: key.slice(target.prefix.length), error: `${key.slice(target.prefix.length)}: not removed: ${error}` }));
    if (failed.length === 0 && current.get(MANIFEST_NAME)?.versionId) {
      const manifestRefused = await deleteEveryVersion(client, target.bucket, manifestKey(target));
      for (const [, error] of manifestRefused) failed.push({ path: MANIFEST_NAME, error: `${MANIFEST_NAME}: not removed: ${error}` });
    }
    return { removed: doomed.length - refused.size, kept, failed, requests: { ...counts.byKind } };
  } finally {
    counts.stop();
  }
}
