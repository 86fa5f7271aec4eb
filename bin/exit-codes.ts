import { S3RequestError } from '../lambda/seed/sources/s3-retry';
import { LockBusyError } from '../lambda/seed/state/target-lock';

/**
 * What `cdk-efs-kit` exits with (the seed's help and docs/seed.md list them): the run finished
 * (0, or 1 when some entries failed: each is named, the rest are written); bad input, which running
 * again will not mend (2); or a run that could not go on (3): S3 failing past the seed's retries
 * where the run needs it (a listing, an archive), or another seed holding the target past the wait.
 * What was written stays, and running again later may succeed.
 */
export const EXIT_ENTRIES_FAILED = 1;
export const EXIT_BAD_INPUT = 2;
export const EXIT_SOURCE_FAILED = 3;

/** The exit code for an error that stopped a command: S3's failure may be the cause of another error (an archive that could not be read). */
export function exitCodeFor(err: unknown): number {
  if (err instanceof LockBusyError) return EXIT_SOURCE_FAILED;
  for (let e = err; e instanceof Error; e = e.cause) {
    if (e instanceof S3RequestError) return e.retryable ? EXIT_SOURCE_FAILED : EXIT_BAD_INPUT;
  }
  return EXIT_BAD_INPUT;
}
