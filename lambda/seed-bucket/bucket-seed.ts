import { S3Client } from '@aws-sdk/client-s3';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from '../../lib/seed/contract/limits';
import type { EntrySource } from '../seed/sources/entry';
import type { BucketSeedOptions } from './bucket-seed-options';
import { BucketSeedRun } from './bucket-seed-run';
import type { BucketSeedSummary } from './bucket-seed-summary';
import type { BucketTarget } from './bucket-target';
import { RequestCounts } from './request-counts';

export type { BucketSeedOptions } from './bucket-seed-options';
export { NOT_PRESERVED } from './bucket-seed-summary';
export type { BucketSeedFailure, BucketSeedProgress, BucketSeedSummary } from './bucket-seed-summary';

/**
 * Seeds the bucket behind an S3 Files file system by writing its objects directly, with S3's
 * parallelism, instead of writing files through the mount (which S3 Files exports about a minute
 * later, one object per file). Pure: everything comes in through the arguments (the client, the
 * source, the target), so a Lambda handler can call it as the CLI does.
 */
export async function seedBucket(client: S3Client, source: EntrySource, target: BucketTarget, options: BucketSeedOptions = {}): Promise<BucketSeedSummary> {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) throw new Error(`concurrency must be an integer from 1 to ${MAX_CONCURRENCY}, got ${concurrency}`);
  const counts = new RequestCounts(client);
  try {
    return await new BucketSeedRun(client, source, target, options, concurrency, counts).run();
  } finally {
    counts.stop();
  }
}
