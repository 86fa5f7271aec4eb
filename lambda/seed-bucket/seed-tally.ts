import type { BucketSeedFailure, BucketSeedProgress, BucketSeedSummary } from './bucket-seed-summary';

/** At most this often is `onProgress` called, besides the end. */
const PROGRESS_EVERY_MS = 100;

/** What a run counts and reports as it goes: progress while it runs, the summary at the end. */
export class SeedTally {
  files = 0;
  bytes = 0;
  written = 0;
  writtenBytes = 0;
  copied = 0;
  skipped = 0;
  pruned = 0;
  directories = 0;
  complete = true;
  /** A newer request took the place over: the run stopped. */
  superseded = false;
  readonly failed: BucketSeedFailure[] = [];
  readonly skippedLinks: string[] = [];
  readonly specialFiles: string[] = [];
  readonly warnings: string[] = [];
  readonly kept: string[] = [];
  /** Every file the seed covers (written or unchanged), for a visibility check through the mount. */
  readonly seeded: Array<{ path: string; size: number }> = [];
  private readonly started = Date.now();
  private lastProgress = 0;

  constructor(private readonly onProgress?: (progress: BucketSeedProgress) => void) {}

  countWritten(size: number, copied: boolean): void {
    this.written++;
    this.writtenBytes += size;
    if (copied) this.copied++;
  }

  fail(entryPath: string, error: string): void {
    this.failed.push({ path: entryPath, error: error.startsWith('refused ') || error.startsWith(`${entryPath}:`) ? error : `${entryPath}: ${error}` });
  }

  progress(final = false): void {
    if (!this.onProgress || (!final && Date.now() - this.lastProgress < PROGRESS_EVERY_MS)) return;
    this.lastProgress = Date.now();
    this.onProgress({ files: this.files, written: this.written, skipped: this.skipped, failed: this.failed.length, elapsedSeconds: this.seconds });
  }

  summary(requests: Record<string, number>, listFiles: boolean): BucketSeedSummary {
    const warnings = [...this.warnings];
    if (this.skippedLinks.length > 0) warnings.push(`${this.skippedLinks.length} symlinks not written (an object cannot be a link; none was followed): ${firstFew(this.skippedLinks)}`);
    if (this.kept.length > 0) warnings.push(`${this.kept.length} objects the source no longer has were kept: they changed since the seed wrote them (or the bucket is not versioned), so they are the application's: ${firstFew(this.kept)}`);
    return {
      files: this.files, bytes: this.bytes, written: this.written, writtenBytes: this.writtenBytes, copied: this.copied, skipped: this.skipped,
      pruned: this.pruned, kept: this.kept, failed: this.failed, skippedLinks: this.skippedLinks, specialFiles: this.specialFiles,
      directories: this.directories, complete: this.complete, superseded: this.superseded, seconds: this.seconds, requests: { ...requests },
      warnings, seededFiles: listFiles ? this.seeded : undefined,
    };
  }

  private get seconds(): number {
    return (Date.now() - this.started) / 1000;
  }
}

/** The first five of a list, and '...' when there are more. */
export const firstFew = (paths: readonly string[]) => `${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ', ...' : ''}`;
