import { EFS_METERING } from '../../lib/cost/efs-cost';
import { leastMeteredBytes } from '../../lib/cost/least-metered';
import { dataSetOf, s3FilesDays } from './s3-files-estimate';
import type { EfsUsage, S3FilesUsage } from './usage';

/**
 * An S3 Files file system's usage as an EFS file system would have had it: each operation an EFS
 * request of the same size (the advice meters them by EFS's minimums), MeteredIOBytes per minute as
 * EFS counts requests for throughput (4 KiB each at least, data reads at a third), and the data set
 * (StorageBytes over `hotPercent`) in Standard storage. The sync's traffic is S3 Files' own: not in it.
 */
export function efsUsageOf(usage: S3FilesUsage, hotPercent: number): EfsUsage {
  const least = EFS_METERING.throughputRequestMinimumBytes;
  const metered = usage.minutes.map((m) => leastMeteredBytes(m.dataRead.bytes / EFS_METERING.readDiscount, m.dataRead.operations, least)
    + leastMeteredBytes(m.dataWrite.bytes, m.dataWrite.operations, least)
    + leastMeteredBytes(m.metadataRead.bytes, m.metadataRead.operations, least)
    + leastMeteredBytes(m.metadataWrite.bytes, m.metadataWrite.operations, least));
  return {
    fileSystemId: usage.fileSystemId,
    start: usage.start,
    end: usage.end,
    meteredBytesPerMinute: Float64Array.from(metered),
    days: s3FilesDays(usage).map(({ io, operations }) => ({
      ...io,
      metadataBytes: io.metadataReadBytes + io.metadataWriteBytes,
      operations: { ...operations, metadata: operations.metadataReads + operations.metadataWrites },
    })),
    storageByHour: usage.storageByHour.map((hot) => {
      if (hot === undefined) return undefined;
      const dataSet = dataSetOf(hot, hotPercent);
      return { total: dataSet, standard: dataSet, ia: 0, archive: 0 };
    }),
  };
}
