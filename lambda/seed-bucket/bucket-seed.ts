import { S3Client } from '@aws-sdk/client-s3';
import * as path from 'path';
import { safeEntryPath, UnsafeEntryError } from '../../lib/seed/contract/entry-path';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from '../../lib/seed/contract/limits';
import type { EntrySource, FileEntry } from '../seed/sources/entry';
import { describeS3Error } from '../seed/sources/s3-retry';
import { BucketManifest, ObjectRecord, readManifest, writeManifest } from './bucket-manifest';
import { CurrentObject, listCurrentObjects, stillAsWritten } from './bucket-state';
import { BucketTarget, manifestKey, objectKey } from './bucket-target';
import type { BucketSeedOptions } from './bucket-seed-options';
import type { BucketSeedFailure, BucketSeedSummary } from './bucket-seed-summary';
import { copyObject } from './object-copy';
import { ObjectUploader } from './object-upload';
import { RequestCounts } from './request-counts';
import { Slots } from './slots';
import { deletableVersions, deleteVersions } from './version-deletion';

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

class BucketSeedRun {
  private readonly started = Date.now();
  private manifest!: BucketManifest;
  private current!: Map<string, CurrentObject>;
  private readonly records = new Map<string, ObjectRecord>();
  private readonly seen = new Set<string>();
  private readonly directoryPaths = new Set<string>();
  private readonly failed: BucketSeedFailure[] = [];
  private readonly skippedLinks: string[] = [];
  private readonly specialFiles: string[] = [];
  private readonly warnings: string[] = [];
  private readonly seeded: Array<{ path: string; size: number }> = [];
  private readonly kept: string[] = [];
  private files = 0;
  private bytes = 0;
  private written = 0;
  private writtenBytes = 0;
  private copied = 0;
  private skipped = 0;
  private pruned = 0;
  private directories = 0;
  private complete = true;
  private lastProgress = 0;
  private readonly slots: Slots;
  private readonly uploader: ObjectUploader;

  constructor(
    private readonly client: S3Client,
    private readonly source: EntrySource,
    private readonly target: BucketTarget,
    private readonly options: BucketSeedOptions,
    concurrency: number,
    private readonly counts: RequestCounts,
  ) {
    this.slots = new Slots(concurrency);
    this.uploader = new ObjectUploader(client, target.bucket);
  }

  async run(): Promise<BucketSeedSummary> {
    this.manifest = await readManifest(this.client, this.target);
    this.warnings.push(...this.manifest.ignored);
    this.current = await listCurrentObjects(this.client, this.target);
    const inFlight = new Set<Promise<void>>();
    try {
      for await (const entry of this.source.entries()) {
        if (entry.type === 'failed') {
          this.fail(entry.path, entry.reason);
          continue;
        }
        let relative: string;
        try {
          relative = safeEntryPath(entry.path);
          if (relative === '' && entry.type !== 'directory') throw new UnsafeEntryError(entry.path, 'the name is empty');
          if (entry.type === 'file') objectKey(this.target, relative);
          if (entry.type === 'file' || entry.type === 'directory') this.refuseConflicts(entry.path, relative, entry.type === 'directory');
        } catch (err) {
          if (entry.type === 'file') entry.discard?.();
          this.fail(entry.path, (err as Error).message);
          continue;
        }
        if (entry.type === 'directory') {
          if (relative !== '') this.directories++;
          continue;
        }
        if (entry.type === 'special') {
          this.specialFiles.push(relative);
          continue;
        }
        if (entry.type === 'symlink') {
          // Never followed (the local walk lstats; an archive's link is a name): an object cannot be a link.
          this.skippedLinks.push(relative);
          continue;
        }
        if (this.seen.has(relative)) {
          entry.discard?.();
          this.fail(entry.path, 'the source lists this path twice');
          continue;
        }
        if (this.options.deadline !== undefined && Date.now() >= this.options.deadline) {
          entry.discard?.();
          this.complete = false;
          break;
        }
        this.seen.add(relative);
        this.files++;
        this.bytes += entry.size;
        await this.slots.take(1);
        const job = this.file(relative, entry).finally(() => {
          this.slots.give(1);
          inFlight.delete(job);
          this.progress();
        });
        inFlight.add(job);
      }
    } catch (err) {
      // The source itself failed (a listing past its retries, a broken archive): what was written is recorded.
      await Promise.all(inFlight);
      this.complete = false;
      this.carryOver();
      await this.saveManifest();
      throw err;
    }
    await Promise.all(inFlight);
    if (this.complete && this.options.prune) await this.prune();
    this.carryOver();
    await this.saveManifest();
    this.progress(true);
    return this.summary();
  }

  /** One file: left alone when unchanged, else copied server-side (an S3 source) or put. */
  private async file(relative: string, entry: FileEntry): Promise<void> {
    const key = objectKey(this.target, relative);
    const recorded = this.manifest.objects.get(relative);
    const now = this.current.get(relative);
    if (recorded && recorded.identity === entry.identity && recorded.size === entry.size && stillAsWritten(recorded, now)) {
      entry.discard?.();
      this.records.set(relative, recorded);
      this.skipped++;
      this.seeded.push({ path: relative, size: entry.size });
      return;
    }
    if (this.options.dryRun) {
      entry.discard?.();
      this.countWritten(entry.size, entry.remote !== undefined);
      return;
    }
    try {
      const record = entry.remote ? await copyObject(this.client, this.target.bucket, key, entry, this.options) : await this.uploader.upload(relative, key, entry);
      this.records.set(relative, record);
      this.countWritten(entry.size, entry.remote !== undefined);
      this.seeded.push({ path: relative, size: entry.size });
    } catch (err) {
      entry.discard?.();
      // The object as it was (if the seed wrote it) stays recorded: a later prune may still take it.
      if (recorded && stillAsWritten(recorded, now)) this.records.set(relative, recorded);
      this.fail(relative, err instanceof Error && err.name === 'S3RequestError' ? err.message : `${relative}: ${describeS3Error(err)}`);
    }
  }

  /** Deletes the exact versions the seed wrote of files the source no longer has, where nobody changed them since. */
  private async prune(): Promise<void> {
    const { doomed, kept } = deletableVersions(this.manifest.objects, this.current, this.target.prefix, (relative) => this.seen.has(relative));
    // The application's now (rewritten since, or the bucket is not versioned): never deleted, and no longer recorded.
    this.kept.push(...kept);
    if (this.options.dryRun) {
      this.pruned = doomed.length;
      return;
    }
    const failedKeys = await deleteVersions(this.client, this.target.bucket, doomed);
    for (const d of doomed) {
      const why = failedKeys.get(d.key);
      if (why !== undefined) {
        this.fail(d.relative, `not pruned: ${why}`);
        this.records.set(d.relative, this.manifest.objects.get(d.relative)!);
      } else {
        this.pruned++;
      }
    }
  }

  /**
   * Records of files the source no longer has (or this run did not get to) and that were not pruned:
   * still the seed's, for a later run, while the object is there as written. Pruned, gone, or
   * changed by someone else since: forgotten (a changed object is the application's from then on).
   */
  private carryOver(): void {
    const pruned = this.complete && this.options.prune && !this.options.dryRun;
    for (const [relative, record] of this.manifest.objects) {
      if (this.seen.has(relative) || this.records.has(relative) || pruned) continue;
      if (stillAsWritten(record, this.current.get(relative))) this.records.set(relative, record);
    }
  }

  /** Whether the records differ from the stored manifest's (else it is not written again). */
  private get changed(): boolean {
    if (this.records.size !== this.manifest.objects.size) return true;
    for (const [relative, r] of this.records) {
      const o = this.manifest.objects.get(relative);
      if (!o || o.identity !== r.identity || o.etag !== r.etag || o.versionId !== r.versionId || o.size !== r.size) return true;
    }
    return false;
  }

  /** The manifest, last, once every write it records is done; not when nothing changed (an unchanged re-run writes nothing). */
  private async saveManifest(): Promise<void> {
    if (this.options.dryRun || !this.changed) return;
    try {
      await writeManifest(this.client, this.target, this.records);
    } catch (err) {
      this.fail(manifestKey(this.target), `the manifest could not be written (the next run writes every file again): ${(err as Error).message}`);
    }
  }

  private refuseConflicts(raw: string, relative: string, isDirectory: boolean): void {
    const parent = path.posix.dirname(relative);
    if (!isDirectory && this.directoryPaths.has(relative)) throw new UnsafeEntryError(raw, 'the source also has entries below this path, so it is a directory');
    for (let dir = isDirectory ? relative : parent; dir !== '.' && dir !== '' && !this.directoryPaths.has(dir); dir = path.posix.dirname(dir)) {
      if (this.seen.has(dir)) throw new UnsafeEntryError(raw, `the source also has a file at ${JSON.stringify(dir)}, so it cannot be a directory`);
    }
    for (let dir = isDirectory ? relative : parent; dir !== '.' && dir !== '' && !this.directoryPaths.has(dir); dir = path.posix.dirname(dir)) this.directoryPaths.add(dir);
  }

  private countWritten(size: number, copied: boolean): void {
    this.written++;
    this.writtenBytes += size;
    if (copied) this.copied++;
  }

  private fail(entryPath: string, error: string): void {
    this.failed.push({ path: entryPath, error: error.startsWith('refused ') || error.startsWith(`${entryPath}:`) ? error : `${entryPath}: ${error}` });
  }

  private progress(final = false): void {
    if (!this.options.onProgress || (!final && Date.now() - this.lastProgress < 100)) return;
    this.lastProgress = Date.now();
    this.options.onProgress({ files: this.files, written: this.written, skipped: this.skipped, failed: this.failed.length, elapsedSeconds: (Date.now() - this.started) / 1000 });
  }

  private summary(): BucketSeedSummary {
    const warnings = [...this.warnings];
    if (this.skippedLinks.length > 0) warnings.push(`${this.skippedLinks.length} symlinks not written (an object cannot be a link; none was followed): ${this.skippedLinks.slice(0, 5).join(', ')}${this.skippedLinks.length > 5 ? ', ...' : ''}`);
    if (this.kept.length > 0) warnings.push(`${this.kept.length} objects the source no longer has were kept: they changed since the seed wrote them (or the bucket is not versioned), so they are the application's: ${this.kept.slice(0, 5).join(', ')}${this.kept.length > 5 ? ', ...' : ''}`);
    return {
      files: this.files, bytes: this.bytes, written: this.written, writtenBytes: this.writtenBytes, copied: this.copied, skipped: this.skipped,
      pruned: this.pruned, kept: this.kept, failed: this.failed, skippedLinks: this.skippedLinks, specialFiles: this.specialFiles,
      directories: this.directories, complete: this.complete, seconds: (Date.now() - this.started) / 1000, requests: { ...this.counts.byKind },
      warnings, seededFiles: this.options.listFiles ? this.seeded : undefined,
    };
  }
}
