import { Duration, Token, Tokenization } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as efs from 'aws-cdk-lib/aws-efs';
import { metricMathNumber } from '../cost/contract/efs-price-lookup';
import type { EfsPricingProps } from '../cost/efs-pricing';
import { EfsMetricName, EfsMetrics, StorageClass } from './efs-metrics';
import { BYTES_PER_GB, includedProvisionedMibps, SECONDS_PER_MONTH, storagePricesPerGbMonth } from '../cost/efs-cost';

/**
 * Metric math for what an EFS file system costs, from the metrics AWS publishes and an EfsPricing:
 * the dashboard's spend row and the daily spend alarm; without prices, what is billed (GB read and
 * written, GB stored, MiB/s provisioned) without dollars. The billing rules are efs-cost.ts's; the
 * prices enter the expressions as literals read from the EfsPricing (or, looked up at deploy time, as the
 * lookup's attributes), so the console shows them.
 *
 * Input ids name the metric and its unit (`dataread_bytes`, `standard_bytes`); every expression
 * rescales by PERIOD() or by a per-day factor, so its unit (USD/hour, USD/day) holds at any period.
 */

/** What decides the bill besides the prices. */
export interface SpendModel {
  readonly fileSystemId: string;
  /** Undefined when none are known for the stack's Region: the row shows what is billed, without dollars. */
  readonly pricing?: EfsPricingProps;
  /** Which prices, and why these, for the row's note (their label, or that none are known for the Region). */
  readonly pricesNote: string;
  /** Set when `pricing` holds deploy-time tokens from the Price List lookup: what it did not find, and its date. */
  readonly lookedUp?: LookedUpPrices;
  readonly throughputMode: efs.ThroughputMode;
  readonly oneZone: boolean;
  /** Nothing said whether it is One Zone: its storage is taken as Regional, and the note says so. */
  readonly oneZoneAssumed: boolean;
  /** Provisioned mode's throughput, MiB/s. */
  readonly provisionedMibps?: number;
}

/** What the deploy-time lookup says about its prices, as tokens (lib/monitoring/efs-price-lookup.ts). */
export interface LookedUpPrices {
  /** The prices the Price List did not have, comma-separated, or "none". */
  readonly missing: string;
  /** The latest effective date of the prices found. */
  readonly effectiveDate: string;
}

/** The data-access lines are per hour at 5-minute resolution; the per-day lines hourly (StorageBytes comes every 15 minutes). */
const ACCESS_PERIOD = Duration.minutes(5);
const DAY_PERIOD = Duration.hours(1);

const HOURS_PER_MONTH = SECONDS_PER_MONTH / 3600;
const GB = String(BYTES_PER_GB);

/** An expression and the metrics it reads, to be combined before it becomes a MathExpression. */
interface Term {
  readonly expression: string;
  readonly usingMetrics: Record<string, cloudwatch.IMetric>;
}

/** Elastic's data-access spend per hour, by data reads, data writes and metadata (reads at the read price, writes at the write price). */
export function dataAccessUsdPerHour(model: SpendModel, pricing: EfsPricingProps): cloudwatch.MathExpression[] {
  const { elasticReadPerGb: read, elasticWritePerGb: write } = pricing;
  const perHour = (id: string) => `*3600/PERIOD(${id})`;
  const lines: Array<[string, string, string[]]> = [
    ['Data reads', `${filled('dataread_bytes')}*${literal(read)}/${GB}${perHour('dataread_bytes')}`, ['dataread_bytes']],
    ['Data writes', `${filled('datawrite_bytes')}*${literal(write)}/${GB}${perHour('datawrite_bytes')}`, ['datawrite_bytes']],
    ['Metadata', `(${filled('metadataread_bytes')}*${literal(read)}+${filled('metadatawrite_bytes')}*${literal(write)})/${GB}${perHour('metadataread_bytes')}`,
      ['metadataread_bytes', 'metadatawrite_bytes']],
  ];
  return lines.map(([label, expression, ids]) => new cloudwatch.MathExpression({
    expression,
    usingMetrics: Object.fromEntries(ids.map((id) => [id, IO_METRICS[id](model.fileSystemId, ACCESS_PERIOD)])),
    label: `${label} (USD/hour)`,
    period: ACCESS_PERIOD,
  }));
}

/** The day's spend, each part projected from the last hour: what the throughput mode bills, and storage by class. */
export interface DailySpend {
  /** Elastic: the last hour's reads and writes, 24 times. */
  readonly dataAccess?: cloudwatch.MathExpression;
  /** Provisioned: the throughput above what Standard storage includes, for a day. */
  readonly provisioned?: cloudwatch.MathExpression;
  /** Standard, IA and Archive storage for a day, at the last hour's size. */
  readonly storage: cloudwatch.MathExpression[];
  /** All of it: what the daily spend alarm watches. */
  readonly total: cloudwatch.MathExpression;
}

export function dailySpendUsd(model: SpendModel, pricing: EfsPricingProps): DailySpend {
  const access = model.throughputMode === efs.ThroughputMode.ELASTIC ? dataAccessPerDay(model, pricing) : undefined;
  const provisioned = model.throughputMode === efs.ThroughputMode.PROVISIONED ? provisionedPerDay(model, pricing) : undefined;
  const storage = storagePerDay(model, pricing);
  const parts = [access, provisioned, ...storage.map(([, term]) => term)].filter((t): t is Term => t !== undefined);
  const expression = (label: string, term: Term) => new cloudwatch.MathExpression({ ...term, label: `${label} (USD/day)`, period: DAY_PERIOD });
  return {
    dataAccess: access && expression('Data access', access),
    provisioned: provisioned && expression('Provisioned throughput', provisioned),
    storage: storage.map(([label, term]) => expression(label, term)),
    total: expression('Projected spend', {
      // Each part is a product, so a sum of them needs no parentheses.
      expression: parts.map((term) => term.expression).join('+'),
      usingMetrics: Object.assign({}, ...parts.map((term) => term.usingMetrics)),
    }),
  };
}

function dataAccessPerDay(model: SpendModel, pricing: EfsPricingProps): Term {
  const { elasticReadPerGb: read, elasticWritePerGb: write } = pricing;
  const ids = ['dataread_bytes', 'metadataread_bytes', 'datawrite_bytes', 'metadatawrite_bytes'];
  return {
    expression: `((${filled('dataread_bytes')}+${filled('metadataread_bytes')})*${literal(read)}`
      + `+(${filled('datawrite_bytes')}+${filled('metadatawrite_bytes')})*${literal(write)})/${GB}*86400/PERIOD(dataread_bytes)`,
    usingMetrics: Object.fromEntries(ids.map((id) => [id, IO_METRICS[id](model.fileSystemId, DAY_PERIOD)])),
  };
}

/** Provisioned bills the throughput above the 50 KiB/s per GiB of Standard storage that Bursting would give for free. */
function provisionedPerDay(model: SpendModel, pricing: EfsPricingProps): Term {
  const billed = billedProvisionedMibps(model);
  return { ...billed, expression: `${billed.expression}*${literal(pricing.provisionedPerMibpsMonth)}*24/${HOURS_PER_MONTH}` };
}

/** The provisioned MiB/s above what Standard storage includes, at the day lines' period. */
function billedProvisionedMibps(model: SpendModel): Term {
  const included = `${filled('standard_bytes')}/${GB}*${literal(includedProvisionedMibps(BYTES_PER_GB))}`;
  const provisioned = literal(model.provisionedMibps!);
  return {
    expression: `IF(${provisioned}>${included},${provisioned}-${included},0)`,
    usingMetrics: { standard_bytes: stored(model.fileSystemId, StorageClass.STANDARD, DAY_PERIOD) },
  };
}

/**
 * The storage classes as billed. IA and Archive bill each file as 128 KiB at least: StorageBytes
 * reports what that adds as IASizeOverhead and ArchiveSizeOverhead.
 */
const BILLED_STORAGE: Array<[string, StorageClass[]]> = [
  ['Standard storage', [StorageClass.STANDARD]],
  ['IA storage', [StorageClass.INFREQUENT_ACCESS, StorageClass.INFREQUENT_ACCESS_SIZE_OVERHEAD]],
  ['Archive storage', [StorageClass.ARCHIVE, StorageClass.ARCHIVE_SIZE_OVERHEAD]],
];

/** GB stored in each billed class, at the day lines' period. */
function storedGb(model: SpendModel): Array<[string, Term]> {
  return BILLED_STORAGE.map(([label, storageClasses]) => {
    const ids = storageClasses.map(storedId);
    const bytes = ids.length === 1 ? filled(ids[0]) : `(${ids.map(filled).join('+')})`;
    return [label, {
      expression: `${bytes}/${GB}`,
      usingMetrics: Object.fromEntries(storageClasses.map((c) => [storedId(c), stored(model.fileSystemId, c, DAY_PERIOD)])),
    }];
  });
}

/** Storage for a day at each class's price. */
function storagePerDay(model: SpendModel, pricing: EfsPricingProps): Array<[string, Term]> {
  const prices = storagePricesPerGbMonth(pricing, model.throughputMode, model.oneZone);
  const perClass = [prices.standard, prices.ia, prices.archive];
  return storedGb(model).map(([label, gb], i) => [label, { ...gb, expression: `${gb.expression}*${literal(perClass[i])}*24/${HOURS_PER_MONTH}` }]);
}

/**
 * What the file system is billed for, without prices: Elastic's GB read and written per hour (data
 * and metadata), Provisioned's MiB/s above the included baseline, GB stored by class.
 */
export interface BilledUsage {
  readonly dataAccess?: cloudwatch.MathExpression[];
  readonly provisioned?: cloudwatch.MathExpression;
  readonly storage: cloudwatch.MathExpression[];
}

export function billedUsage(model: SpendModel): BilledUsage {
  const ids = { reads: ['dataread_bytes', 'metadataread_bytes'], writes: ['datawrite_bytes', 'metadatawrite_bytes'] };
  const perHour = (label: string, [data, metadata]: string[]) => new cloudwatch.MathExpression({
    expression: `(${filled(data)}+${filled(metadata)})/${GB}*3600/PERIOD(${data})`,
    usingMetrics: Object.fromEntries([data, metadata].map((id) => [id, IO_METRICS[id](model.fileSystemId, ACCESS_PERIOD)])),
    label: `${label}, data and metadata (GB/hour)`,
    period: ACCESS_PERIOD,
  });
  const provisioned = model.throughputMode === efs.ThroughputMode.PROVISIONED ? billedProvisionedMibps(model) : undefined;
  return {
    dataAccess: model.throughputMode === efs.ThroughputMode.ELASTIC ? [perHour('Reads', ids.reads), perHour('Writes', ids.writes)] : undefined,
    provisioned: provisioned && new cloudwatch.MathExpression({ ...provisioned, label: 'Provisioned above the included baseline (MiB/s)', period: DAY_PERIOD }),
    storage: storedGb(model).map(([label, gb]) => new cloudwatch.MathExpression({ ...gb, label: `${label} (GB)`, period: DAY_PERIOD })),
  };
}

// Each input at its expression's period, which would override any other.
const ioBytes = (name: EfsMetricName) => (fileSystemId: string, period: Duration) => EfsMetrics.metric(fileSystemId, name, { statistic: cloudwatch.Stats.SUM, period });
const IO_METRICS: Record<string, (fileSystemId: string, period: Duration) => cloudwatch.Metric> = {
  dataread_bytes: ioBytes(EfsMetricName.DATA_READ_IO_BYTES),
  datawrite_bytes: ioBytes(EfsMetricName.DATA_WRITE_IO_BYTES),
  metadataread_bytes: ioBytes(EfsMetricName.METADATA_READ_IO_BYTES),
  metadatawrite_bytes: ioBytes(EfsMetricName.METADATA_WRITE_IO_BYTES),
};

const storedId = (storageClass: StorageClass) => `${storageClass.toLowerCase()}_bytes`;
const stored = (fileSystemId: string, storageClass: StorageClass, period: Duration) =>
  EfsMetrics.metric(fileSystemId, EfsMetricName.STORAGE_BYTES, { period, dimensionsMap: { StorageClass: storageClass } });

/** No datapoint is no I/O (or no data in that class), not an unknown cost. */
const filled = (id: string) => `FILL(${id},0)`;

/** A number as metric math reads it: plain decimals, never exponent notation; a token stays a token. */
function literal(value: number): string {
  if (Token.isUnresolved(value)) return Tokenization.stringifyNumber(value);
  return metricMathNumber(value);
}
