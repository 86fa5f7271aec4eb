/**
 * What a failed Distributed Map seed execution's reason adds when the account's Lambda concurrency
 * quota can be the cause. The map retries a throttled worker 8 times with backoff
 * (distributed-map-seed-run.ts); a batch still throttled then fails, and past the tolerated
 * failures the whole map does (States.ExceedToleratedFailureThreshold, whatever failed the items).
 */
const WAY_OUT = 'lower the engine\'s maxConcurrency, or raise the account\'s "Concurrent executions" quota (Service Quotas, AWS Lambda)';

export function quotaHint(error: string | undefined, cause: string | undefined): string | undefined {
  if (`${error} ${cause}`.includes('TooManyRequestsException')) {
    return `The workers were throttled by the account's Lambda concurrency quota, even after the map's retries: ${WAY_OUT}.`;
  }
  if (error === 'States.ExceedToleratedFailureThreshold') {
    return 'Batches fail after their retries when keys cannot be copied (S3 or EFS errors) or when the workers stay throttled; the failed items '
      + 'and their errors are in the seed\'s results bucket (seed-results/). If the failed items show Lambda.TooManyRequestsException, '
      + `the workers were throttled by the account's Lambda concurrency quota: ${WAY_OUT}.`;
  }
  return undefined;
}
