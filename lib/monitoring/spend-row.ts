import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as efs from 'aws-cdk-lib/aws-efs';
import { Construct } from 'constructs';
import { EfsMetricName, EfsMetrics } from './efs-metrics';
import { graph, note } from './dashboard-widgets';
import { billedUsage, dailySpendUsd, dataAccessUsdPerHour, SpendModel } from './spend-math';
import type { EfsPricingProps } from '../cost/efs-pricing';

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
 * the day's spend projected from the last hour, and Elastic's access against its anomaly band;
 * without prices, what is billed without dollars. Creates the spend alarms in `scope` and returns
 * them by name; they stay out of the unhealthy composite alarm.
 */
export function addSpendRow(scope: Construct, dashboard: cloudwatch.Dashboard, model: SpendModel, settings: SpendAlarmSettings): Record<string, cloudwatch.Alarm> {
  const stdDevs = settings.dataAccessAnomalyStdDevs;
  const priced = model.pricing && pricedWidgets(scope, model, model.pricing, settings.dailySpendLimitUsd);
  // Looked-up prices may miss some: the billed usage stays beside the dollars.
  const widgets = priced ? [...priced.widgets, ...(model.lookedUp ? usageGraphs(model) : [])] : usageWidgets(model);
  const alarms: Record<string, cloudwatch.Alarm> = priced?.dailySpend ? { dailySpend: priced.dailySpend } : {};
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

/** Which storage prices apply, and whether that was assumed. */
function storageNote(model: SpendModel): string {
  if (model.oneZoneAssumed) {
    return 'Storage at Regional prices: oneZone was not given, so the file system is taken as Regional (the common case); give oneZone: true for a One Zone one. ';
  }
  return `Storage at ${model.oneZone ? 'One Zone' : 'Regional'} prices. `;
}

/** Spend in dollars: data access per hour (Elastic), the day projected, and the daily spend alarm. */
function pricedWidgets(scope: Construct, model: SpendModel, pricing: EfsPricingProps, limit: number | undefined): { widgets: cloudwatch.IWidget[]; dailySpend?: cloudwatch.Alarm } {
  const daily = dailySpendUsd(model, pricing);
  const widgets: cloudwatch.IWidget[] = [note(`**Spend**, estimated at ${model.pricesNote}. ${lookupNote(model)}${BILLING_NOTE[model.throughputMode]} ${storageNote(model)}`
    + 'Per day: the last hour\'s traffic and stored bytes for 24 hours, storage by class (IA and Archive bill each file as 128 KiB at least). '
    + 'Not included: IA and Archive read and tiering charges, backups, data transfer.')];
  if (model.throughputMode === efs.ThroughputMode.ELASTIC) {
    widgets.push(graph('Data access spend (USD/hour)', dataAccessUsdPerHour(model, pricing), { stacked: true, label: 'USD/hour' }));
  }
  const perDay = [daily.dataAccess, daily.provisioned, ...daily.storage].filter((e): e is cloudwatch.MathExpression => e !== undefined);
  widgets.push(graph('Spend per day (USD/day)', perDay, {
    stacked: true, label: 'USD/day', line: limit === undefined ? undefined : { value: limit, label: 'dailySpendLimit' },
  }));
  const dailySpend = limit === undefined ? undefined : daily.total.createAlarm(scope, 'DailySpend', {
    alarmDescription: `Projected daily spend above $${limit} in 2 of the last 3 hours (the last hour's rate, storage included, at ${pricing.label}).`,
    threshold: limit, evaluationPeriods: 3, datapointsToAlarm: 2,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
  return { widgets, dailySpend };
}

/** For prices looked up at deploy time: their date, and those the Price List did not have. */
function lookupNote(model: SpendModel): string {
  if (!model.lookedUp) return '';
  return `Effective ${model.lookedUp.effectiveDate}. Not in the Price List for the Region, so counted as $0 (the billed usage graphs show their part): ${model.lookedUp.missing}. `;
}

/** No prices known: what the file system is billed for, in the units AWS bills it, without dollars. */
function usageWidgets(model: SpendModel): cloudwatch.IWidget[] {
  return [note(`**Spend**: ${model.pricesNote}, so this row shows what is billed, without dollars. `
    + `${BILLING_NOTE[model.throughputMode]} ${storageNote(model)}`
    + 'Give pricing: EfsPricing.custom({...}) with your Region\'s prices to see dollars and set a dailySpendLimit.'), ...usageGraphs(model)];
}

/** What the file system is billed for, in the units AWS bills it. */
function usageGraphs(model: SpendModel): cloudwatch.IWidget[] {
  const usage = billedUsage(model);
  const widgets: cloudwatch.IWidget[] = [];
  if (usage.dataAccess) widgets.push(graph('Data access billed (GB/hour)', usage.dataAccess, { stacked: true, label: 'GB/hour' }));
  if (usage.provisioned) widgets.push(graph('Provisioned throughput billed (MiB/s)', [usage.provisioned], { label: 'MiB/s' }));
  widgets.push(graph('Storage billed by class (GB)', usage.storage, { stacked: true, label: 'GB' }));
  return widgets;
}
