import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { graph, note } from './dashboard-widgets';
import { EfsMetricName, EfsMetrics } from './efs-metrics';

/** Replication is watched in 5-minute periods: a lag is a matter of minutes to hours. */
const PERIOD = Duration.minutes(5);

/** Which replication the row watches: the destination's id, unless EFS picks it at deploy time. */
export interface ReplicationWatch {
  readonly destinationFileSystemId?: string;
}

/**
 * `TimeSinceLastSync` (Maximum) of the replication from `fileSystemId`. AWS publishes it with two
 * dimensions, FileSystemId (the source) and DestinationFileSystemId. With the destination known
 * that is one metric; a new destination's id is unknown at synth, so a Metrics Insights query over
 * the same two-dimension schema picks the source's series (a file system has one destination).
 */
export function timeSinceLastSync(fileSystemId: string, watch: ReplicationWatch, label?: string): cloudwatch.Metric | cloudwatch.MathExpression {
  if (watch.destinationFileSystemId !== undefined) {
    return EfsMetrics.metric(fileSystemId, EfsMetricName.TIME_SINCE_LAST_SYNC, {
      period: PERIOD, label, dimensionsMap: { DestinationFileSystemId: watch.destinationFileSystemId },
    });
  }
  return new cloudwatch.MathExpression({
    // MAX over the matching series in each period: with one destination, that destination's lag.
    expression: `SELECT MAX(${EfsMetricName.TIME_SINCE_LAST_SYNC}) FROM SCHEMA("${EfsMetrics.NAMESPACE}", DestinationFileSystemId, FileSystemId) WHERE FileSystemId = '${fileSystemId}'`,
    usingMetrics: {},
    label,
    period: PERIOD,
  });
}

/**
 * FileSystemMonitoring's replication row: the time since the last sync to the destination, and an
 * alarm when it stays above `lag` (none when `lag` is undefined).
 */
export function addReplicationRow(scope: Construct, dashboard: cloudwatch.Dashboard, fileSystemId: string, watch: ReplicationWatch, lag?: Duration): cloudwatch.Alarm | undefined {
  // The graph's metric has a label; the alarm's none, so a plain metric renders as one.
  const metric = timeSinceLastSync(fileSystemId, watch, 'Time since last sync (s)');
  const destination = watch.destinationFileSystemId === undefined ? 'its destination' : 'the destination';
  dashboard.addWidgets(
    note(`**Replication.** Seconds since the last successful sync to ${destination}: changes older than that are on the replica, `
      + 'newer ones may not be. EFS aims for 15 minutes on most file systems; the first sync of a large file system takes longer.'),
    graph('TimeSinceLastSync (s)', [metric], { label: 's', line: lag && { value: lag.toSeconds(), label: 'replicationLag' } }),
  );
  if (lag === undefined) return undefined;
  return timeSinceLastSync(fileSystemId, watch).createAlarm(scope, 'ReplicationLag', {
    alarmDescription: `TimeSinceLastSync above ${lag.toHumanString()} in 3 consecutive 5-minute periods: the replica is falling behind.`,
    threshold: lag.toSeconds(), evaluationPeriods: 3, datapointsToAlarm: 3,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    // No data before the first sync completes, or without replication: nothing to judge.
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
}
