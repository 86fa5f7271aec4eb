import { Readable } from 'stream';
import type { FileSystemCalls } from '../boundary/file-system-calls';
import type { S3Location } from './s3-client';

/**
 * One thing a source holds, named by its path relative to the seed's target ('/'-separated); or one
 * it could not read or will not copy, reported in the summary.
 */
export type SeedEntry = FileEntry | DirectoryEntry | SymlinkEntry | SpecialEntry | FailedEntry;

export interface FileEntry {
  readonly type: 'file';
  readonly path: string;
  readonly size: number;
  /** Permission bits to create the file with. */
  readonly mode: number;
  /** Changes whenever the content changes: size + mtime, an ETag, a CRC. Compared with the manifest. */
  readonly identity: string;
  /** The content is in memory already (a small archive member): it counts against the memory bound while the file waits. */
  readonly inMemory?: boolean;
  /** An S3 object the content can be fetched from by another thread (a copy worker, with a client of its own). */
  readonly remote?: RemoteObject;
  /** Modification time to give the file where the seed runs without a manifest (see CopyOptions.manifest). */
  readonly mtimeMs?: number;
  /** The content, read only when the file has to be written. */
  open(): Promise<FileContent>;
  /**
   * Called instead of open() when the file is not written (unchanged, refused, failed), so a
   * streamed source such as a tar can move past it.
   */
  discard?(): void;
}

/** An S3 object, and how to reach S3 (settings a worker thread can build its own client from). */
export interface RemoteObject {
  readonly bucket: string;
  readonly key: string;
  readonly location: S3Location;
}

/** A file's content: in memory, a stream, or a local file that the writer copies itself. */
export type FileContent = Buffer | Readable | LocalFileContent;

/**
 * Content left in a local file until it is written: the file `path` (relative, '/'-separated) beneath
 * the source root the descriptor `root` holds, which the writer opens beneath it (see
 * sources/source-file.ts) and copies through a buffer it reuses, as cp does, rather than a new buffer
 * (or stream chunks) per file, reading with `calls`, the source file system's (synchronous while it
 * answers from memory, whatever the target does). `size` is what the walk saw.
 */
export class LocalFileContent {
  constructor(readonly root: number, readonly path: string, readonly size: number, readonly calls: FileSystemCalls) {}
}

export interface DirectoryEntry {
  readonly type: 'directory';
  readonly path: string;
  readonly mode: number;
}

export interface SymlinkEntry {
  readonly type: 'symlink';
  readonly path: string;
  readonly target: string;
  readonly identity: string;
}

/** A FIFO, socket or device: nothing to copy, so it is skipped, and counted. */
export interface SpecialEntry {
  readonly type: 'special';
  readonly path: string;
  /** 'FIFO', 'socket', 'character device', 'block device'. */
  readonly kind: string;
}

/** Something the source could not read (an unreadable directory, say): it fails alone, not the run. */
export interface FailedEntry {
  readonly type: 'failed';
  readonly path: string;
  readonly reason: string;
}

/** Where entries come from. Entries may arrive in any order; a directory may never be listed. */
export interface EntrySource {
  /** For messages: 's3://bucket/prefix', '/path/to/dir', 'site.tar.gz'. */
  readonly description: string;
  /** A local directory's path: the target may not overlap it. */
  readonly localDirectory?: string;
  entries(): AsyncIterable<SeedEntry>;
  /** Totals, where the source knows them before the copy (a zip's central directory, a walked tree). */
  totals?(): Promise<{ files: number; bytes: number } | undefined>;
}

/** A symlink's identity is its target after this prefix (the manifest tells links from files by it). */
export const LINK_IDENTITY = 'link:';

export const DEFAULT_FILE_MODE = 0o644;
export const DEFAULT_DIRECTORY_MODE = 0o755;
