/** What a copy run reports: as it goes (SeedProgress), and at its end (SeedSummary). */

export interface SeedProgress {
  readonly files: number;
  readonly bytes: number;
  readonly written: number;
  readonly skipped: number;
  readonly failed: number;
  readonly totalFiles?: number;
  readonly totalBytes?: number;
  readonly elapsedSeconds: number;
}

export interface SeedFailure {
  readonly path: string;
  readonly error: string;
}

export interface SeedSummary {
  /** Files and symlinks in the source (that this run got to). */
  readonly files: number;
  /** Their bytes. */
  readonly bytes: number;
  readonly directories: number;
  /** Files written (or, in a dry run, that would be). */
  readonly written: number;
  readonly writtenBytes: number;
  /** Files left alone because they were unchanged. */
  readonly skipped: number;
  readonly pruned: number;
  readonly failed: SeedFailure[];
  /** False when the deadline stopped the run: run it again to continue. */
  readonly complete: boolean;
  readonly seconds: number;
  /** Most files, and directories being made, in progress at once. */
  readonly peakConcurrency: number;
  /** FIFOs, sockets and devices in the source, skipped: they have no content to copy. */
  readonly specialFiles: string[];
  /** What the run noticed but did not fail on (a manifest entry it ignored, a link it removed). */
  readonly warnings: string[];
  /** Files each worker thread wrote (empty where the main thread wrote them all). */
  readonly filesByWorker: number[];
  /** Files and links the source no longer has that are kept because they changed since a seed wrote them (prune). */
  readonly kept: string[];
  /**
   * How paths beneath the directories the seed holds were resolved: 'openat2' (the kernel refuses
   * links and '..' at every component) or 'descriptor walk' (one component at a time, each without
   * following a link), with why openat2 is not in use. See lambda/seed/boundary/open-beneath.ts.
   */
  readonly pathResolution: string;
}
