import type { IoBytes } from './efs-cost';

/**
 * The least a service bills for I/O it meters per operation at a minimum size (EFS Elastic and S3
 * Files: 32 KiB a data read or write, 4 KiB a metadata operation), from what CloudWatch publishes:
 * each kind's bytes (Sum) and operations (SampleCount), not each operation's size. Imports nothing.
 */

/** Operations of each kind: the SampleCount of the metric whose Sum is the bytes. */
export interface IoOperations {
  readonly dataReads: number;
  readonly dataWrites: number;
  readonly metadataReads: number;
  readonly metadataWrites: number;
}

/** MAX(bytes, operations x minimum): exact when no operation is larger than the minimum, less than the bill when some are (they are metered by the KiB above it). */
export function leastMeteredBytes(bytes: number, operations: number, minimumBytes: number): number {
  return Math.max(bytes, operations * minimumBytes);
}

/** Each kind of `io` metered at least as `minimums` say. */
export function leastMeteredIo(io: IoBytes, operations: IoOperations, minimums: { readonly data: number; readonly metadata: number }): IoBytes {
  return {
    dataReadBytes: leastMeteredBytes(io.dataReadBytes, operations.dataReads, minimums.data),
    dataWriteBytes: leastMeteredBytes(io.dataWriteBytes, operations.dataWrites, minimums.data),
    metadataReadBytes: leastMeteredBytes(io.metadataReadBytes, operations.metadataReads, minimums.metadata),
    metadataWriteBytes: leastMeteredBytes(io.metadataWriteBytes, operations.metadataWrites, minimums.metadata),
  };
}
