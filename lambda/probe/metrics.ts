import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { PROBE_DIMENSIONS, PROBE_METRIC } from '../../lib/probe/contract/metric-names';
import { isRejection, ProbeRejection, ProbeResult, scenarioFailed } from './result';

/**
 * Publishes a probe run as CloudWatch Embedded Metric Format on stdout: one event per scenario and
 * operation (dimensions FileSystemId, Scenario, Operation), each metric holding one value per round,
 * and the run's failures per file system. Powertools writes and validates the format.
 */
export function publishProbeMetrics(outcome: ProbeResult | ProbeRejection, namespace: string, fileSystemId: string): void {
  const metrics = () => {
    const m = new Metrics({ namespace });
    m.clearDefaultDimensions(); // exactly the dimensions below, no `service`
    return m;
  };
  if (!isRejection(outcome)) {
    for (const scenario of outcome.scenarios) {
      for (const summary of scenario.summary) {
        const m = metrics();
        m.addDimension(PROBE_DIMENSIONS.fileSystem, fileSystemId)
          .addDimension(PROBE_DIMENSIONS.scenario, scenario.scenario)
          .addDimension(PROBE_DIMENSIONS.operation, summary.operation);
        for (const round of scenario.rounds) {
          const op = round.operations.find((o) => o.operation === summary.operation);
          if (!op) continue;
          m.addMetric(PROBE_METRIC.latencyP50, MetricUnit.Milliseconds, op.latencyMs.p50);
          m.addMetric(PROBE_METRIC.latencyP90, MetricUnit.Milliseconds, op.latencyMs.p90);
          m.addMetric(PROBE_METRIC.latencyP99, MetricUnit.Milliseconds, op.latencyMs.p99);
          m.addMetric(PROBE_METRIC.latencyMax, MetricUnit.Milliseconds, op.latencyMs.max);
          m.addMetric(PROBE_METRIC.opsPerSecond, MetricUnit.CountPerSecond, op.opsPerSecond);
          m.addMetric(PROBE_METRIC.throughput, MetricUnit.BytesPerSecond, op.bytesPerSecond);
          m.addMetric(PROBE_METRIC.errors, MetricUnit.Count, op.errors);
        }
        m.publishStoredMetrics();
      }
    }
  }
  const failures = isRejection(outcome) ? 1 : outcome.scenarios.filter(scenarioFailed).length;
  const m = metrics();
  m.addDimension(PROBE_DIMENSIONS.fileSystem, fileSystemId);
  m.addMetric(PROBE_METRIC.failures, MetricUnit.Count, failures);
  m.publishStoredMetrics();
}
