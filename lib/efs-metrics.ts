import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';

/**
 * Amazon EFS's CloudWatch metrics (namespace AWS/EFS, dimension FileSystemId, 1-minute data), spelled,
 * unitised and aggregated as AWS documents them (read 2026-11; see the EFS user guide, "Amazon
 * CloudWatch metrics for Amazon EFS"), and the metric math AWS publishes on top of them. aws-cdk's
 * generated canned metrics misspell `MetadataIOBytes`, so these are built by hand.
 */
export const EFS_NAMESPACE = 'AWS/EFS';

/** Every AWS/EFS metric this library reads, with its documented unit and default statistic. */
export const EFS_METRICS = {
  PercentIOLimit: { unit: cloudwatch.Unit.PERCENT, statistic: cloudwatch.Stats.AVERAGE },
  BurstCreditBalance: { unit: cloudwatch.Unit.BYTES, statistic: cloudwatch.Stats.AVERAGE },
  PermittedThroughput: { unit: cloudwatch.Unit.BYTES_PER_SECOND, statistic: cloudwatch.Stats.AVERAGE },
  MeteredIOBytes: { unit: cloudwatch.Unit.BYTES, statistic: cloudwatch.Stats.SUM },
  TotalIOBytes: { unit: cloudwatch.Unit.BYTES, statistic: cloudwatch.Stats.SUM },
  DataReadIOBytes: { unit: cloudwatch.Unit.BYTES, statistic: cloudwatch.Stats.SUM },
  DataWriteIOBytes: { unit: cloudwatch.Unit.BYTES, statistic: cloudwatch.Stats.SUM },
  MetadataIOBytes: { unit: cloudwatch.Unit.BYTES, statistic: cloudwatch.Stats.SUM },
  MetadataReadIOBytes: { unit: cloudwatch.Unit.BYTES, statistic: cloudwatch.Stats.SUM },
  MetadataWriteIOBytes: { unit: cloudwatch.Unit.BYTES, statistic: cloudwatch.Stats.SUM },
  ClientConnections: { unit: cloudwatch.Unit.COUNT, statistic: cloudwatch.Stats.SUM },
  StorageBytes: { unit: cloudwatch.Unit.BYTES, statistic: cloudwatch.Stats.AVERAGE },
  TimeSinceLastSync: { unit: cloudwatch.Unit.SECONDS, statistic: cloudwatch.Stats.MAXIMUM },
} as const;

export type EfsMetricName = keyof typeof EFS_METRICS;

/** The I/O kinds EFS meters separately; `Total` is all of them. */
export enum IoKind {
  TOTAL = 'Total',
  DATA_READ = 'DataRead',
  DATA_WRITE = 'DataWrite',
  METADATA = 'Metadata',
  METADATA_READ = 'MetadataRead',
  METADATA_WRITE = 'MetadataWrite',
}

/** Storage classes of the StorageBytes metric. */
export enum StorageClass {
  TOTAL = 'Total',
  STANDARD = 'Standard',
  INFREQUENT_ACCESS = 'IA',
  INFREQUENT_ACCESS_SIZE_OVERHEAD = 'IASizeOverhead',
  ARCHIVE = 'Archive',
  ARCHIVE_SIZE_OVERHEAD = 'ArchiveSizeOverhead',
}

/** One AWS/EFS metric of `fileSystemId`; extra dimensions for StorageBytes and TimeSinceLastSync. */
export function efsMetric(fileSystemId: string, name: EfsMetricName, options: cloudwatch.MetricOptions = {}, extraDimensions: Record<string, string> = {}): cloudwatch.Metric {
  const spec = EFS_METRICS[name];
  return new cloudwatch.Metric({
    namespace: EFS_NAMESPACE,
    metricName: name,
    unit: spec.unit,
    statistic: spec.statistic,
    period: Duration.minutes(1),
    ...options,
    dimensionsMap: { FileSystemId: fileSystemId, ...extraDimensions, ...options.dimensionsMap },
  });
}

/**
 * Ids for metric math inputs, unique per metric and statistic, so several expressions can share one
 * graph or alarm (CloudWatch refuses one id for two different metrics).
 */
const bytesId = (kind: IoKind) => `${kind.toLowerCase()}_bytes`;
const opsId = (kind: IoKind) => `${kind.toLowerCase()}_ops`;

/** Throughput in MiB/s of one kind of I/O: `(Sum of <kind>IOBytes / 1 MiB) / PERIOD`, as AWS publishes it. */
export function throughputMiBps(fileSystemId: string, kind: IoKind = IoKind.TOTAL, options: cloudwatch.MathExpressionOptions = {}): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({
    expression: `(${bytesId(kind)}/1048576)/PERIOD(${bytesId(kind)})`,
    usingMetrics: { [bytesId(kind)]: efsMetric(fileSystemId, `${kind}IOBytes` as EfsMetricName, { statistic: cloudwatch.Stats.SUM }) },
    label: `${kind} throughput (MiB/s)`,
    period: Duration.minutes(1),
    ...options,
  });
}

/** Operations per second of one kind of I/O: `SampleCount / PERIOD`. */
export function iops(fileSystemId: string, kind: IoKind = IoKind.TOTAL, options: cloudwatch.MathExpressionOptions = {}): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({
    expression: `${opsId(kind)}/PERIOD(${opsId(kind)})`,
    usingMetrics: { [opsId(kind)]: efsMetric(fileSystemId, `${kind}IOBytes` as EfsMetricName, { statistic: cloudwatch.Stats.SAMPLE_COUNT, unit: cloudwatch.Unit.COUNT }) },
    label: `${kind} IOPS`,
    period: Duration.minutes(1),
    ...options,
  });
}

/** Average size of one operation, in KiB: `(Sum / 1 KiB) / SampleCount`. */
export function averageIoSizeKiB(fileSystemId: string, kind: IoKind = IoKind.TOTAL, options: cloudwatch.MathExpressionOptions = {}): cloudwatch.MathExpression {
  const name = `${kind}IOBytes` as EfsMetricName;
  return new cloudwatch.MathExpression({
    expression: `(${bytesId(kind)}/1024)/${opsId(kind)}`,
    usingMetrics: {
      [bytesId(kind)]: efsMetric(fileSystemId, name, { statistic: cloudwatch.Stats.SUM }),
      [opsId(kind)]: efsMetric(fileSystemId, name, { statistic: cloudwatch.Stats.SAMPLE_COUNT, unit: cloudwatch.Unit.COUNT }),
    },
    label: `${kind} average I/O size (KiB)`,
    period: Duration.minutes(1),
    ...options,
  });
}

/**
 * Percent of the permitted throughput in use: metered MiB/s over PermittedThroughput in MiB/s
 * (`((m1/1048576)/PERIOD(m1))*100/(m2/1048576)`), the figure AWS recommends alarming on.
 */
export function permittedThroughputUtilization(fileSystemId: string, options: cloudwatch.MathExpressionOptions = {}): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({
    expression: '((metered_bytes/1048576)/PERIOD(metered_bytes))*100/(permitted_bps/1048576)',
    usingMetrics: {
      metered_bytes: efsMetric(fileSystemId, 'MeteredIOBytes', { statistic: cloudwatch.Stats.SUM }),
      permitted_bps: efsMetric(fileSystemId, 'PermittedThroughput', { statistic: cloudwatch.Stats.AVERAGE }),
    },
    label: 'Permitted throughput used (%)',
    period: Duration.minutes(1),
    ...options,
  });
}
