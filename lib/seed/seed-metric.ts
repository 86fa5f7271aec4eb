import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SEED_METRICS_NAMESPACE, SEED_METRICS_SERVICE } from './contract/metric-names';
import { DEFAULT_METRIC_PERIOD } from '../core/metric-period';

/** One of a seed's own metrics, as its handlers publish them (namespace CdkEfsKit; dimensions service and Seed, the seed's name). */
export function seedMetric(seed: string, metricName: string, unit: cloudwatch.Unit, statistic: string, options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: SEED_METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: SEED_METRICS_SERVICE, Seed: seed },
    unit,
    statistic,
    period: DEFAULT_METRIC_PERIOD,
    ...options,
  });
}

/** A metric DataSync publishes for each execution of a task (namespace AWS/DataSync; dimension TaskId, the task's `task-...` id). */
export function dataSyncMetric(taskId: string, metricName: string, unit: cloudwatch.Unit, options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: 'AWS/DataSync', metricName, dimensionsMap: { TaskId: taskId }, unit, statistic: cloudwatch.Stats.SUM, period: DEFAULT_METRIC_PERIOD, ...options,
  });
}
