/** The counts so far, as `onProgress` gets them. */
export interface BucketSeedProgress {
  readonly files: number;
  readonly written: number;
  readonly skipped: number;
  readonly failed: number;
  readonly elapsedSeconds: number;
}

export interface BucketSeedFailure {
  readonly path: string;
  readonly error: string;
}

export interface BucketSeedSummary {
  /** Regular files in the source (that the run got to) and their bytes. */
  readonly files: number;
  readonly bytes: number;
  /** Objects written (or that would be): PutObject or multipart uploads, and server-side copies. */
  readonly written: number;
  readonly writtenBytes: number;
  /** Of `written`, those copied server-side from an S3 source (CopyObject, no download). */
  readonly copied: number;
  /** Files whose object is still the one the seed wrote from the same source content. */
  readonly skipped: number;
  /** Objects deleted by prune (exact versions). */
  readonly pruned: number;
  /** Objects the source no longer has that prune left because they changed since the seed wrote them (or the bucket is not versioned). */
  readonly kept: string[];
  readonly failed: BucketSeedFailure[];
  /** Symlinks in the source: not followed, not written (an object cannot be a link), each named. */
  readonly skippedLinks: string[];
  /** FIFOs, sockets and devices: no content. */
  readonly specialFiles: string[];
  /** Directories in the source: S3 has none; only those that hold a file appear in the file system. */
  readonly directories: number;
  /** False when the deadline stopped the run (run again to go on) or the source failed part way. */
  readonly complete: boolean;
  /** The run stopped because `stillCurrent` said a newer request took the place over. */
  readonly superseded: boolean;
  readonly seconds: number;
  /** S3 requests by kind, every request on the run's client (the source's reads too). */
  readonly requests: Record<string, number>;
  readonly warnings: string[];
  /** With `listFiles`: every file the seed covers, written or unchanged. */
  readonly seededFiles?: ReadonlyArray<{ readonly path: string; readonly size: number }>;
}

/** What S3 Files gives a file that arrives as an object (see docs/seed-s3-files.md), said in every summary. */
export const NOT_PRESERVED = 'written as objects: POSIX owner, mode and modification time, symlinks and empty directories are not carried; the file system gives each file the attributes S3 Files gives an object it imports';
