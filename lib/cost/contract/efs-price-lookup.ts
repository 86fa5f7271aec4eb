/**
 * The deploy-time EFS price lookup's contract: what the construct (lib/monitoring/efs-price-lookup.ts)
 * writes, what the handler (lambda/price-lookup) reads and returns, and how each price is found in
 * the AWS Price List. No SDK and no CDK imports. docs/cost.md cites a source for every filter.
 *
 * Properties (CloudFormation delivers strings):
 * ```json
 * { "Region": "eu-west-1", "Fields": "elasticReadPerGb,elasticWritePerGb,...", "FiltersVersion": "1" }
 * ```
 * Attributes (Fn::GetAtt): one per field, the price in US dollars as a decimal ("0.33"), "0" when
 * the Price List has no such price for the Region (then the field is in `Missing`); `Missing`, the
 * fields not found, comma-separated, or "none"; `EffectiveDate`, the latest effective date of the
 * prices found (YYYY-MM-DD, or "unknown" when none was).
 */
export interface PriceLookupProperties {
  /** The Region whose prices are looked up, as the Price List's `regionCode`. */
  readonly Region: string;
  /** The EfsPricing fields to look up, comma-separated. */
  readonly Fields: string;
  /** FILTERS_VERSION when the resource was written: a new filter set looks the prices up again. */
  readonly FiltersVersion: string;
}

export const PRICE_LOOKUP_RESOURCE_TYPE = 'Custom::CdkEfsKitEfsPrices';
export const MISSING_ATTRIBUTE = 'Missing';
export const EFFECTIVE_DATE_ATTRIBUTE = 'EffectiveDate';
/** A price not found, in the math: its part of the spend counts $0, and `Missing` names it. */
export const UNKNOWN_PRICE = '0';

/** A number as metric math reads it: plain decimals, never exponent notation. */
export function metricMathNumber(value: number): string {
  const text = String(value);
  return text.includes('e') ? value.toFixed(20).replace(/\.?0+$/, '') : text;
}
/** Bumped whenever PRICE_FILTERS changes, so that a deployed lookup runs again. */
export const FILTERS_VERSION = '1';

/** The Price List Query API: served from us-east-1 for every Region's prices. */
export const PRICING_API_REGION = 'us-east-1';
export const PRICING_SERVICE_CODE = 'AmazonEFS';

/**
 * How one price is found among the AmazonEFS products: GetProducts with `regionCode` and these
 * TERM_MATCH filters, then the product whose `usagetype` is the Region's prefix (EU-, USE2-, none
 * in us-east-1) followed by `usageType`, priced in `unit`.
 */
export interface PriceFilter {
  readonly attributes: Record<string, string>;
  readonly usageType: string;
  readonly unit: string;
}

/** Each EfsPricing price and how the Price List publishes it (docs/cost.md: where each comes from). */
export const PRICE_FILTERS: Record<string, PriceFilter> = {
  elasticReadPerGb: { attributes: { accessType: 'Read' }, usageType: 'ETDataAccess-Bytes', unit: 'GB' },
  elasticWritePerGb: { attributes: { accessType: 'Write' }, usageType: 'ETDataAccess-Bytes', unit: 'GB' },
  provisionedPerMibpsMonth: { attributes: { productFamily: 'Provisioned Throughput' }, usageType: 'ProvisionedTP-MiBpsHrs', unit: 'MiBps-Mo' },
  standardStoragePerGbMonth: { attributes: { storageClass: 'General Purpose' }, usageType: 'TimedStorage-ByteHrs', unit: 'GB-Mo' },
  iaStoragePerGbMonth: { attributes: { storageClass: 'Infrequent Access-ET' }, usageType: 'IATimedStorage-ET-ByteHrs', unit: 'GB-Mo' },
  iaStorageWithBurstingOrProvisionedPerGbMonth: { attributes: { storageClass: 'Infrequent Access' }, usageType: 'IATimedStorage-ByteHrs', unit: 'GB-Mo' },
  archiveStoragePerGbMonth: { attributes: { storageClass: 'Archive' }, usageType: 'ArchiveTimedStorage-ByteHrs', unit: 'GB-Mo' },
  oneZoneStoragePerGbMonth: { attributes: { storageClass: 'One Zone-General Purpose' }, usageType: 'TimedStorage-Z-ByteHrs', unit: 'GB-Mo' },
  oneZoneIaStoragePerGbMonth: { attributes: { storageClass: 'One Zone-Infrequent Access' }, usageType: 'IATimedStorage-Z-ByteHrs', unit: 'GB-Mo' },
  iaReadPerGb: { attributes: { storageClass: 'Infrequent Access', accessType: 'Read' }, usageType: 'IADataAccess-Bytes', unit: 'GB' },
  iaTieringPerGb: { attributes: { storageClass: 'Infrequent Access', accessType: 'Write' }, usageType: 'IADataAccess-Bytes', unit: 'GB' },
  archiveReadPerGb: { attributes: { storageClass: 'Archive', accessType: 'Read' }, usageType: 'ArchiveDataAccess-Bytes', unit: 'GB' },
  archiveTieringPerGb: { attributes: { storageClass: 'Archive', accessType: 'Write' }, usageType: 'ArchiveDataAccess-Bytes', unit: 'GB' },
};
