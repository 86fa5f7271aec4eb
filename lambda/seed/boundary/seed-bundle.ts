import * as fs from 'fs';
import * as path from 'path';

/**
 * Where a file shipped beside the seed handler's bundle is (its worker thread, its native writer):
 * next to the running bundle in the Lambda asset (dist/handlers/seed), and from the CLI's bundle
 * (dist/bin) in the package's dist/handlers/seed. The first of the two that exists is the one.
 */
export function besideSeedBundle(...parts: string[]): string[] {
  return [path.join(__dirname, ...parts), path.join(__dirname, '..', 'handlers', 'seed', ...parts)];
}

/** The first of `candidates` (besideSeedBundle's) that exists, or undefined. */
export function firstExisting(candidates: string[]): string | undefined {
  return candidates.find((file) => fs.existsSync(file));
}
