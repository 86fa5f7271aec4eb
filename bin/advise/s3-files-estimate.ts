import type { IoBytes } from '../../lib/cost/efs-cost';
import { leastMeteredIo } from '../../lib/cost/least-metered';
import { s3FilesAccessUsd, s3FilesStorageUsd } from '../../lib/cost/s3-files-cost';
import { S3_FILES_METERING } from '../../lib/cost/s3-files-metering';
import type { S3FilesPricing } from '../../lib/cost/s3-files-pricing';
import { meanOfReported, metadataSplitReported, pricedDay, PricedDay, sumIo } from './day-io';
import { S3_FILES_KINDS, S3FilesUsage } from './usage';
import type { EfsUsage } from './usage';

/** The choices an S3 Files estimate rests on where the metrics cannot tell. */
export interface S3FilesAssumptions {
  readonly pricing: S3FilesPricing;
  /** Of an EFS file system's data reads, the share S3 Files would serve from its high-performance storage, in %; the rest stream from the bucket. */
  readonly cacheHitPercent: number;
  /** Of the data set, the share on the high-performance storage, in % (all of it is in the bucket). */
  readonly hotPercent: number;
}

/** What the traffic and data cost on S3 Files: the advice's S3 Files column. */
export interface S3FilesAdvice {
  readonly pricing: { readonly label: string; readonly source?: string };
  /** Data reads from the high-performance storage, each metered as 32 KiB at least. */
  readonly dataReadUsd: number;
  /** Data writes, each metered as 32 KiB at least. */
  readonly dataWriteUsd: number;
  /** Metadata reads and writes, each 4 KiB at least, and the 4 KiB metadata read of each read streamed from the bucket. */
  readonly metadataUsd: number;
  /** The sync: each written byte exported to the bucket once, metered as a read. */
  readonly exportUsd: number;
  readonly accessUsd: number;
  readonly highPerformanceStorageUsd: number;
  /** The data set in the bucket, at S3 Standard. */
  readonly bucketStorageUsd: number;
  readonly storageUsd: number;
  readonly totalUsd: number;
  /** Average bytes on the high-performance storage and in the data set; undefined without StorageBytes. */
  readonly hotBytes?: number;
  readonly dataSetBytes?: number;
  /** Data access per day from the start, the sync's included. */
  readonly perDay: number[];
  /** What the figures assume; `cacheHitPercent` only for an EFS file system's reads. */
  readonly assumptions: { readonly cacheHitPercent?: number; readonly hotPercent: number; readonly eachWrittenByteExportedOnce: true };
  readonly notes: string[];
}

/** The share of the data on the high-performance storage when not told: what AWS's EFS pricing examples keep out of IA. */
export const DEFAULT_HOT_PERCENT = 20;
/** The share of an EFS file system's data reads served from the high-performance storage when not told: all, the most their data charge can be. */
export const DEFAULT_CACHE_HIT_PERCENT = 100;

const KiB = 1024;
const MINUTES_PER_DAY = 1440;

/**
 * What an EFS file system's traffic and data would cost on S3 Files: `cacheHitPercent` of its data
 * reads (bytes and operations) served from the high-performance storage, the rest streamed from the
 * bucket (no data charge; a 4 KiB metadata read each); writes and metadata as they were, each
 * operation at S3 Files' minimum; each written byte exported once; `hotPercent` of the data (its
 * average StorageBytes, every class) on the high-performance storage, all of it in the bucket.
 */
export function s3FilesForEfs(usage: EfsUsage, assumptions: S3FilesAssumptions): S3FilesAdvice {
  const split = metadataSplitReported(usage.days);
  const hit = assumptions.cacheHitPercent / 100;
  const days = usage.days.map((day) => {
    const { io, operations } = pricedDay(day, split);
    const metered = leastMeteredIo({ ...io, dataReadBytes: io.dataReadBytes * hit }, { ...operations, dataReads: operations.dataReads * hit }, S3_FILES_MINIMUMS);
    const streamed = operations.dataReads * (1 - hit);
    return { metered: { ...metered, metadataReadBytes: metered.metadataReadBytes + streamed * S3_FILES_METERING.metadataOperationMinimumBytes }, exportedBytes: io.dataWriteBytes };
  });
  const dataSetBytes = meanOfReported(usage.storageByHour.map((h) => h?.total));
  const hotBytes = dataSetBytes === undefined ? undefined : (dataSetBytes * assumptions.hotPercent) / 100;
  const notes = [
    `S3 Files: ${assumptions.cacheHitPercent}% of data reads served from the high-performance storage (--cache-hit-percent); the rest stream from the bucket, `
      + 'with no data charge but a 4 KiB metadata read each, and S3 GET requests (not included).',
    `S3 Files: ${assumptions.hotPercent}% of the data on the high-performance storage (--hot-percent; ${DEFAULT_HOT_PERCENT}% by default, the share AWS's EFS pricing examples keep `
      + 'out of IA, and S3 Files lets data expire 30 days after its last access as EFS\'s default lifecycle moves it), all of it in the bucket at S3 Standard.',
    ...commonNotes(),
  ];
  return s3FilesAdvice(days, { hotBytes, dataSetBytes }, usage, assumptions, { notes, cacheHitPercent: assumptions.cacheHitPercent });
}

/**
 * What an S3 Files file system's traffic and data cost: each day's bytes and operations of each kind
 * as AWS/S3/Files reports them, each operation at its minimum; each written byte exported once; its
 * StorageBytes on the high-performance storage and the data set (StorageBytes over `hotPercent`) in the bucket.
 */
export function s3FilesAsReported(usage: S3FilesUsage, assumptions: S3FilesAssumptions): S3FilesAdvice {
  const days = s3FilesDays(usage).map(({ io, operations }) => ({ metered: leastMeteredIo(io, operations, S3_FILES_MINIMUMS), exportedBytes: io.dataWriteBytes }));
  const hotBytes = meanOfReported(usage.storageByHour);
  const dataSetBytes = hotBytes === undefined ? undefined : dataSetOf(hotBytes, assumptions.hotPercent);
  const notes = [
    `S3 Files: the data set is the high-performance storage over ${assumptions.hotPercent}% (--hot-percent), as AWS/S3/Files does not publish the bucket's size: `
      + 'it is priced in the bucket at S3 Standard here, and on EFS in the columns beside.',
    ...commonNotes(),
    'EFS: each S3 Files operation as an EFS request of the same size; MeteredIOBytes per minute as EFS counts them (4 KiB a request at least, data reads at a third); '
      + 'S3 Files\' sync traffic has no counterpart on EFS.',
  ];
  return s3FilesAdvice(days, { hotBytes, dataSetBytes }, usage, assumptions, { notes });
}

/** The data set behind `hotBytes` of high-performance storage when `hotPercent` of it is there. */
export function dataSetOf(hotBytes: number, hotPercent: number): number {
  return (hotBytes * 100) / hotPercent;
}

/** An S3 Files file system's minutes summed into days from its start. */
export function s3FilesDays(usage: S3FilesUsage): PricedDay[] {
  const out: PricedDay[] = [];
  for (let d = 0; d * MINUTES_PER_DAY < usage.minutes.length; d++) {
    const minutes = usage.minutes.slice(d * MINUTES_PER_DAY, (d + 1) * MINUTES_PER_DAY);
    const [dataRead, dataWrite, metadataRead, metadataWrite] = S3_FILES_KINDS.map((kind) => ({
      bytes: minutes.reduce((s, m) => s + m[kind].bytes, 0), operations: minutes.reduce((s, m) => s + m[kind].operations, 0),
    }));
    out.push({
      io: { dataReadBytes: dataRead.bytes, dataWriteBytes: dataWrite.bytes, metadataReadBytes: metadataRead.bytes, metadataWriteBytes: metadataWrite.bytes },
      operations: { dataReads: dataRead.operations, dataWrites: dataWrite.operations, metadataReads: metadataRead.operations, metadataWrites: metadataWrite.operations },
    });
  }
  return out;
}

const S3_FILES_MINIMUMS = { data: S3_FILES_METERING.dataOperationMinimumBytes, metadata: S3_FILES_METERING.metadataOperationMinimumBytes };

function commonNotes(): string[] {
  return [
    `S3 Files data access is the least the bill can be: each day's reads and writes of each kind metered as MAX(bytes, operations x `
      + `${S3_FILES_METERING.dataOperationMinimumBytes / KiB} KiB), metadata x ${S3_FILES_METERING.metadataOperationMinimumBytes / KiB} KiB, `
      + 'operations from SampleCount (larger operations are metered by the KiB above the minimum).',
    'S3 Files: each written byte exported to the bucket once, metered as a read (writes to a file within one export batch go once, so it can be less); '
      + 'not included: imports of data read from the bucket (metered as writes), the bucket\'s PUT and GET requests, its noncurrent versions, data transfer.',
  ];
}

function s3FilesAdvice(
  days: Array<{ metered: IoBytes; exportedBytes: number }>, stored: { hotBytes?: number; dataSetBytes?: number }, window: { start: Date; end: Date },
  assumptions: S3FilesAssumptions, named: { notes: string[]; cacheHitPercent?: number },
): S3FilesAdvice {
  const { pricing } = assumptions;
  const seconds = (window.end.getTime() - window.start.getTime()) / 1000;
  const access = s3FilesAccessUsd(sumIo(days.map((d) => d.metered)), days.reduce((s, d) => s + d.exportedBytes, 0), pricing);
  const accessUsd = access.dataReadUsd + access.dataWriteUsd + access.metadataUsd + access.exportUsd;
  const storage = s3FilesStorageUsd(stored.hotBytes ?? 0, stored.dataSetBytes ?? 0, seconds, pricing);
  const storageUsd = storage.highPerformanceStorageUsd + storage.bucketStorageUsd;
  const noStorage = stored.hotBytes === undefined ? ['S3 Files: no StorageBytes, so its storage costs are unknown (shown as $0.00).'] : [];
  return {
    pricing: { label: pricing.label, source: pricing.source },
    ...access,
    accessUsd,
    ...storage,
    storageUsd,
    totalUsd: accessUsd + storageUsd,
    ...stored,
    perDay: days.map((d) => {
      const day = s3FilesAccessUsd(d.metered, d.exportedBytes, pricing);
      return day.dataReadUsd + day.dataWriteUsd + day.metadataUsd + day.exportUsd;
    }),
    assumptions: { cacheHitPercent: named.cacheHitPercent, hotPercent: assumptions.hotPercent, eachWrittenByteExportedOnce: true },
    notes: [...named.notes, ...noStorage],
  };
}
