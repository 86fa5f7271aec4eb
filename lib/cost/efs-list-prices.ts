import type { EfsPricingProps } from './efs-pricing';

// Imports nothing at run time: the CLI and the probe's Lambda load it with efs-pricing.ts.

/** One Region's EFS list prices as this library ships them: every price, where it was read and when. */
export interface ListedRegionPrices {
  readonly region: string;
  /** The day the figures were read from `source` (YYYY-MM-DD). */
  readonly checked: string;
  readonly prices: EfsPricingProps;
}

/**
 * The Regions whose EFS list prices were found whole in a source that could be read, by Region.
 * A Region is listed only with all of its prices found; every other Region has no known price
 * (the spend row then shows usage without dollars) until it is added here with its source, or
 * the user passes EfsPricing.custom. docs/cost.md cites each figure.
 */
export const LISTED_REGION_PRICES: Record<string, ListedRegionPrices> = {
  'us-east-1': {
    region: 'us-east-1',
    checked: '2026-11-24',
    prices: {
      label: 'us-east-1 list prices, Regional, checked 2026-11-24',
      source: 'https://aws.amazon.com/efs/pricing/ (figures as quoted by secondary sources; docs/cost.md names them and which figures are inferred)',
      elasticReadPerGb: 0.03,
      elasticWritePerGb: 0.06,
      provisionedPerMibpsMonth: 6.0,
      standardStoragePerGbMonth: 0.3,
      iaStoragePerGbMonth: 0.016,
      iaStorageWithBurstingOrProvisionedPerGbMonth: 0.025,
      archiveStoragePerGbMonth: 0.008,
      oneZoneStoragePerGbMonth: 0.16,
      oneZoneIaStoragePerGbMonth: 0.0133,
      iaReadPerGb: 0.01,
      iaTieringPerGb: 0.01,
      archiveReadPerGb: 0.03,
      archiveTieringPerGb: 0.03,
    },
  },
};
