import type { S3FilesPricingProps } from './s3-files-pricing';

// Imports nothing at run time: the CLI and the probe's Lambda load it with s3-files-pricing.ts.

/** One Region's S3 Files list prices as this library ships them: every price, where it was read and when. */
export interface ListedS3FilesPrices {
  readonly region: string;
  /** The day the figures were read (YYYY-MM-DD). */
  readonly checked: string;
  readonly prices: S3FilesPricingProps;
}

/** S3 Files is priced inside the AmazonS3 offer; no source readable here had AWS's own page, so each figure is a quotation. */
const QUOTED = 'https://aws.amazon.com/s3/pricing/ (the S3 Files tab), as quoted by third parties; docs/cost.md names each source';

/**
 * The Regions whose S3 Files list prices were found whole, by Region; every other Region has no
 * known price (the spend row then shows usage without dollars) until it is added here, or the user
 * passes S3FilesPricing.custom. The S3 Standard figure is the first-50-TB tier.
 */
export const LISTED_S3_FILES_PRICES: Record<string, ListedS3FilesPrices> = {
  'us-east-1': {
    region: 'us-east-1',
    checked: '2026-11-28',
    prices: { label: 'us-east-1 S3 Files list prices, checked 2026-11-28', source: QUOTED, storagePerGbMonth: 0.3, readPerGb: 0.03, writePerGb: 0.06, s3StandardStoragePerGbMonth: 0.023 },
  },
  'us-east-2': {
    region: 'us-east-2',
    checked: '2026-11-28',
    prices: { label: 'us-east-2 S3 Files list prices, checked 2026-11-28', source: QUOTED, storagePerGbMonth: 0.3, readPerGb: 0.03, writePerGb: 0.06, s3StandardStoragePerGbMonth: 0.023 },
  },
  'ap-northeast-1': {
    region: 'ap-northeast-1',
    checked: '2026-11-28',
    prices: { label: 'ap-northeast-1 S3 Files list prices, checked 2026-11-28', source: QUOTED, storagePerGbMonth: 0.36, readPerGb: 0.04, writePerGb: 0.07, s3StandardStoragePerGbMonth: 0.025 },
  },
};
