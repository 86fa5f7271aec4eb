import { Annotations, Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct, IConstruct } from 'constructs';
import { graph, GRAPH_HEIGHT, note, TEXT_WIDTH } from './dashboard-widgets';
import { BenchmarkProbe, LatencyPercentile } from '../probe/benchmark-probe';
import { CANARY_SMALL_OPERATIONS } from '../probe/canary';
import { PROBE_METRIC } from '../probe/contract/metric-names';
import { FileSystemKind } from '../file-system/mountable-file-system';

/** The probe alarms' settings, as FileSystemMonitoring and S3FilesMonitoring both take them. */
export interface ProbeAlarmSettings {
  readonly probeLatencyP99?: Duration;
  readonly probeFailures: boolean;
}

/** A row per probe, its alarms added to `alarms` by name (`probeFailures<key>`, `probeLatency<key>`). */
export function addProbeRows(scope: Construct, dashboard: cloudwatch.Dashboard, probes: BenchmarkProbe[], settings: ProbeAlarmSettings, alarms: Record<string, cloudwatch.Alarm>): void {
  probes.forEach((probe) => addProbeRow(scope, dashboard, probe, alarmKeyOf(probe, probes), settings, alarms));
}

/** A probe's latency percentiles and throughput for whatever it ran, and alarms on its failures and canary latency. */
function addProbeRow(scope: Construct, dashboard: cloudwatch.Dashboard, probe: BenchmarkProbe, key: string, settings: ProbeAlarmSettings, alarms: Record<string, cloudwatch.Alarm>): void {
  const failures = probe.metricFailures();
  const s3Files = probe.fileSystemKind === FileSystemKind.S3_FILES;
  dashboard.addWidgets(
    note(`**Probe ${probe.node.path}**${probe.canaryInterval ? `, a canary every ${probe.canaryInterval.toHumanString()}` : ''}. `
      + 'Latency as an application feels it, per scenario and operation (p50 is the typical call, p99 the slow one in a hundred), '
      + 'and the throughput each reached. Small operations cost a round trip each; if p99 climbs while the file system\'s throughput is flat, '
      + `look at clients and connections.${s3Files ? ' On S3 Files, export-lag\'s `export` is a file\'s way to the bucket and import\'s `appear` a new prefix\'s way to the file system (thousands of ms by design).' : ''}`),
    graph('Probe latency p50 (ms)', [probe.searchOperations(PROBE_METRIC.latencyP50)], { label: 'ms' }),
    graph('Probe latency p99 (ms)', [probe.searchOperations(PROBE_METRIC.latencyP99)], { label: 'ms' }),
    new cloudwatch.GraphWidget({
      title: 'Probe throughput (bytes/s) and failures', left: [probe.searchOperations(PROBE_METRIC.throughput)], right: [failures],
      width: TEXT_WIDTH, height: GRAPH_HEIGHT,
      leftYAxis: { label: 'bytes/s', showUnits: false, min: 0 }, rightYAxis: { label: 'failures', showUnits: false, min: 0 },
    }),
  );
  if (settings.probeFailures) {
    alarms[`probeFailures${key}`] = anyFailureAlarm(scope, `ProbeFailures${key}`, failures,
      `Probe ${probe.node.path} failed: a scenario failed or hit errors, a request was refused, or the function failed.`);
  }
  const slo = settings.probeLatencyP99;
  const operations = probe.canarySmallOperations;
  if (slo !== undefined && probe.canaryInterval && operations.length === 0) {
    const scenarios = [...new Set(CANARY_SMALL_OPERATIONS.map((o) => o.scenario))].join(' and ');
    Annotations.of(scope).addWarningV2('cdk-efs-kit:probeLatencyUnwatched',
      `Probe ${probe.node.path}: its canary runs none of ${scenarios}, so no latency alarm watches it.`);
  } else if (slo !== undefined && probe.canaryInterval) {
    // One datapoint per canary run: the period is the canary's interval, at least 5 minutes.
    const period = Duration.seconds(Math.max(300, probe.canaryInterval.toSeconds()));
    const slowest = new cloudwatch.MathExpression({
      expression: `MAX([${operations.map((_, i) => `p99_${i}`).join(', ')}])`,
      usingMetrics: Object.fromEntries(operations.map((o, i) => [`p99_${i}`, probe.metricLatency(o.scenario, o.operation, LatencyPercentile.P99, { period })])),
      label: 'Slowest small operation p99 (ms)',
      period,
    });
    alarms[`probeLatency${key}`] = slowest.createAlarm(scope, `ProbeLatency${key}`, {
      alarmDescription: `Probe ${probe.node.path}: p99 latency of a small operation (${operations.map((o) => o.operation).join(', ')}) above ${slo.toMilliseconds()} ms in 2 of 3 canary runs.`,
      threshold: slo.toMilliseconds(), evaluationPeriods: 3, datapointsToAlarm: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }
}

/** Trips on any failure in a 5-minute period; no data means nothing ran, not a failure. */
export function anyFailureAlarm(scope: Construct, id: string, failures: cloudwatch.IMetric, description: string): cloudwatch.Alarm {
  return new cloudwatch.Alarm(scope, id, {
    metric: failures, alarmDescription: description, threshold: 1, evaluationPeriods: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
}

/**
 * What names a seed's or probe's alarms: its construct id (letters and digits), so that adding or
 * removing another leaves its alarms' logical ids, and so the alarms, as they are; its path where
 * another in `all` has the same id.
 */
export function alarmKeyOf(construct: IConstruct, all: IConstruct[]): string {
  const alphanumeric = (s: string) => s.replace(/[^A-Za-z0-9]/g, '');
  const shared = all.filter((c) => alphanumeric(c.node.id) === alphanumeric(construct.node.id)).length > 1;
  return alphanumeric(shared ? construct.node.path : construct.node.id);
}
