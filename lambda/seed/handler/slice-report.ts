import { printable } from '../../shared/printable';

/**
 * What a seed request tells CloudWatch Logs and CloudFormation about its slice: progress at most
 * every 10 s, and reasons that name the first few of many problems, escaped (CloudFormation shows a
 * reason on the deploying terminal, and names come from the source).
 */

/** A progress callback that logs at most every 10 s. */
export function progressLogger(): (progress: object) => void {
  let lastLog = 0;
  return (progress) => {
    if (Date.now() - lastLog < 10_000) return;
    lastLog = Date.now();
    console.log(JSON.stringify({ message: 'seed progress', ...progress }));
  };
}

/** The first five of `problems`, escaped, joined by '; ', with '; ...' when there are more. */
export function firstFive(problems: readonly string[]): string {
  return `${printable(problems.slice(0, 5).join('; '))}${problems.length > 5 ? '; ...' : ''}`;
}

/** The request's error when entries of the source could not be written. */
export function failedEntriesError(source: string, target: string, failed: ReadonlyArray<{ readonly error: string }>): Error {
  return new Error(`seed of ${source} into ${target} failed for ${failed.length} entr${failed.length === 1 ? 'y' : 'ies'}: ${firstFive(failed.map((f) => f.error))}`);
}
