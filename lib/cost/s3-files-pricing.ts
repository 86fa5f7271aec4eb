// Imports only contracts and its own price list: the CLI and the probe's Lambda use the prices without pulling in aws-cdk-lib.
import { checkedPrices } from './checked-prices';
import { LISTED_S3_FILES_PRICES } from './s3-files-list-prices';

/**
 * The Amazon S3 Files prices that decide what a file system costs, in US dollars. A GB is 2^30
 * bytes and a month 730 hours, as for EFS. The bucket's own storage and requests are S3's.
 */
export interface S3FilesPricingProps {
  /** What these prices are, shown next to every estimate, e.g. `eu-west-1 list prices, 2026-11`. */
  readonly label: string;
  /** Where they come from (a pricing page, a contract), shown in reports. @default - not shown */
  readonly source?: string;
  /** The high-performance storage: the data and metadata on the file system, per GB-month. */
  readonly storagePerGbMonth: number;
  /** Reads from the high-performance storage, per GB metered. Reads served directly from the bucket are S3 GETs instead. */
  readonly readPerGb: number;
  /** Writes to the high-performance storage, per GB metered (the import of a file's data onto it included). */
  readonly writePerGb: number;
  /** S3 Standard storage, per GB-month: what each version S3 Files writes into the bucket costs while it is kept. */
  readonly s3StandardStoragePerGbMonth: number;
}

const S3_FILES_PRICES = ['storagePerGbMonth', 'readPerGb', 'writePerGb', 's3StandardStoragePerGbMonth'] as const;

/**
 * A price list for Amazon S3 Files, as data, beside [EfsPricing](#cdk-efs-kit.EfsPricing): the
 * spend row of S3FilesMonitoring, `cdk-efs-kit compare` and `advise` take their prices from one.
 * Use `S3FilesPricing.forRegion(region)` for the list prices this library ships, or
 * `S3FilesPricing.custom({...})` for a Region it has none for, or negotiated rates.
 */
export class S3FilesPricing {
  /**
   * The list prices this library ships for `region`, with the date they were checked in their label
   * and where they come from in their source; undefined when it has none for that Region
   * (docs/cost.md lists the Regions it has and the source of each figure).
   */
  public static forRegion(region: string): S3FilesPricing | undefined {
    const listed = Object.prototype.hasOwnProperty.call(LISTED_S3_FILES_PRICES, region) ? LISTED_S3_FILES_PRICES[region] : undefined;
    return listed && new S3FilesPricing(listed.prices);
  }

  /**
   * Prices of your own: another Region's, or negotiated rates. Every price is in US dollars, 0 or more.
   *
   * @example
   * // USD, from the Amazon S3 pricing page's S3 Files tab for your Region.
   * const prices = S3FilesPricing.custom({
   *   label: 'my Region, checked 2026-11-28',
   *   storagePerGbMonth: 0.3,
   *   readPerGb: 0.03,
   *   writePerGb: 0.06,
   *   s3StandardStoragePerGbMonth: 0.023,
   * });
   * const s3Files = new S3FilesFileSystem(this, 'S3Files', { vpc });
   * new S3FilesMonitoring(this, 'S3FilesMonitoring', { fileSystem: s3Files, pricing: prices, alarms: { dailySpendLimit: AlarmThreshold.usd(25) } });
   */
  public static custom(props: S3FilesPricingProps): S3FilesPricing {
    return new S3FilesPricing(props);
  }

  /** What these prices are, shown next to every estimate. */
  public readonly label: string;
  /** Where they come from, shown in reports (none: not shown). */
  public readonly source?: string;
  /** The high-performance storage, per GB-month. */
  public readonly storagePerGbMonth: number;
  /** Reads from the high-performance storage, per GB metered. */
  public readonly readPerGb: number;
  /** Writes to the high-performance storage, per GB metered. */
  public readonly writePerGb: number;
  /** S3 Standard storage, per GB-month (the bucket's versions). */
  public readonly s3StandardStoragePerGbMonth: number;

  private constructor(props: S3FilesPricingProps) {
    const p = checkedPrices('S3FilesPricing', props, S3_FILES_PRICES);
    this.label = p.label;
    this.source = p.source;
    this.storagePerGbMonth = p.storagePerGbMonth;
    this.readPerGb = p.readPerGb;
    this.writePerGb = p.writePerGb;
    this.s3StandardStoragePerGbMonth = p.s3StandardStoragePerGbMonth;
  }
}
