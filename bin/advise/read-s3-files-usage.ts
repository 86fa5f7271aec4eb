import { CloudWatchTarget, HOUR, MetricSeries, MINUTE, SeriesQuery } from './metric-series';
import { S3_FILES_KINDS, S3FilesKind, S3FilesUsage } from './usage';

export const S3_FILES_NAMESPACE = 'AWS/S3/Files';

/** Each kind's metric in AWS/S3/Files. */
export const S3_FILES_METRIC: Record<S3FilesKind, string> = {
  dataRead: 'DataReadBytes', dataWrite: 'DataWriteBytes', metadataRead: 'MetadataReadBytes', metadataWrite: 'MetadataWriteBytes',
};

/**
 * Reads an S3 Files file system's AWS/S3/Files metrics for [start, end) with GetMetricData: each
 * kind's bytes (Sum) and operations (SampleCount) per minute, the minute being what EFS's throughput
 * limits would count, and StorageBytes per hour (published every 15 minutes).
 */
export async function readS3FilesUsage(fileSystemId: string, start: Date, end: Date, target: CloudWatchTarget): Promise<S3FilesUsage> {
  const metric = (id: string, metricName: string, period: number, stat: SeriesQuery['stat']): SeriesQuery => ({ id, namespace: S3_FILES_NAMESPACE, metricName, period, stat });
  const series = await MetricSeries.read(fileSystemId, [
    ...S3_FILES_KINDS.flatMap((kind) => [metric(kind, S3_FILES_METRIC[kind], MINUTE, 'Sum'), metric(`${kind}Ops`, S3_FILES_METRIC[kind], MINUTE, 'SampleCount')]),
    metric('stored', 'StorageBytes', HOUR, 'Average'),
  ], start, end, target);
  const bytes = S3_FILES_KINDS.map((kind) => series.sums(kind, MINUTE));
  const operations = S3_FILES_KINDS.map((kind) => series.sums(`${kind}Ops`, MINUTE));
  return {
    fileSystemId,
    start,
    end,
    minutes: bytes[0].map((_, m) => Object.fromEntries(
      S3_FILES_KINDS.map((kind, k) => [kind, { bytes: bytes[k][m], operations: operations[k][m] }]),
    ) as S3FilesUsage['minutes'][number]),
    storageByHour: series.hourly('stored'),
  };
}
