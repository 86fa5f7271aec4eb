import { Duration } from 'aws-cdk-lib';

/**
 * The period of every metric this library makes for its own parts (seed, probe) and of the alarms
 * on them, unless a caller gives another: 5 minutes, CloudWatch's standard resolution for Lambda and
 * Step Functions metrics and the span a failure alarm reports in. EFS's own metrics (EfsMetrics) keep
 * 1 minute, the resolution EFS publishes at.
 */
export const DEFAULT_METRIC_PERIOD = Duration.minutes(5);
