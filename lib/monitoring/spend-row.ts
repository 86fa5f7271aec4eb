import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as efs from 'aws-cdk-lib/aws-efs';
import { Construct } from 'constructs';
import { EfsMetricName, EfsMetrics } from './efs-metrics';
import { graph, note } from './dashboard-widgets';
import { dailySpendUsd, dataAccessUsdPerHour, SpendModel } from './spend-math';

/** The spend alarms' settings, checked: undefined is off. */
export interface SpendAlarmSettings {
  readonly dailySpendLimitUsd?: number;
  readonly dataAccessAnomalyStdDevs?: number;
}

/** What each throughput mode bills beyond storage, for the row's note. */
const BILLING_NOTE: Record<efs.ThroughputMode, string> = {
  [efs.ThroughputMode.ELASTIC]: 'Elastic bills every GB read and written, metadata included: per hour by kind.',
  [efs.ThroughputMode.PROVISIONED]: 'Provisioned bills its throughput above the 50 KiB/s per GiB that Standard storage includes, whatever the traffic.',
  [efs.ThroughputMode.BURSTING]: 'Bursting throughput comes with Standard storage: the bill is storage.',
};

/**
 * FileSystemMonitoring's spend row, as the throughput mode bills: Elastic's data access per hour,
 * the day's spend projected from the last hour, and Elastic's access against its anomaly band.
 * Creates the spend alarms in `scope` and returns them by name; they stay out of the unhealthy
 * composite alarm.
 */
export function addSpendRow(scope: Construct, dashboard: cloudwatch.Dashboard, model: SpendModel, settings: SpendAlarmSettings): Record<string, cloudwatch.Alarm> {
  const daily = dailySpendUsd(model);
  const limit = settings.dailySpendLimitUsd;
  const stdDevs = settings.dataAccessAnomalyStdDevs;
  const widgets: cloudwatch.IWidget[] = [note(`**Spend**, estimated at ${model.pricing.label}. ${BILLING_NOTE[model.throughputMode]} `
    + 'Per day: the last hour\'s traffic and stored bytes for 24 hours, storage by class (IA and Archive bill each file as 128 KiB at least). '
    + 'Not included: IA and Archive read and tiering charges, backups, data transfer.')];
  if (model.throughputMode === efs.ThroughputMode.ELASTIC) {
    widgets.push(graph('Data access spend (USD/hour)', dataAccessUsdPerHour(model), { stacked: true, label: 'USD/hour' }));
  }
  const perDay = [daily.dataAccess, daily.provisioned, ...daily.storage].filter((e): e is cloudwatch.MathExpression => e !== undefined);
  widgets.push(graph('Spend per day (USD/day)', perDay, {
    stacked: true, label: 'USD/day', line: limit === undefined ? undefined : { value: limit, label: 'dailySpendLimit' },
  }));

  const alarms: Record<string, cloudwatch.Alarm> = {};
  if (limit !== undefined) {
    alarms.dailySpend = daily.total.createAlarm(scope, 'DailySpend', {
      alarmDescription: `Projected daily spend above $${limit} in 2 of the last 3 hours (the last hour's rate, storage included, at ${model.pricing.label}).`,
      threshold: limit, evaluationPeriods: 3, datapointsToAlarm: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }
  if (stdDevs !== undefined) {
    const hour = Duration.hours(1);
    const metered = EfsMetrics.metric(model.fileSystemId, EfsMetricName.METERED_IO_BYTES, { period: hour, label: 'MeteredIOBytes per hour' });
    const band = cloudwatch.Metric.anomalyDetectionFor({ metric: metered, stdDevs, period: hour, label: `Expected band (${stdDevs} standard deviations)` });
    widgets.push(graph('MeteredIOBytes per hour and band', [metered, band], { label: 'bytes' }));
    // Putting the alarm creates CloudWatch's model of the metric: no AWS::CloudWatch::AnomalyDetector needed.
    alarms.dataAccessAnomaly = new cloudwatch.AnomalyDetectionAlarm(scope, 'DataAccessAnomaly', {
      alarmDescription: `MeteredIOBytes per hour above its anomaly detection band (${stdDevs} standard deviations) in 2 of 3 hours: `
        + 'access is far above this file system\'s history, and Elastic bills every GB.',
      metric: metered, stdDevs, evaluationPeriods: 3, datapointsToAlarm: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_UPPER_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }
  dashboard.addWidgets(...widgets);
  return alarms;
}
