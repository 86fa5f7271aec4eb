/**
 * The seed's retries of S3 requests, counted per object (or per listing page), not from one quota
 * that every request in flight draws on: a stall or a burst of throttling that hits 64 requests at
 * once gives each its own retries. Waits grow exponentially with full jitter (a random wait up to
 * the bound, so that requests that failed together do not come back together); throttling waits
 * longer and is given more attempts, so that a throttled run slows down rather than fails. Errors
 * that no retry can mend (a missing key, access denied) are not retried.
 */
export interface RetryPolicy {
  /** Attempts in all for a request that times out, is reset, or gets a 5xx. */
  readonly attempts: number;
  /** Attempts in all for a request S3 throttles (503 SlowDown, 429). */
  readonly throttledAttempts: number;
  /** The bound of the first wait; each later one doubles, up to maxDelayMs. */
  readonly baseDelayMs: number;
  readonly throttledBaseDelayMs: number;
  readonly maxDelayMs: number;
}

/**
 * 4 attempts of at most the S3 timeout each (10 s) and short waits keep an object that keeps
 * stalling under a minute, the time the seed leaves itself in Lambda before its timeout. Throttling
 * gets 10 attempts, and waits from up to 1 s (as the SDK's own throttling retries do): measured with
 * bench/seed-s3-faults.ts, waits from 0.5 s made 16% more requests when GETs were throttled above
 * 100/s, and waits from 2 s made a run with 10% of GETs throttled at random take 60% longer.
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 4, throttledAttempts: 10, baseDelayMs: 200, throttledBaseDelayMs: 1000, maxDelayMs: 10_000 };

/**
 * How long one S3 request may go without an answer: to connect, to the answer's headers, and
 * between two reads of its body. Past it the attempt fails and is retried (below). S3
 * answers in tens of milliseconds; the bound is there for the connection that never answers, which
 * would otherwise hold the seed until Lambda's timeout. The tests set it in milliseconds with
 * CDK_EFS_KIT_S3_TIMEOUT_MS.
 */
export const S3_TIMEOUT_ENV = 'CDK_EFS_KIT_S3_TIMEOUT_MS';
export const DEFAULT_S3_TIMEOUT_MS = 10_000;

export function s3TimeoutMs(): number {
  const given = Number(process.env[S3_TIMEOUT_ENV]);
  return Number.isInteger(given) && given > 0 ? given : DEFAULT_S3_TIMEOUT_MS;
}

/** An S3 request that still failed after its retries, or could not be retried: `what` and why, in one line. */
export class S3RequestError extends Error {
  constructor(what: string, readonly attempts: number, cause: unknown, readonly retryable: boolean) {
    super(`${what} failed${attempts > 1 ? ` ${attempts} times` : ''}: ${describeS3Error(cause)}`, { cause });
    this.name = 'S3RequestError';
  }
}

type S3Error = Error & { code?: string; $metadata?: { httpStatusCode?: number; clockSkewCorrected?: boolean }; $retryable?: unknown };

const THROTTLING_CODES = new Set(['SlowDown', 'Throttling', 'ThrottlingException', 'RequestThrottled', 'TooManyRequestsException', 'RequestLimitExceeded']);
/** S3's own timeout (HTTP 400 RequestTimeout) and the SDK's (a TimeoutError on the client side). */
const TIMEOUT_CODES = new Set(['RequestTimeout', 'RequestTimeoutException', 'TimeoutError']);
/** Server errors worth another attempt (as the SDK's own retries take them; not 501 Not Implemented). */
const TRANSIENT_STATUSES = new Set([500, 502, 503, 504]);
/** A connection that broke, could not be made, or ended before its body did. */
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ERR_STREAM_PREMATURE_CLOSE']);

export function isThrottling(err: unknown): boolean {
  const e = err as S3Error;
  return e?.$metadata?.httpStatusCode === 429 || THROTTLING_CODES.has(e?.name);
}

export function isRetryable(err: unknown): boolean {
  const e = err as S3Error;
  if (!e || e.name === 'AbortError') return false;
  return isThrottling(e) || TRANSIENT_STATUSES.has(e.$metadata?.httpStatusCode ?? 0) || TIMEOUT_CODES.has(e.name) || NETWORK_CODES.has(e.code ?? '')
    || e.$retryable !== undefined || e.$metadata?.clockSkewCorrected === true;
}

/** S3's code and message and the HTTP status, or the network's error code: what an operator needs to act. */
export function describeS3Error(err: unknown): string {
  const e = err as S3Error;
  const status = e?.$metadata?.httpStatusCode;
  if (status !== undefined) {
    const message = e.message && e.message !== 'UnknownError' ? e.message : 'no message';
    return `${e.name} (HTTP ${status}): ${message}`;
  }
  if (e?.name === 'TimeoutError') return `timed out: ${e.message.replace(/^@smithy\/node-http-handler - (\[ERROR\] )?/, '')}`;
  return e?.code ? `${e.code}: ${e.message}` : String(e?.message ?? err);
}

/** The attempts of one request (and of the requests that resume it): how many so far, and the waits in between. */
export class S3Attempts {
  private failures = 0;
  private throttles = 0;

  constructor(private readonly what: string, private readonly policy: RetryPolicy = DEFAULT_RETRY_POLICY) {}

  /** Runs `attempt` until it succeeds, or throws an S3RequestError once it may not be retried. */
  async run<T>(attempt: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await attempt();
      } catch (err) {
        await this.failed(err);
      }
    }
  }

  /** Counts a failed attempt and waits before the next; throws an S3RequestError if there is to be none. */
  async failed(err: unknown): Promise<void> {
    if (err instanceof S3RequestError) throw err;
    const throttled = isThrottling(err);
    const count = throttled ? ++this.throttles : ++this.failures;
    if (!isRetryable(err) || count >= (throttled ? this.policy.throttledAttempts : this.policy.attempts)) {
      throw new S3RequestError(this.what, this.failures + this.throttles, err, isRetryable(err));
    }
    const base = throttled ? this.policy.throttledBaseDelayMs : this.policy.baseDelayMs;
    const bound = Math.min(this.policy.maxDelayMs, base * 2 ** (count - 1));
    await new Promise((resolve) => setTimeout(resolve, Math.random() * bound));
  }
}
