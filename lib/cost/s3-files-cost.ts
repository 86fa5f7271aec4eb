import { BYTES_PER_GB, gbMonths, IoBytes } from './efs-cost';
import type { S3FilesPricing } from './s3-files-pricing';

/**
 * What Amazon S3 Files bills, as pure formulas over an S3FilesPricing, for `cdk-efs-kit advise`:
 * data access through the file system (reads at the read price, writes at the write price, metadata
 * reads and writes alike), the high-performance storage, and the bucket's S3 Standard storage.
 * Imports nothing from aws-cdk-lib. Metering (the minimum size of each operation) is the caller's:
 * least-metered.ts and s3-files-metering.ts.
 */

/** Data access at S3 Files' prices: `io` as metered, and `exportedBytes` the sync sent to the bucket (an export is metered as a read). */
export function s3FilesAccessUsd(io: IoBytes, exportedBytes: number, pricing: S3FilesPricing) {
  const usd = (bytes: number, perGb: number) => (bytes / BYTES_PER_GB) * perGb;
  return {
    dataReadUsd: usd(io.dataReadBytes, pricing.readPerGb),
    dataWriteUsd: usd(io.dataWriteBytes, pricing.writePerGb),
    metadataUsd: usd(io.metadataReadBytes, pricing.readPerGb) + usd(io.metadataWriteBytes, pricing.writePerGb),
    exportUsd: usd(exportedBytes, pricing.readPerGb),
  };
}

/** Storage for `seconds`: `hotBytes` on the high-performance tier, and every byte of the data set in the bucket at S3 Standard. */
export function s3FilesStorageUsd(hotBytes: number, dataSetBytes: number, seconds: number, pricing: S3FilesPricing) {
  return {
    highPerformanceStorageUsd: gbMonths(hotBytes, seconds) * pricing.storagePerGbMonth,
    bucketStorageUsd: gbMonths(dataSetBytes, seconds) * pricing.s3StandardStoragePerGbMonth,
  };
}
