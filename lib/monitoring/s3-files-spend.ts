import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { metricMathNumber } from '../cost/contract/efs-price-lookup';
import { BYTES_PER_GB, SECONDS_PER_MONTH } from '../cost/efs-cost';
import { S3_FILES_METERING } from '../cost/s3-files-metering';
import type { S3FilesPricing } from '../cost/s3-files-pricing';
import { graph, note } from './dashboard-widgets';

/**
 * S3FilesMonitoring's spend row: metric math over the file system's metrics (AWS/S3/Files) and an
 * S3FilesPricing. Each kind of operation is metered at a minimum size (s3-files-metering.ts), and
 * CloudWatch gives each kind's bytes and operations, so the billed bytes are taken as
 * MAX(bytes, operations x minimum): the least the bill can be, exact for operations at or below the
 * minimum. Every expression rescales by PERIOD(), so its unit (USD/hour, USD/day) holds at any period.
 */

/** What the row reads: the file system's metrics, its bucket's, and the prices (none: usage without dollars). */
export interface S3FilesSpendModel {
  readonly metric: (metricName: string, options: cloudwatch.MetricOptions) => cloudwatch.Metric;
  readonly bucketName: string;
  readonly pricing?: S3FilesPricing;
  /** Which prices, or that none are known for the Region, for the row's note. */
  readonly pricesNote: string;
}

/** The spend alarms' settings, checked: undefined is off. */
export interface S3FilesSpendSettings {
  readonly dailySpendLimitUsd?: number;
  readonly averageWriteBytes?: number;
}

const ACCESS_PERIOD = Duration.minutes(5);
const DAY_PERIOD = Duration.hours(1);
const GB = String(BYTES_PER_GB);
const HOURS_PER_MONTH = SECONDS_PER_MONTH / 3600;

/** The four kinds of operation, each metered at its minimum, and the price that bills it. */
const KINDS = [
  { id: 'data_read', metricName: 'DataReadBytes', minimum: S3_FILES_METERING.dataOperationMinimumBytes, price: 'read' },
  { id: 'data_write', metricName: 'DataWriteBytes', minimum: S3_FILES_METERING.dataOperationMinimumBytes, price: 'write' },
  { id: 'metadata_read', metricName: 'MetadataReadBytes', minimum: S3_FILES_METERING.metadataOperationMinimumBytes, price: 'read' },
  { id: 'metadata_write', metricName: 'MetadataWriteBytes', minimum: S3_FILES_METERING.metadataOperationMinimumBytes, price: 'write' },
] as const;
type Kind = typeof KINDS[number];

/** An expression and the metrics it reads, to be combined before it becomes a MathExpression. */
interface Term {
  readonly expression: string;
  readonly usingMetrics: Record<string, cloudwatch.IMetric>;
}

/** The bytes a kind is billed for at least: MAX(bytes, operations x its minimum), with no datapoint as no operation. */
function billedBytes(model: S3FilesSpendModel, kind: Kind, period: Duration): Term {
  const bytes = `FILL(${kind.id}_bytes,0)`;
  const least = `FILL(${kind.id}_ops,0)*${kind.minimum}`;
  return {
    expression: `IF(${bytes}>${least},${bytes},${least})`,
    usingMetrics: {
      [`${kind.id}_bytes`]: model.metric(kind.metricName, { statistic: cloudwatch.Stats.SUM, period }),
      [`${kind.id}_ops`]: model.metric(kind.metricName, { statistic: cloudwatch.Stats.SAMPLE_COUNT, period }),
    },
  };
}

/** `terms`, one per kind of `kinds`, summed and rescaled from bytes per period to GB per `seconds` (an hour, a day). */
function gbPer(terms: Term[], kinds: readonly Kind[], seconds: number): Term {
  return {
    expression: `(${terms.map((t) => t.expression).join('+')})/${GB}*${seconds}/PERIOD(${kinds[0].id}_bytes)`,
    usingMetrics: Object.assign({}, ...terms.map((t) => t.usingMetrics)),
  };
}

/** `kinds` billed at their prices, in USD per `seconds`. */
function accessUsd(model: S3FilesSpendModel, pricing: S3FilesPricing, kinds: readonly Kind[], seconds: number, period: Duration): Term {
  return gbPer(kinds.map((kind) => {
    const billed = billedBytes(model, kind, period);
    const price = kind.price === 'read' ? pricing.readPerGb : pricing.writePerGb;
    return { ...billed, expression: `${billed.expression}*${metricMathNumber(price)}` };
  }), kinds, seconds);
}

/** The high-performance storage for a day, at the last hour's size. */
function storagePerDay(model: S3FilesSpendModel, pricing: S3FilesPricing): Term {
  return {
    expression: `FILL(stored_bytes,0)/${GB}*${metricMathNumber(pricing.storagePerGbMonth)}*24/${HOURS_PER_MONTH}`,
    usingMetrics: { stored_bytes: model.metric('StorageBytes', { statistic: cloudwatch.Stats.AVERAGE, period: DAY_PERIOD }) },
  };
}

/** What the bucket's storage, every version of every object, costs a day at S3 Standard's price (BucketSizeBytes comes daily). */
function bucketStorage(model: S3FilesSpendModel): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: 'AWS/S3', metricName: 'BucketSizeBytes',
    dimensionsMap: { BucketName: model.bucketName, StorageType: 'StandardStorage' },
    statistic: cloudwatch.Stats.AVERAGE, period: Duration.days(1),
  });
}

const NOT_INCLUDED = 'Not included: the sync\'s own metering and the bucket\'s requests (docs/monitoring.md).';

/**
 * The spend row of an S3 Files file system: data access per hour by kind, the day's spend projected
 * from the last hour (access and high-performance storage), the bucket's storage with every version
 * S3 Files keeps, and the average write against the 32 KiB it is billed as at least; without prices,
 * the billed GB without dollars. Creates the spend alarms in `scope` and returns them by name.
 */
export function addS3FilesSpendRow(scope: Construct, dashboard: cloudwatch.Dashboard, model: S3FilesSpendModel, settings: S3FilesSpendSettings): Record<string, cloudwatch.Alarm> {
  const alarms: Record<string, cloudwatch.Alarm> = {};
  const pricing = model.pricing;
  const minimumKiB = S3_FILES_METERING.dataOperationMinimumBytes / 1024;
  const widgets: cloudwatch.IWidget[] = [note(pricing
    ? `**Spend** at ${model.pricesNote}: the least the bill can be (a data operation is billed as ${minimumKiB} KiB at least, metadata `
      + `${S3_FILES_METERING.metadataOperationMinimumBytes / 1024} KiB). Per day: the last hour's access 24 times, and the high-performance storage. ${NOT_INCLUDED}`
    : `**Spend**: ${model.pricesNote}, so this row shows what is billed, without dollars: GB metered per hour (each data operation ${minimumKiB} KiB at least) `
      + 'and GB stored. Give pricing: S3FilesPricing.custom({...}) with your Region\'s prices to see dollars and set a dailySpendLimit.')];
  if (pricing) {
    const perHour = (label: string, kinds: readonly Kind[]) => new cloudwatch.MathExpression({
      ...accessUsd(model, pricing, kinds, 3600, ACCESS_PERIOD), label: `${label} (USD/hour)`, period: ACCESS_PERIOD,
    });
    widgets.push(graph('Data access spend (USD/hour)', [
      perHour('Data reads', [KINDS[0]]), perHour('Data writes', [KINDS[1]]), perHour('Metadata', [KINDS[2], KINDS[3]]),
    ], { stacked: true, label: 'USD/hour' }));
    const access = accessUsd(model, pricing, KINDS, 86400, DAY_PERIOD);
    const storage = storagePerDay(model, pricing);
    const limit = settings.dailySpendLimitUsd;
    widgets.push(graph('Spend per day (USD/day)', [
      new cloudwatch.MathExpression({ ...access, label: 'Data access (USD/day)', period: DAY_PERIOD }),
      new cloudwatch.MathExpression({ ...storage, label: 'High-performance storage (USD/day)', period: DAY_PERIOD }),
    ], { stacked: true, label: 'USD/day', line: limit === undefined ? undefined : { value: limit, label: 'dailySpendLimit' } }));
    // Over two days, whatever the dashboard's range: BucketSizeBytes comes once a day, stamped at midnight.
    widgets.push(graph('Bucket storage (USD/day)', [new cloudwatch.MathExpression({
      expression: `FILL(bucket_bytes,0)/${GB}*${metricMathNumber(pricing.s3StandardStoragePerGbMonth)}*24/${HOURS_PER_MONTH}`,
      usingMetrics: { bucket_bytes: bucketStorage(model) }, label: 'All versions at S3 Standard (USD/day)', period: Duration.days(1),
    })], { label: 'USD/day', start: '-P2D' }));
    if (limit !== undefined) {
      alarms.dailySpend = new cloudwatch.MathExpression({
        expression: `${access.expression}+${storage.expression}`,
        usingMetrics: { ...access.usingMetrics, ...storage.usingMetrics },
        label: 'Projected spend (USD/day)', period: DAY_PERIOD,
      }).createAlarm(scope, 'DailySpend', {
        alarmDescription: `Projected daily S3 Files spend above $${limit} in 2 of the last 3 hours (the last hour's access, each operation at its least, `
          + `and the high-performance storage, at ${pricing.label}).`,
        threshold: limit, evaluationPeriods: 3, datapointsToAlarm: 2,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }
  } else {
    widgets.push(graph('Data access billed (GB/hour)', [
      new cloudwatch.MathExpression({ ...meteredGb(model, [KINDS[0], KINDS[2]]), label: 'Reads, data and metadata (GB/hour)', period: ACCESS_PERIOD }),
      new cloudwatch.MathExpression({ ...meteredGb(model, [KINDS[1], KINDS[3]]), label: 'Writes, data and metadata (GB/hour)', period: ACCESS_PERIOD }),
    ], { stacked: true, label: 'GB/hour' }));
    widgets.push(graph('Storage billed (GB)', [
      new cloudwatch.MathExpression({
        expression: `FILL(stored_bytes,0)/${GB}`,
        usingMetrics: { stored_bytes: model.metric('StorageBytes', { statistic: cloudwatch.Stats.AVERAGE, period: DAY_PERIOD }) },
        label: 'High-performance storage (GB)', period: DAY_PERIOD,
      }),
      new cloudwatch.MathExpression({
        expression: `FILL(bucket_bytes,0)/${GB}`, usingMetrics: { bucket_bytes: bucketStorage(model) }, label: 'The bucket, every version (GB)', period: Duration.days(1),
      }),
    ], { label: 'GB', start: '-P2D' }));
  }
  dashboard.addWidgets(...widgets);
  if (settings.averageWriteBytes !== undefined) {
    const hour = Duration.hours(1);
    // An hour without writes reads as the threshold itself: not below it.
    const average = new cloudwatch.MathExpression({
      expression: `IF(writes > 0, written / writes, ${settings.averageWriteBytes})`,
      usingMetrics: {
        written: model.metric('DataWriteBytes', { statistic: cloudwatch.Stats.SUM, period: hour }),
        writes: model.metric('DataWriteBytes', { statistic: cloudwatch.Stats.SAMPLE_COUNT, period: hour }),
      },
      label: 'DataWriteBytes per write, hourly', period: hour,
    });
    alarms.averageWriteSize = average.createAlarm(scope, 'AverageWriteSize', {
      alarmDescription: `The average data write was under ${settings.averageWriteBytes} bytes in each of the last 3 hours: each write is billed as `
        + `${minimumKiB} KiB at least, so smaller ones pay for more than they write (buffer writes, or write whole files at once).`,
      threshold: settings.averageWriteBytes, evaluationPeriods: 3, datapointsToAlarm: 3,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }
  return alarms;
}

/** `kinds` as metered, in GB per hour. */
function meteredGb(model: S3FilesSpendModel, kinds: readonly Kind[]): Term {
  return gbPer(kinds.map((kind) => billedBytes(model, kind, ACCESS_PERIOD)), kinds, 3600);
}
