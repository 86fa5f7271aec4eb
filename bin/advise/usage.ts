import type { IoBytes, StoredBytes } from '../../lib/cost/efs-cost';

/** What CloudWatch holds about one file system over a window of whole minutes, [start, end): the input of the advice. */
export interface EfsUsage {
  readonly fileSystemId: string;
  readonly start: Date;
  readonly end: Date;
  /** MeteredIOBytes (Sum) of each minute from `start`; 0 where CloudWatch has no datapoint, which EFS leaves for a minute without I/O. */
  readonly meteredBytesPerMinute: Float64Array;
  /** Each day's I/O from `start` (Sums); `metadataBytes` is MetadataIOBytes, for file systems that report no read/write split. */
  readonly days: Array<IoBytes & { readonly metadataBytes: number }>;
  /** StorageBytes (Average) of each hour from `start`, by class; undefined for an hour without a datapoint. */
  readonly storageByHour: Array<StoredHour | undefined>;
  /** BurstCreditBalance at the window's first datapoint (Average of its hour), when the file system reports it (Bursting). */
  readonly startCreditBytes?: number;
}

export interface StoredHour extends StoredBytes {
  readonly total: number;
}
