// Imports nothing at run time: data and a pure formula, beside s3-files-list-prices.ts.

/**
 * S3 Standard request prices, per 1,000 requests, in US dollars: what the bucket of an S3 Files
 * file system bills for the requests sent to it (a seed through the bucket, the sync's own exports).
 * S3FilesPricing holds S3 Files' own prices; these are S3's, kept apart as data.
 */
export interface S3RequestPrices {
  readonly label: string;
  /** The day the figures were read (YYYY-MM-DD). */
  readonly checked: string;
  /** Where they come from: docs/cost.md names each source. */
  readonly source: string;
  /** PUT, COPY, POST and LIST requests (multipart parts are PUTs), per 1,000. */
  readonly putCopyPostListPer1000: number;
  /** GET, HEAD, SELECT and every other request, per 1,000 (DELETE is free). */
  readonly getAndOtherPer1000: number;
}

/** S3 Standard request prices by Region; quoted by third parties, not read from AWS's page (docs/cost.md). */
export const LISTED_S3_REQUEST_PRICES: Record<string, S3RequestPrices> = {
  'us-east-1': {
    label: 'us-east-1 S3 Standard request list prices, checked 2026-11-28',
    checked: '2026-11-28',
    source: 'https://aws.amazon.com/s3/pricing/ (Requests & data retrievals, S3 Standard), as quoted by third parties; docs/cost.md names each source',
    putCopyPostListPer1000: 0.005,
    getAndOtherPer1000: 0.0004,
  },
};

/** Which price a request kind pays: PUT, COPY, POST, LIST and multipart uploads the first, DELETE nothing, the rest the second. */
export function s3RequestTier(kind: string): 'putCopyPostList' | 'getAndOther' | 'free' {
  if (/delete/i.test(kind)) return 'free';
  if (/put|copy|post|list|upload|multipart/i.test(kind)) return 'putCopyPostList';
  return 'getAndOther';
}

/** What `requests` (a count by kind: put, copy, list, get, head, delete, ...) cost at `prices`. */
export function s3RequestsUsd(requests: Readonly<Record<string, number>>, prices: S3RequestPrices): { putCopyPostListUsd: number; getAndOtherUsd: number } {
  let tier1 = 0;
  let tier2 = 0;
  for (const [kind, n] of Object.entries(requests)) {
    const tier = s3RequestTier(kind);
    if (tier === 'putCopyPostList') tier1 += n;
    else if (tier === 'getAndOther') tier2 += n;
  }
  return { putCopyPostListUsd: (tier1 / 1000) * prices.putCopyPostListPer1000, getAndOtherUsd: (tier2 / 1000) * prices.getAndOtherPer1000 };
}
