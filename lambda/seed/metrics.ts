import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { SeedSummary } from './seed-summary';
import { SEED_METRIC, SEED_METRICS_NAMESPACE, SEED_METRICS_SERVICE } from '../../lib/seed/contract/metric-names';

/** Publishes one invocation's work as EMF (printed to stdout, turned into metrics by CloudWatch Logs). */
export function publishSeedMetrics(seedName: string, summary: SeedSummary): void {
  const metrics = new Metrics({ namespace: SEED_METRICS_NAMESPACE, serviceName: SEED_METRICS_SERVICE });
  metrics.addDimension('Seed', seedName);
  metrics.addMetric(SEED_METRIC.files, MetricUnit.Count, summary.files);
  metrics.addMetric(SEED_METRIC.bytes, MetricUnit.Bytes, summary.bytes);
  metrics.addMetric(SEED_METRIC.written, MetricUnit.Count, summary.written);
  metrics.addMetric(SEED_METRIC.skipped, MetricUnit.Count, summary.skipped);
  metrics.addMetric(SEED_METRIC.failed, MetricUnit.Count, summary.failed.length);
  metrics.addMetric(SEED_METRIC.duration, MetricUnit.Seconds, summary.seconds);
  metrics.addMetric(SEED_METRIC.rate, MetricUnit.CountPerSecond, summary.seconds > 0 ? summary.written / summary.seconds : 0);
  metrics.publishStoredMetrics();
}
