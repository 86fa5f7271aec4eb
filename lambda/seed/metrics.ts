import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { SeedSummary } from './engine';

/** CloudWatch namespace and metric names of the seed, shared with the constructs that read them. */
export const SEED_METRICS_NAMESPACE = 'CdkEfsKit';
export const SEED_METRIC = {
  files: 'SeedFiles',
  bytes: 'SeedBytes',
  written: 'SeedFilesWritten',
  skipped: 'SeedFilesSkipped',
  failed: 'SeedFilesFailed',
  duration: 'SeedDuration',
  rate: 'SeedFilesPerSecond',
} as const;

/** Publishes one invocation's work as EMF (printed to stdout, turned into metrics by CloudWatch Logs). */
export function publishSeedMetrics(seedName: string, summary: SeedSummary): void {
  const metrics = new Metrics({ namespace: SEED_METRICS_NAMESPACE, serviceName: 'cdk-efs-kit-seed' });
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
