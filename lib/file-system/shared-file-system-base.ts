import { Duration, Resource } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { EfsMetricName, EfsMetrics, IoKind, StorageClass } from '../monitoring/efs-metrics';

/**
 * What a [SharedFileSystem](#cdk-efs-kit.SharedFileSystem) offers to read of itself: its AWS/EFS
 * metrics, each named after the official metric (as aws-cdk's base classes, such as
 * `lambda.FunctionBase`, carry their constructs' metrics).
 */
export abstract class SharedFileSystemBase extends Resource {
  /** The file system's id, the `FileSystemId` dimension of its metrics. */
  public abstract readonly fileSystemId: string;

  /** `PercentIOLimit` (Average): how close a General Purpose file system is to its I/O limit. */
  public metricPercentIOLimit(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.PERCENT_IO_LIMIT, options);
  }

  /** `BurstCreditBalance` (Average, Bytes): meaningful in Bursting mode only. */
  public metricBurstCreditBalance(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.BURST_CREDIT_BALANCE, options);
  }

  /** `PermittedThroughput` (Average, Bytes/Second). */
  public metricPermittedThroughput(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.PERMITTED_THROUGHPUT, options);
  }

  /** `MeteredIOBytes` (Sum): what is compared with PermittedThroughput. */
  public metricMeteredIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.METERED_IO_BYTES, options);
  }

  /** `TotalIOBytes` (Sum); SampleCount gives operations. */
  public metricTotalIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.TOTAL_IO_BYTES, options);
  }

  /** `DataReadIOBytes` (Sum). */
  public metricDataReadIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.DATA_READ_IO_BYTES, options);
  }

  /** `DataWriteIOBytes` (Sum). */
  public metricDataWriteIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.DATA_WRITE_IO_BYTES, options);
  }

  /** `MetadataIOBytes` (Sum). */
  public metricMetadataIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.METADATA_IO_BYTES, options);
  }

  /** `MetadataReadIOBytes` (Sum). */
  public metricMetadataReadIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.METADATA_READ_IO_BYTES, options);
  }

  /** `MetadataWriteIOBytes` (Sum). */
  public metricMetadataWriteIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.METADATA_WRITE_IO_BYTES, options);
  }

  /** `ClientConnections` (Sum): mounted clients, one per Lambda execution environment. */
  public metricClientConnections(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.CLIENT_CONNECTIONS, options);
  }

  /** `StorageBytes` (Average) of one storage class (reported every 15 minutes). */
  public metricStorageBytes(storageClass: StorageClass = StorageClass.TOTAL, options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.STORAGE_BYTES, {
      period: Duration.minutes(15), ...options, dimensionsMap: { StorageClass: storageClass, ...options?.dimensionsMap },
    });
  }

  /** `TimeSinceLastSync` (Maximum, Seconds) of replication to `destinationFileSystemId`. */
  public metricTimeSinceLastSync(destinationFileSystemId: string, options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.TIME_SINCE_LAST_SYNC, {
      ...options, dimensionsMap: { DestinationFileSystemId: destinationFileSystemId, ...options?.dimensionsMap },
    });
  }

  /** Throughput in MiB/s of one kind of I/O (metric math on the `*IOBytes` Sums). */
  public metricThroughputMiBps(kind: IoKind = IoKind.TOTAL, options?: cloudwatch.MathExpressionOptions): cloudwatch.MathExpression {
    return EfsMetrics.throughputMiBps(this.fileSystemId, kind, options);
  }

  /** Operations per second of one kind of I/O (SampleCount / PERIOD). */
  public metricIops(kind: IoKind = IoKind.TOTAL, options?: cloudwatch.MathExpressionOptions): cloudwatch.MathExpression {
    return EfsMetrics.iops(this.fileSystemId, kind, options);
  }

  /** Average I/O size in KiB of one kind of I/O. */
  public metricAverageIoSizeKiB(kind: IoKind = IoKind.TOTAL, options?: cloudwatch.MathExpressionOptions): cloudwatch.MathExpression {
    return EfsMetrics.averageIoSizeKiB(this.fileSystemId, kind, options);
  }

  /** Percent of the permitted throughput in use (MeteredIOBytes against PermittedThroughput). */
  public metricPermittedThroughputUtilization(options?: cloudwatch.MathExpressionOptions): cloudwatch.MathExpression {
    return EfsMetrics.permittedThroughputUtilization(this.fileSystemId, options);
  }
}
