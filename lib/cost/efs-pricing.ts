// Imports only contracts and its own price list: the CLI and the probe's Lambda use the prices without pulling in aws-cdk-lib.
import { checkedPrices } from './checked-prices';
import { LISTED_REGION_PRICES } from './efs-list-prices';

/**
 * The Amazon EFS prices that decide what a file system costs, in US dollars. A GB is 2^30 bytes,
 * as AWS bills EFS; a month is 730 hours, as the AWS Pricing Calculator counts it.
 */
export interface EfsPricingProps {
  /** What these prices are, shown next to every estimate, e.g. `eu-west-1 list prices, 2026-11`. */
  readonly label: string;
  /** Where they come from (a pricing page, a contract), shown in reports. @default - not shown */
  readonly source?: string;
  /** Elastic throughput: per GB read, data and metadata reads alike, from any storage class. */
  readonly elasticReadPerGb: number;
  /** Elastic throughput: per GB written, data and metadata writes alike, to any storage class. */
  readonly elasticWritePerGb: number;
  /**
   * Provisioned throughput: per MiB/s per month, billed only above the baseline the file system's
   * Standard storage includes (50 KiB/s per GiB).
   */
  readonly provisionedPerMibpsMonth: number;
  /** Standard storage (Regional), per GB-month. Bursting throughput comes with it at no charge. */
  readonly standardStoragePerGbMonth: number;
  /** Infrequent Access storage (Regional) on a file system with Elastic throughput, per GB-month. */
  readonly iaStoragePerGbMonth: number;
  /** Infrequent Access storage (Regional) on a file system with Bursting or Provisioned throughput, per GB-month. */
  readonly iaStorageWithBurstingOrProvisionedPerGbMonth: number;
  /** Archive storage (Regional; Elastic throughput only), per GB-month. */
  readonly archiveStoragePerGbMonth: number;
  /** One Zone storage (the One Zone file system's Standard class), per GB-month. */
  readonly oneZoneStoragePerGbMonth: number;
  /** One Zone-IA storage, per GB-month. */
  readonly oneZoneIaStoragePerGbMonth: number;
  /** Reading from Infrequent Access: per GB, on top of any Elastic read charge. */
  readonly iaReadPerGb: number;
  /** Lifecycle management moving files into (or out of) Infrequent Access: per GB moved. */
  readonly iaTieringPerGb: number;
  /** Reading from Archive: per GB, on top of the Elastic read charge. */
  readonly archiveReadPerGb: number;
  /** Lifecycle management moving files into Archive: per GB moved. */
  readonly archiveTieringPerGb: number;
}

const EFS_PRICES = [
  'elasticReadPerGb', 'elasticWritePerGb', 'provisionedPerMibpsMonth', 'standardStoragePerGbMonth', 'iaStoragePerGbMonth',
  'iaStorageWithBurstingOrProvisionedPerGbMonth', 'archiveStoragePerGbMonth', 'oneZoneStoragePerGbMonth', 'oneZoneIaStoragePerGbMonth',
  'iaReadPerGb', 'iaTieringPerGb', 'archiveReadPerGb', 'archiveTieringPerGb',
] as const;

/**
 * A price list for Amazon EFS, as data: every estimate of this library (`cdk-efs-kit advise`, the
 * probe's cost columns, FileSystemMonitoring's spend row) takes its prices from one. Use
 * `EfsPricing.forRegion(region)` for the list prices this library ships, or `EfsPricing.custom({...})`
 * for a Region it has none for, or negotiated rates.
 */
export class EfsPricing {
  /**
   * us-east-1 (N. Virginia) list prices for Regional file systems, checked 2026-11-24: the figures of
   * the AWS pricing page (https://aws.amazon.com/efs/pricing/) as published in November 2023 and
   * quoted by later sources; docs/cost.md names them and which figures are inferred.
   */
  public static readonly US_EAST_1 = new EfsPricing(LISTED_REGION_PRICES['us-east-1'].prices);

  /**
   * The list prices this library ships for `region` (e.g. `us-east-1`), with the date they were
   * checked in their label and where they come from in their source; undefined when it has none
   * for that Region (docs/cost.md lists the Regions it has). Pass another Region's prices with
   * `EfsPricing.custom`.
   */
  public static forRegion(region: string): EfsPricing | undefined {
    const listed = Object.prototype.hasOwnProperty.call(LISTED_REGION_PRICES, region) ? LISTED_REGION_PRICES[region] : undefined;
    return listed && new EfsPricing(listed.prices);
  }

  /**
   * Prices of your own: another Region's, or negotiated rates. Every price is in US dollars, 0 or more.
   *
   * @example
   * // USD, from the EFS pricing page for your Region (the figures here are us-east-1's).
   * const prices = EfsPricing.custom({
   *   label: 'my Region, checked 2026-11-24',
   *   elasticReadPerGb: 0.03,
   *   elasticWritePerGb: 0.06,
   *   provisionedPerMibpsMonth: 6.0,
   *   standardStoragePerGbMonth: 0.3,
   *   iaStoragePerGbMonth: 0.016,
   *   iaStorageWithBurstingOrProvisionedPerGbMonth: 0.025,
   *   archiveStoragePerGbMonth: 0.008,
   *   oneZoneStoragePerGbMonth: 0.16,
   *   oneZoneIaStoragePerGbMonth: 0.0133,
   *   iaReadPerGb: 0.01,
   *   iaTieringPerGb: 0.01,
   *   archiveReadPerGb: 0.03,
   *   archiveTieringPerGb: 0.03,
   * });
   * files.addMonitoring('Monitoring', { pricing: prices, alarms: { dailySpendLimit: AlarmThreshold.usd(25) } });
   */
  public static custom(props: EfsPricingProps): EfsPricing {
    return new EfsPricing(props);
  }

  /** What these prices are, shown next to every estimate. */
  public readonly label: string;
  /** Where they come from, shown in reports (none: not shown). */
  public readonly source?: string;
  /** Elastic throughput: per GB read. */
  public readonly elasticReadPerGb: number;
  /** Elastic throughput: per GB written. */
  public readonly elasticWritePerGb: number;
  /** Provisioned throughput: per MiB/s per month above the included baseline. */
  public readonly provisionedPerMibpsMonth: number;
  /** Standard storage (Regional), per GB-month. */
  public readonly standardStoragePerGbMonth: number;
  /** Infrequent Access storage with Elastic throughput, per GB-month. */
  public readonly iaStoragePerGbMonth: number;
  /** Infrequent Access storage with Bursting or Provisioned throughput, per GB-month. */
  public readonly iaStorageWithBurstingOrProvisionedPerGbMonth: number;
  /** Archive storage, per GB-month. */
  public readonly archiveStoragePerGbMonth: number;
  /** One Zone storage, per GB-month. */
  public readonly oneZoneStoragePerGbMonth: number;
  /** One Zone-IA storage, per GB-month. */
  public readonly oneZoneIaStoragePerGbMonth: number;
  /** Reading from Infrequent Access: per GB. */
  public readonly iaReadPerGb: number;
  /** Moving files into or out of Infrequent Access: per GB. */
  public readonly iaTieringPerGb: number;
  /** Reading from Archive: per GB. */
  public readonly archiveReadPerGb: number;
  /** Moving files into Archive: per GB. */
  public readonly archiveTieringPerGb: number;

  private constructor(props: EfsPricingProps) {
    const p = checkedPrices('EfsPricing', props, EFS_PRICES);
    this.label = p.label;
    this.source = p.source;
    this.elasticReadPerGb = p.elasticReadPerGb;
    this.elasticWritePerGb = p.elasticWritePerGb;
    this.provisionedPerMibpsMonth = p.provisionedPerMibpsMonth;
    this.standardStoragePerGbMonth = p.standardStoragePerGbMonth;
    this.iaStoragePerGbMonth = p.iaStoragePerGbMonth;
    this.iaStorageWithBurstingOrProvisionedPerGbMonth = p.iaStorageWithBurstingOrProvisionedPerGbMonth;
    this.archiveStoragePerGbMonth = p.archiveStoragePerGbMonth;
    this.oneZoneStoragePerGbMonth = p.oneZoneStoragePerGbMonth;
    this.oneZoneIaStoragePerGbMonth = p.oneZoneIaStoragePerGbMonth;
    this.iaReadPerGb = p.iaReadPerGb;
    this.iaTieringPerGb = p.iaTieringPerGb;
    this.archiveReadPerGb = p.archiveReadPerGb;
    this.archiveTieringPerGb = p.archiveTieringPerGb;
  }
}
