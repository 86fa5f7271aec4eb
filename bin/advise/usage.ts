import type { IoBytes, StoredBytes } from '../../lib/cost/efs-cost';
import type { IoOperations } from '../../lib/cost/least-metered';

/** A day's I/O: bytes (Sums) and operations (SampleCounts) of each kind. */
export interface DayIo extends IoBytes {
  /** MetadataIOBytes, for file systems that report no read/write split. */
  readonly metadataBytes: number;
  /** Each kind's operations; `metadata` counts MetadataIOBytes'. */
  readonly operations: IoOperations & { readonly metadata: number };
}

/** What CloudWatch holds about one EFS file system over a window of whole minutes, [start, end): the input of the advice. */
export interface EfsUsage {
  readonly fileSystemId: string;
  readonly start: Date;
  readonly end: Date;
  /** MeteredIOBytes (Sum) of each minute from `start`; 0 where CloudWatch has no datapoint, which EFS leaves for a minute without I/O. */
  readonly meteredBytesPerMinute: Float64Array;
  /** Each day's I/O from `start`. */
  readonly days: DayIo[];
  /** StorageBytes (Average) of each hour from `start`, by class; undefined for an hour without a datapoint. */
  readonly storageByHour: Array<StoredHour | undefined>;
  /** BurstCreditBalance at the window's first datapoint (Average of its hour), when the file system reports it (Bursting). */
  readonly startCreditBytes?: number;
}

export interface StoredHour extends StoredBytes {
  readonly total: number;
}

/** One kind of S3 Files operation in a slot: its bytes (Sum) and operations (SampleCount). */
export interface BytesAndOperations {
  readonly bytes: number;
  readonly operations: number;
}

/** The four kinds S3 Files meters and publishes (DataReadBytes, DataWriteBytes, MetadataReadBytes, MetadataWriteBytes). */
export const S3_FILES_KINDS = ['dataRead', 'dataWrite', 'metadataRead', 'metadataWrite'] as const;
export type S3FilesKind = typeof S3_FILES_KINDS[number];

/** What CloudWatch holds about one S3 Files file system over a window of whole minutes, [start, end) (namespace AWS/S3/Files). */
export interface S3FilesUsage {
  readonly fileSystemId: string;
  readonly start: Date;
  readonly end: Date;
  /** Each minute from `start`, by kind; 0 where CloudWatch has no datapoint. The sync's own traffic is not in them. */
  readonly minutes: Array<Record<S3FilesKind, BytesAndOperations>>;
  /** StorageBytes (Average) of each hour from `start`: the high-performance storage; undefined for an hour without a datapoint. */
  readonly storageByHour: Array<number | undefined>;
}
