import { CloudWatchTarget, DAY, HOUR, MetricSeries, MINUTE, SeriesQuery } from './metric-series';
import type { EfsUsage, StoredHour } from './usage';

export const EFS_NAMESPACE = 'AWS/EFS';

/** The day's I/O metrics: the id each is read under, and its name in AWS/EFS. */
const IO_METRICS = [
  ['dataRead', 'DataReadIOBytes'], ['dataWrite', 'DataWriteIOBytes'], ['metadataRead', 'MetadataReadIOBytes'],
  ['metadataWrite', 'MetadataWriteIOBytes'], ['metadata', 'MetadataIOBytes'],
] as const;

/**
 * Reads an EFS file system's AWS/EFS metrics for [start, end) with GetMetricData: MeteredIOBytes per
 * minute (what throughput limits and credits count), the Data/Metadata I/O Sums per day (what Elastic
 * bills) and their SampleCounts (operations, what S3 Files would meter each at a minimum size),
 * StorageBytes per hour by class, and the first BurstCreditBalance.
 */
export async function readUsage(fileSystemId: string, start: Date, end: Date, target: CloudWatchTarget): Promise<EfsUsage> {
  const metric = (id: string, metricName: string, period: number, stat: SeriesQuery['stat'], storageClass?: string): SeriesQuery => ({
    id, namespace: EFS_NAMESPACE, metricName, period, stat, extra: storageClass ? { StorageClass: storageClass } : undefined,
  });
  const series = await MetricSeries.read(fileSystemId, [
    metric('metered', 'MeteredIOBytes', MINUTE, 'Sum'),
    ...IO_METRICS.flatMap(([id, name]) => [metric(id, name, DAY, 'Sum'), metric(`${id}Ops`, name, DAY, 'SampleCount')]),
    metric('storedTotal', 'StorageBytes', HOUR, 'Average', 'Total'),
    metric('storedStandard', 'StorageBytes', HOUR, 'Average', 'Standard'),
    metric('storedIa', 'StorageBytes', HOUR, 'Average', 'IA'),
    metric('storedArchive', 'StorageBytes', HOUR, 'Average', 'Archive'),
    metric('credits', 'BurstCreditBalance', HOUR, 'Average'),
  ], start, end, target);

  const [dataRead, dataWrite, metadataRead, metadataWrite, metadata] = IO_METRICS.map(([id]) => series.sums(id, DAY));
  const [dataReads, dataWrites, metadataReads, metadataWrites, metadataOps] = IO_METRICS.map(([id]) => series.sums(`${id}Ops`, DAY));
  const [total, standard, ia, archive] = ['storedTotal', 'storedStandard', 'storedIa', 'storedArchive'].map((id) => series.hourly(id));
  const storageByHour = total.map((_, h): StoredHour | undefined => ([total, standard, ia, archive].every((s) => s[h] === undefined)
    ? undefined
    : { total: total[h] ?? 0, standard: standard[h] ?? 0, ia: ia[h] ?? 0, archive: archive[h] ?? 0 }));
  return {
    fileSystemId,
    start,
    end,
    meteredBytesPerMinute: Float64Array.from(series.sums('metered', MINUTE)),
    days: dataRead.map((_, d) => ({
      dataReadBytes: dataRead[d], dataWriteBytes: dataWrite[d], metadataReadBytes: metadataRead[d], metadataWriteBytes: metadataWrite[d], metadataBytes: metadata[d],
      operations: { dataReads: dataReads[d], dataWrites: dataWrites[d], metadataReads: metadataReads[d], metadataWrites: metadataWrites[d], metadata: metadataOps[d] },
    })),
    storageByHour,
    startCreditBytes: series.first('credits'),
  };
}
