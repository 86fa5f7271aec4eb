import { EFS_NAMESPACE } from './read-usage';
import { S3_FILES_METRIC, S3_FILES_NAMESPACE } from './read-s3-files-usage';
import { CloudWatchTarget, DAY, MetricSeries, SeriesQuery } from './metric-series';
import { S3_FILES_KINDS } from './usage';

/** What a file system is: Amazon EFS, or Amazon S3 Files (whose ids are fs-… too). */
export type FileSystemKind = 'efs' | 's3files';

export const NAMESPACES: Record<FileSystemKind, string> = { efs: EFS_NAMESPACE, s3files: S3_FILES_NAMESPACE };

/**
 * Tells the kind by the namespace that has the file system's metrics in [start, end): AWS/EFS
 * (MeteredIOBytes, StorageBytes) or AWS/S3/Files (the four I/O metrics, StorageBytes). Undefined
 * when neither has any; an id with metrics in both is an error that asks for `--kind`.
 */
export async function detectKind(fileSystemId: string, start: Date, end: Date, target: CloudWatchTarget): Promise<FileSystemKind | undefined> {
  const efs: SeriesQuery[] = [
    { id: 'efsMetered', namespace: EFS_NAMESPACE, metricName: 'MeteredIOBytes', period: DAY, stat: 'Sum' },
    { id: 'efsStored', namespace: EFS_NAMESPACE, metricName: 'StorageBytes', period: DAY, stat: 'Average', extra: { StorageClass: 'Total' } },
  ];
  const s3Files: SeriesQuery[] = [
    ...S3_FILES_KINDS.map((kind): SeriesQuery => ({ id: kind, namespace: S3_FILES_NAMESPACE, metricName: S3_FILES_METRIC[kind], period: DAY, stat: 'Sum' })),
    { id: 's3FilesStored', namespace: S3_FILES_NAMESPACE, metricName: 'StorageBytes', period: DAY, stat: 'Average' },
  ];
  const series = await MetricSeries.read(fileSystemId, [...efs, ...s3Files], start, end, target);
  const inEfs = efs.some((q) => series.has(q.id));
  const inS3Files = s3Files.some((q) => series.has(q.id));
  if (inEfs && inS3Files) {
    throw new Error(`${fileSystemId} has metrics in both ${EFS_NAMESPACE} and ${S3_FILES_NAMESPACE} in this window: give --kind efs or --kind s3files`);
  }
  return inEfs ? 'efs' : inS3Files ? 's3files' : undefined;
}
