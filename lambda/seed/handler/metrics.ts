import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { SeedSummary } from '../copy/seed-summary';
import { SEED_METRIC, SEED_METRICS_NAMESPACE, SEED_METRICS_SERVICE } from '../../../lib/seed/contract/metric-names';

/** Publishes one invocation's work as EMF (printed to stdout, turned into metrics by CloudWatch Logs). */
export function publishSeedMetrics(seedName: string, summary: Pick<SeedSummary, 'files' | 'bytes' | 'written' | 'skipped' | 'seconds'> & { readonly failed: readonly unknown[] }): void {
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

/**
 * Runs one request of the seed's custom resource, and when it fails (a failed slice, the time limit,
 * a newer request taking over, properties refused) counts `SeedRunsFailed` under the seed's name
 * before the error goes on to the framework: the seed's functions serve every seed on their access
 * point, so their Errors metric cannot say whose request it was.
 */
export async function countingFailedRuns<T>(event: SeedNamed, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const metrics = new Metrics({ namespace: SEED_METRICS_NAMESPACE, serviceName: SEED_METRICS_SERVICE });
    metrics.addDimension('Seed', seedNameOf(event));
    metrics.addMetric(SEED_METRIC.runsFailed, MetricUnit.Count, 1);
    metrics.publishStoredMetrics();
    throw err;
  }
}

/** The `Seed` dimension of the resource's metrics, as runSlice names it: a property a hand-edited template may leave out. */
function seedNameOf(event: SeedNamed): string {
  const name = (event.ResourceProperties as { MetricsName?: unknown } | undefined)?.MetricsName;
  return typeof name === 'string' && name !== '' ? name : event.LogicalResourceId ?? 'unknown';
}

/** What names a request's seed: its resource's MetricsName, else its logical id. */
type SeedNamed = { readonly ResourceProperties?: unknown; readonly LogicalResourceId?: string };
