import type { BucketSeedProgress } from './bucket-seed-summary';
import type { SeedRun } from './seed-records';

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
  /**
   * The request this run serves (a custom resource's source fingerprints), recorded in the manifest
   * with the paths it added: a later run going back from `to` to `from` (a rollback) removes those
   * that its source lacks, as the seed wrote them, with or without `prune`.
   * @default - no request: nothing recorded, nothing undone
   */
  readonly run?: SeedRun;
  /**
   * Asked before a write at most every 10 s: false stops the run as the deadline does (a newer
   * request took the place over), with `superseded` in the summary.
   */
  readonly stillCurrent?: () => Promise<boolean>;
  /** How often, at most, the manifest is saved while the run goes on, once something was written since. @default 30000 */
  readonly checkpointEveryMs?: number;
  /** Called as files finish (at most every 100 ms, and at the end). */
  readonly onProgress?: (progress: BucketSeedProgress) => void;
  /** Return every file the seed covers (written or unchanged) with its size, for a visibility check through the mount. @default false */
  readonly listFiles?: boolean;
  /** S3 objects larger than this are copied in parts (UploadPartCopy) rather than by one CopyObject. @default 5 GiB, CopyObject's limit */
  readonly multipartCopyAboveBytes?: number;
  /** The parts of such a copy (at least 5 MiB; more where 10,000 parts would not hold the object). @default 512 MiB */
  readonly copyPartBytes?: number;
}
