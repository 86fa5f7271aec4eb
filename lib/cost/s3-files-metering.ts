/**
 * How S3 Files meters what it bills, from the S3 User Guide's "How S3 Files is metered": every
 * operation is a data read, a data write, a metadata read or a metadata write (or two of them),
 * metered at a minimum size and then by the KiB. Imports nothing: the CLI and the constructs share it.
 * CloudWatch publishes each kind's bytes (Sum) and operations (SampleCount), not each operation's
 * size: the least they are metered as is MAX(bytes, operations x minimum), exact when every
 * operation is at or below the minimum.
 */
const KiB = 1024;

export const S3_FILES_METERING = {
  /** A read from, or a write to, the high-performance storage: 32 KiB at least. */
  dataOperationMinimumBytes: 32 * KiB,
  /** Listing, attributes, create, delete, rename, chmod, fsync: 4 KiB at least. */
  metadataOperationMinimumBytes: 4 * KiB,
} as const;

