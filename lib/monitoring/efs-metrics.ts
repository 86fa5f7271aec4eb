import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';

/** The AWS/EFS metrics this library reads, as AWS names them. */
export enum EfsMetricName {
  /** Percent of the General Purpose operations limit in use (Average). */
  PERCENT_IO_LIMIT = 'PercentIOLimit',
  /** Burst credits left, in bytes (Average; Bursting mode). */
  BURST_CREDIT_BALANCE = 'BurstCreditBalance',
  /** Throughput the file system may use, in bytes per second (Average). */
  PERMITTED_THROUGHPUT = 'PermittedThroughput',
  /** Bytes metered against the permitted throughput (Sum). */
  METERED_IO_BYTES = 'MeteredIOBytes',
  /** Bytes of every operation (Sum; SampleCount gives operations). */
  TOTAL_IO_BYTES = 'TotalIOBytes',
  /** Bytes read (Sum). */
  DATA_READ_IO_BYTES = 'DataReadIOBytes',
  /** Bytes written (Sum). */
  DATA_WRITE_IO_BYTES = 'DataWriteIOBytes',
  /** Bytes of metadata operations (Sum). */
  METADATA_IO_BYTES = 'MetadataIOBytes',
  /** Bytes of metadata reads (Sum). */
  METADATA_READ_IO_BYTES = 'MetadataReadIOBytes',
  /** Bytes of metadata writes (Sum). */
  METADATA_WRITE_IO_BYTES = 'MetadataWriteIOBytes',
  /** Connected clients (Sum). */
  CLIENT_CONNECTIONS = 'ClientConnections',
  /** Bytes stored, per storage class (Average, every 15 minutes). */
  STORAGE_BYTES = 'StorageBytes',
  /** Seconds since the last replication sync (Maximum). */
  TIME_SINCE_LAST_SYNC = 'TimeSinceLastSync',
}

/** Each metric's documented unit and default statistic. */
const SPECS: Record<EfsMetricName, { unit: cloudwatch.Unit; statistic: string }> = {
  [EfsMetricName.PERCENT_IO_LIMIT]: { unit: cloudwatch.Unit.PERCENT, statistic: cloudwatch.Stats.AVERAGE },
  [EfsMetricName.BURST_CREDIT_BALANCE]: { unit: cloudwatch.Unit.BYTES, statistic: cloudwatch.Stats.AVERAGE },
  [EfsMetricName.PERMITTED_THROUGHPUT]: { unit: cloudwatch.Unit.BYTES_PER_SECOND, statistic: cloudwatch.Stats.AVERAGE },
  [EfsMetricName.METERED_IO_BYTES]: { unit: cloudwatch.Unit.BYTES, statistic: cloudwatch.Stats.SUM },
  [EfsMetricName.TOTAL_IO_BYTES]: { unit: cloudwatch.Unit.BYTES, statistic: cloudwatch.Stats.SUM },
  [EfsMetricName.DATA_READ_IO_BYTES]: { unit: cloudwatch.Unit.BYTES, statistic: cloudwatch.Stats.SUM },
  [EfsMetricName.DATA_WRITE_IO_BYTES]: { unit: cloudwatch.Unit.BYTES, statistic: cloudwatch.Stats.SUM },
  [EfsMetricName.METADATA_IO_BYTES]: { unit: cloudwatch.Unit.BYTES, statistic: cloudwatch.Stats.SUM },
  [EfsMetricName.METADATA_READ_IO_BYTES]: { unit: cloudwatch.Unit.BYTES, statistic: cloudwatch.Stats.SUM },
  [EfsMetricName.METADATA_WRITE_IO_BYTES]: { unit: cloudwatch.Unit.BYTES, statistic: cloudwatch.Stats.SUM },
  [EfsMetricName.CLIENT_CONNECTIONS]: { unit: cloudwatch.Unit.COUNT, statistic: cloudwatch.Stats.SUM },
  [EfsMetricName.STORAGE_BYTES]: { unit: cloudwatch.Unit.BYTES, statistic: cloudwatch.Stats.AVERAGE },
  [EfsMetricName.TIME_SINCE_LAST_SYNC]: { unit: cloudwatch.Unit.SECONDS, statistic: cloudwatch.Stats.MAXIMUM },
};

/** The I/O kinds EFS meters separately; `Total` is all of them. */
export enum IoKind {
  /** Every operation (`TotalIOBytes`). */
  TOTAL = 'Total',
  /** Data reads (`DataReadIOBytes`). */
  DATA_READ = 'DataRead',
  /** Data writes (`DataWriteIOBytes`). */
  DATA_WRITE = 'DataWrite',
  /** Metadata operations (`MetadataIOBytes`). */
  METADATA = 'Metadata',
  /** Metadata reads (`MetadataReadIOBytes`). */
  METADATA_READ = 'MetadataRead',
  /** Metadata writes (`MetadataWriteIOBytes`). */
  METADATA_WRITE = 'MetadataWrite',
}

/** Storage classes of the StorageBytes metric. */
export enum StorageClass {
  /** All storage classes together. */
  TOTAL = 'Total',
  /** Standard storage. */
  STANDARD = 'Standard',
  /** Infrequent Access storage. */
  INFREQUENT_ACCESS = 'IA',
  /** Bytes IA meters beyond the files' own size (its minimum metered size per file). */
  INFREQUENT_ACCESS_SIZE_OVERHEAD = 'IASizeOverhead',
  /** Archive storage. */
  ARCHIVE = 'Archive',
  /** Bytes Archive meters beyond the files' own size (its minimum metered size per file). */
  ARCHIVE_SIZE_OVERHEAD = 'ArchiveSizeOverhead',
}

/** The `<kind>IOBytes` metric of each I/O kind. */
const IO_BYTES: Record<IoKind, EfsMetricName> = {
  [IoKind.TOTAL]: EfsMetricName.TOTAL_IO_BYTES,
  [IoKind.DATA_READ]: EfsMetricName.DATA_READ_IO_BYTES,
  [IoKind.DATA_WRITE]: EfsMetricName.DATA_WRITE_IO_BYTES,
  [IoKind.METADATA]: EfsMetricName.METADATA_IO_BYTES,
  [IoKind.METADATA_READ]: EfsMetricName.METADATA_READ_IO_BYTES,
  [IoKind.METADATA_WRITE]: EfsMetricName.METADATA_WRITE_IO_BYTES,
};

/**
 * Ids for metric math inputs, unique per metric and statistic, so several expressions can share one
 * graph or alarm (CloudWatch refuses one id for two different metrics).
 */
const bytesId = (kind: IoKind) => `${kind.toLowerCase()}_bytes`;
const opsId = (kind: IoKind) => `${kind.toLowerCase()}_ops`;

/**
 * Amazon EFS's CloudWatch metrics (namespace AWS/EFS, dimension FileSystemId, 1-minute data), spelled,
 * unitised and aggregated as AWS documents them (read 2026-11; see the EFS user guide, "Amazon
 * CloudWatch metrics for Amazon EFS"), and the metric math AWS publishes on top of them, for any file
 * system id, imported ones included. aws-cdk's generated canned metrics misspell `MetadataIOBytes`,
 * so these are built by hand.
 *
 * @example
 * const writes = EfsMetrics.throughputMiBps(files.fileSystemId, IoKind.DATA_WRITE);
 * writes.createAlarm(this, 'HeavyWrites', { threshold: 100, evaluationPeriods: 15 });
 * dashboard.addWidgets(new cloudwatch.GraphWidget({
 *   left: [writes, EfsMetrics.throughputMiBps(files.fileSystemId, IoKind.DATA_READ)],
 *   right: [EfsMetrics.metric(files.fileSystemId, EfsMetricName.CLIENT_CONNECTIONS)],
 * }));
 */
export class EfsMetrics {
  /** The CloudWatch namespace of Amazon EFS's metrics. */
  public static readonly NAMESPACE: string = 'AWS/EFS';

  /**
   * One AWS/EFS metric of `fileSystemId`, with its documented unit and statistic and a 1-minute
   * period. StorageBytes and TimeSinceLastSync take their extra dimension (StorageClass,
   * DestinationFileSystemId) in `options.dimensionsMap`.
   */
  public static metric(fileSystemId: string, name: EfsMetricName, options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    const spec = SPECS[name];
    return new cloudwatch.Metric({
      namespace: EfsMetrics.NAMESPACE,
      metricName: name,
      unit: spec.unit,
      statistic: spec.statistic,
      period: Duration.minutes(1),
      ...options,
      dimensionsMap: { FileSystemId: fileSystemId, ...options.dimensionsMap },
    });
  }

  /**
   * Throughput in MiB/s of one kind of I/O: `(Sum of <kind>IOBytes / 1 MiB) / PERIOD`, as AWS publishes it.
   *
   * @example
   * EfsMetrics.throughputMiBps(files.fileSystemId, IoKind.DATA_WRITE).createAlarm(this, 'HeavyWrites', {
   *   threshold: 100, // MiB/s
   *   evaluationPeriods: 15,
   * });
   */
  public static throughputMiBps(fileSystemId: string, kind: IoKind = IoKind.TOTAL, options: cloudwatch.MathExpressionOptions = {}): cloudwatch.MathExpression {
    return new cloudwatch.MathExpression({
      expression: `(${bytesId(kind)}/1048576)/PERIOD(${bytesId(kind)})`,
      usingMetrics: { [bytesId(kind)]: EfsMetrics.metric(fileSystemId, IO_BYTES[kind], { statistic: cloudwatch.Stats.SUM }) },
      label: `${kind} throughput (MiB/s)`,
      period: Duration.minutes(1),
      ...options,
    });
  }

  /** Operations per second of one kind of I/O: `SampleCount / PERIOD`. */
  public static iops(fileSystemId: string, kind: IoKind = IoKind.TOTAL, options: cloudwatch.MathExpressionOptions = {}): cloudwatch.MathExpression {
    return new cloudwatch.MathExpression({
      expression: `${opsId(kind)}/PERIOD(${opsId(kind)})`,
      usingMetrics: { [opsId(kind)]: EfsMetrics.metric(fileSystemId, IO_BYTES[kind], { statistic: cloudwatch.Stats.SAMPLE_COUNT, unit: cloudwatch.Unit.COUNT }) },
      label: `${kind} IOPS`,
      period: Duration.minutes(1),
      ...options,
    });
  }

  /** Average size of one operation, in KiB: `(Sum / 1 KiB) / SampleCount`. */
  public static averageIoSizeKiB(fileSystemId: string, kind: IoKind = IoKind.TOTAL, options: cloudwatch.MathExpressionOptions = {}): cloudwatch.MathExpression {
    return new cloudwatch.MathExpression({
      expression: `(${bytesId(kind)}/1024)/${opsId(kind)}`,
      usingMetrics: {
        [bytesId(kind)]: EfsMetrics.metric(fileSystemId, IO_BYTES[kind], { statistic: cloudwatch.Stats.SUM }),
        [opsId(kind)]: EfsMetrics.metric(fileSystemId, IO_BYTES[kind], { statistic: cloudwatch.Stats.SAMPLE_COUNT, unit: cloudwatch.Unit.COUNT }),
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
  public static permittedThroughputUtilization(fileSystemId: string, options: cloudwatch.MathExpressionOptions = {}): cloudwatch.MathExpression {
    return new cloudwatch.MathExpression({
      expression: '((metered_bytes/1048576)/PERIOD(metered_bytes))*100/(permitted_bps/1048576)',
      usingMetrics: {
        metered_bytes: EfsMetrics.metric(fileSystemId, EfsMetricName.METERED_IO_BYTES, { statistic: cloudwatch.Stats.SUM }),
        permitted_bps: EfsMetrics.metric(fileSystemId, EfsMetricName.PERMITTED_THROUGHPUT, { statistic: cloudwatch.Stats.AVERAGE }),
      },
      label: 'Permitted throughput used (%)',
      period: Duration.minutes(1),
      ...options,
    });
  }

  private constructor() {}
}
