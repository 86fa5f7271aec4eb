import { Duration, Size } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';

/** How DataSync verifies what it transferred. */
export enum DataSyncVerifyMode {
  /** Checksum every file transferred, at its destination (the default). */
  ONLY_FILES_TRANSFERRED = 'ONLY_FILES_TRANSFERRED',
  /** Compare the whole source and destination at the end of the transfer. */
  POINT_IN_TIME_CONSISTENT = 'POINT_IN_TIME_CONSISTENT',
  /** No verification. */
  NONE = 'NONE',
}

/** Options of the DataSync seed engine. */
export interface DataSyncEngineOptions {
  /**
   * How DataSync verifies the transfer.
   * @default DataSyncVerifyMode.ONLY_FILES_TRANSFERRED
   */
  readonly verifyMode?: DataSyncVerifyMode;
  /**
   * Transfer every file, not only those that differ from the destination. Not with
   * `removeDeletedFiles` (or the seed's `prune`): DataSync refuses TransferMode ALL with
   * PreserveDeletedFiles REMOVE.
   * @default false - TransferMode CHANGED: a re-run copies only what changed
   */
  readonly transferAll?: boolean;
  /**
   * Delete files from the file system that are no longer in the source.
   * @default false - PreserveDeletedFiles PRESERVE: nothing on the file system is ever deleted
   */
  readonly removeDeletedFiles?: boolean;
  /**
   * DataSync simple patterns of paths to include, e.g. `['/images*', '/css*']`.
   * @default - everything
   */
  readonly includes?: string[];
  /**
   * DataSync simple patterns of paths to exclude, e.g. `['*.tmp', '/drafts']`.
   * @default - nothing
   */
  readonly excludes?: string[];
  /**
   * Also run the task on this schedule (DataSync allows at most one run per hour), keeping the file
   * system in step with the bucket after the deploy.
   * @default - only at deploy time
   */
  readonly scheduleExpression?: string;
  /**
   * Cap DataSync's bandwidth, in bytes per second, to leave throughput to the applications.
   * @default - no cap
   */
  readonly bytesPerSecond?: number;
  /**
   * Retention of the task's CloudWatch log group.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
}

/** Options of the single-function seed engine. */
export interface SingleFunctionEngineOptions {
  /**
   * Memory of the seed function; Lambda gives CPU and network in proportion.
   * @default Size.mebibytes(2048)
   */
  readonly memorySize?: Size;
  /**
   * vCPUs for each seed function: its memory is sized to get them (Lambda allots a vCPU per 1,769 MB,
   * up to 6 at 10,240 MB) and the copy writes files on one worker thread per vCPU beyond the first
   * (none below 3 vCPUs, where the copy's own thread alone is fastest). More vCPUs pay off
   * when the copy is bound by the CPU (many small files or objects, from an archive or S3); a few
   * large files are bound by the network and EFS instead. A GB-second costs the same at any size,
   * so a CPU-bound seed finishes sooner for about the same price. Give this or `memorySize`, not both.
   * @default - 1 (the memorySize default, 2,048 MB)
   */
  readonly vcpus?: number;
  /**
   * Timeout of each seed invocation, 2 to 15 minutes. The copy checkpoints a minute before it runs
   * out and the next invocation resumes, until the whole seed's time limit of 50 minutes
   * (CloudFormation waits an hour for a custom resource). Seeds sharing a function each keep their
   * own; the function's timeout is the largest of theirs.
   * @default Duration.minutes(15)
   */
  readonly timeout?: Duration;
}

/** Options of the Distributed Map seed engine. */
export interface DistributedMapEngineOptions {
  /**
   * Batches copied at once, each by one worker Lambda. Every worker execution environment is one
   * EFS client connection: EFS accepts 3,000 new connections in a burst, then 500 a minute.
   * @default 100
   */
  readonly maxConcurrency?: number;
  /**
   * S3 objects per batch; a batch's input is also capped at 256 KiB.
   * @default 1000
   */
  readonly maxItemsPerBatch?: number;
  /**
   * Percentage of objects that may fail to copy before the run fails. A batch fails as a whole, after
   * its retries (Lambda errors and throttling, a worker that ran out of time, failed keys), and every
   * object in it counts.
   * @default 0 - the run fails if any object cannot be copied
   */
  readonly toleratedFailurePercentage?: number;
  /**
   * Memory of each worker.
   * @default Size.mebibytes(2048)
   */
  readonly memorySize?: Size;
  /**
   * vCPUs for each worker function: its memory is sized to get them (a vCPU per 1,769 MB, up to 6),
   * and it fetches and writes its batch's objects on one thread per vCPU beyond the first (none
   * below 3 vCPUs). Give this or
   * `memorySize`, not both.
   * @default - 1 (the memorySize default, 2,048 MB)
   */
  readonly vcpus?: number;
  /**
   * Read the keys from an S3 Inventory report instead of listing the prefix: for tens of millions
   * of objects, where listing takes hours. The report must be CSV with at least the Size and
   * LastModifiedDate fields; keys outside the seed's prefix are ignored.
   * @default - list the prefix (ListObjectsV2)
   */
  readonly inventory?: SeedInventory;
}

/** An S3 Inventory report: the bucket it is delivered to and the key of its manifest.json. */
export interface SeedInventory {
  /** The bucket the report is delivered to. */
  readonly bucket: s3.IBucket;
  /** The key of the report's manifest.json, e.g. 'inventory/source-bucket/daily/2026-11-22T01-00Z/manifest.json'. */
  readonly manifestKey: string;
}

/** Which engine does the copying. */
export enum SeedEngineKind {
  /** One Lambda function: [SeedEngine.singleFunction](#cdk-efs-kit.SeedEngine.singleFunction). */
  SINGLE_FUNCTION = 'single-function',
  /** An AWS DataSync task: [SeedEngine.dataSync](#cdk-efs-kit.SeedEngine.dataSync). */
  DATASYNC = 'datasync',
  /** A Step Functions Distributed Map of Lambda workers: [SeedEngine.distributedMap](#cdk-efs-kit.SeedEngine.distributedMap). */
  DISTRIBUTED_MAP = 'distributed-map',
}
