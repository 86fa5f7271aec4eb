import type { BucketSeedProgress } from './bucket-seed-summary';

/** What `seedBucket` takes besides the client, the source and the target. */
export interface BucketSeedOptions {
  /** Objects written at once. @default 64 */
  readonly concurrency?: number;
  /** Delete the objects an earlier seed wrote that the source no longer has, where they are still as written. @default false */
  readonly prune?: boolean;
  /** Report what would be written and pruned; write and delete nothing. @default false */
  readonly dryRun?: boolean;
  /** Epoch milliseconds after which no new write starts: the run ends incomplete, the manifest records what was done. */
  readonly deadline?: number;
  /** Called as files finish (at most every 100 ms, and at the end). */
  readonly onProgress?: (progress: BucketSeedProgress) => void;
  /** Return every file the seed covers (written or unchanged) with its size, for a visibility check through the mount. @default false */
  readonly listFiles?: boolean;
  /** S3 objects larger than this are copied in parts (UploadPartCopy) rather than by one CopyObject. @default 5 GiB, CopyObject's limit */
  readonly multipartCopyAboveBytes?: number;
  /** The parts of such a copy (at least 5 MiB; more where 10,000 parts would not hold the object). @default 512 MiB */
  readonly copyPartBytes?: number;
}
