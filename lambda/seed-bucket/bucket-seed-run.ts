import { S3Client } from '@aws-sdk/client-s3';
import type { EntrySource, FileEntry } from '../seed/sources/entry';
import { describeS3Error } from '../seed/sources/s3-retry';
import type { BucketSeedOptions } from './bucket-seed-options';
import type { BucketSeedSummary } from './bucket-seed-summary';
import { BucketTarget, manifestKey, objectKey } from './bucket-target';
import { EntryPaths } from './entry-paths';
import { copyObject } from './object-copy';
import { ObjectUploader } from './object-upload';
import type { RequestCounts } from './request-counts';
import { ManifestChangedError } from './bucket-manifest';
import { SeedRecords } from './seed-records';
import { firstFew, SeedTally } from './seed-tally';
import { Slots } from './slots';
import { deletableVersions, deleteVersions, DoomedVersion } from './version-deletion';

/** How often, at most, a run saves its manifest before its end. */
const CHECKPOINT_EVERY_MS = 30_000;

/** How often a run asks whether its request is still the place's. */
const CURRENT_EVERY_MS = 10_000;

/** One bucket seed: the source's files written as they come, at most `concurrency` at once, then prune and the manifest. */
export class BucketSeedRun {
  private readonly tally: SeedTally;
  private readonly paths: EntryPaths;
  private readonly slots: Slots;
  private readonly uploader: ObjectUploader;
  private currentAskedAt = 0;
  private checkpointing: Promise<void> = Promise.resolve();
  private checkpointBusy = false;
  private checkpointedAt = Date.now();
  private checkpointTimer?: NodeJS.Timeout;
  private finishing = false;
  /** Set once a save found the manifest written by another run: no save of this run's is tried again. */
  private manifestChanged?: ManifestChangedError;
  private writtenAtCheckpoint = 0;
  /** The seed's own versions this run wrote over: deleted once the run's writes are done. */
  private readonly replaced: DoomedVersion[] = [];

  constructor(
    private readonly client: S3Client,
    private readonly source: EntrySource,
    private readonly target: BucketTarget,
    private readonly options: BucketSeedOptions,
    concurrency: number,
    private readonly counts: RequestCounts,
  ) {
    this.tally = new SeedTally(options.onProgress);
    this.paths = new EntryPaths(target, this.tally);
    this.slots = new Slots(concurrency);
    this.uploader = new ObjectUploader(client, target.bucket);
  }

  async run(): Promise<BucketSeedSummary> {
    const records = await SeedRecords.read(this.client, this.target);
    this.tally.warnings.push(...records.stored.ignored);
    const inFlight = new Set<Promise<void>>();
    try {
      for await (const entry of this.source.entries()) {
        const admitted = this.paths.admit(entry);
        if (!admitted) continue;
        const { relative, file } = admitted;
        if (await this.mustStop()) {
          file.discard?.();
          this.tally.complete = false;
          break;
        }
        this.paths.claim(relative);
        this.tally.files++;
        this.tally.bytes += file.size;
        await this.slots.take(1);
        const job = this.file(records, relative, file).finally(() => {
          this.slots.give(1);
          inFlight.delete(job);
          this.tally.progress();
          this.checkpoint(records);
        });
        inFlight.add(job);
      }
    } catch (err) {
      // The source itself failed (a listing past its retries, a broken archive): what was written is recorded.
      await Promise.all(inFlight);
      await this.endCheckpoints();
      this.tally.complete = false;
      if (await this.finishRecords(records, undefined)) await this.deleteReplaced();
      throw err;
    }
    await Promise.all(inFlight);
    await this.endCheckpoints();
    const pruning = this.pruning(records);
    if (pruning) await this.prune(records, pruning);
    // The versions this run wrote over go once its records are saved, and not by a run another request took over.
    if (await this.finishRecords(records, pruning) && !this.tally.superseded) await this.deleteReplaced();
    this.tally.progress(true);
    return this.tally.summary(this.counts.byKind, this.options.listFiles ?? false);
  }

  /** One file: left alone when unchanged, else copied server-side (an S3 source) or uploaded. */
  private async file(records: SeedRecords, relative: string, entry: FileEntry): Promise<void> {
    if (records.unchanged(relative, entry)) {
      entry.discard?.();
      this.tally.skipped++;
      this.tally.seeded.push({ path: relative, size: entry.size });
      return;
    }
    if (this.options.dryRun) {
      entry.discard?.();
      this.tally.countWritten(entry.size, entry.remote !== undefined);
      return;
    }
    const key = objectKey(this.target, relative);
    try {
      const record = entry.remote ? await copyObject(this.client, this.target.bucket, key, entry, this.options) : await this.uploader.upload(relative, key, entry);
      const replaced = records.wrote(relative, record);
      if (replaced) this.replaced.push({ relative, key, versionId: replaced });
      this.tally.countWritten(entry.size, entry.remote !== undefined);
      this.tally.seeded.push({ path: relative, size: entry.size });
    } catch (err) {
      entry.discard?.();
      // The object as it was (if the seed wrote it) stays recorded: a later prune may still take it.
      records.keepIfStillAsWritten(relative);
      this.tally.fail(relative, err instanceof Error && err.name === 'S3RequestError' ? err.message : `${relative}: ${describeS3Error(err)}`);
    }
  }

  /**
   * Saves the records so far, one save at a time, at most every `checkpointEveryMs`, when something
   * was written since the last: a write that finishes meanwhile gets a save of its own once the
   * interval is over, even if nothing else finishes after it.
   */
  private checkpoint(records: SeedRecords): void {
    if (this.options.dryRun || this.finishing || this.manifestChanged || this.tally.written === this.writtenAtCheckpoint || this.checkpointBusy || this.checkpointTimer) return;
    const wait = this.checkpointedAt + (this.options.checkpointEveryMs ?? CHECKPOINT_EVERY_MS) - Date.now();
    if (wait > 0) {
      this.checkpointTimer = setTimeout(() => {
        this.checkpointTimer = undefined;
        this.checkpoint(records);
      }, wait);
      return;
    }
    this.checkpointBusy = true;
    this.writtenAtCheckpoint = this.tally.written;
    this.checkpointing = records.checkpoint(this.client, this.target, this.options.run)
      .catch((err) => {
        if (err instanceof ManifestChangedError) this.manifestChanged = err;
        else this.tally.warnings.push(`a checkpoint of the manifest failed (the run's end saves it): ${(err as Error).message}`);
      })
      .finally(() => {
        this.checkpointedAt = Date.now();
        this.checkpointBusy = false;
        this.checkpoint(records);
      });
  }

  /** No checkpoint starts from here on; the one under way, if any, is done. */
  private async endCheckpoints(): Promise<void> {
    this.finishing = true;
    clearTimeout(this.checkpointTimer);
    this.checkpointTimer = undefined;
    await this.checkpointing;
  }

  /** The seed's own older versions of what it wrote again: noncurrent, so nobody sees them go; one that stays only costs storage. */
  private async deleteReplaced(): Promise<void> {
    if (this.replaced.length === 0) return;
    const refused = await deleteVersions(this.client, this.target.bucket, this.replaced);
    if (refused.size > 0) this.tally.warnings.push(`${refused.size} older versions the seed wrote could not be deleted (they stay as noncurrent versions): ${firstFew([...refused.keys()])}`);
  }

  /** The deadline passed, another run saved the place's records, or a newer request took the place over (asked at most every 10 s). */
  private async mustStop(): Promise<boolean> {
    if (this.options.deadline !== undefined && Date.now() >= this.options.deadline) return true;
    if (this.manifestChanged) return true;
    if (!this.options.stillCurrent || Date.now() - this.currentAskedAt < CURRENT_EVERY_MS) return false;
    this.currentAskedAt = Date.now();
    if (await this.options.stillCurrent()) return false;
    this.tally.superseded = true;
    return true;
  }

  /**
   * Which recorded paths the source no longer has may go, once the whole source was seen: all of
   * them with `prune`; those the last run added when this one undoes it (a rollback); else none.
   */
  private pruning(records: SeedRecords): ((relative: string) => boolean) | undefined {
    if (!this.tally.complete) return undefined;
    if (this.options.prune) return () => true;
    const undone = records.undoneBy(this.options.run);
    return undone && ((relative) => undone.has(relative));
  }

  /** Deletes the exact versions the seed wrote of files the source no longer has (those `may` names), where nobody changed them since. */
  private async prune(records: SeedRecords, may: (relative: string) => boolean): Promise<void> {
    const { doomed, kept } = deletableVersions(records.stored.objects, records.current, this.target.prefix, (relative) => this.paths.has(relative) || !may(relative));
    // The application's now (rewritten since, or the bucket is not versioned): never deleted, and no longer recorded.
    this.tally.kept.push(...kept);
    if (this.options.dryRun) {
      this.tally.pruned = doomed.length;
      return;
    }
    const refused = await deleteVersions(this.client, this.target.bucket, doomed);
    for (const d of doomed) {
      const why = refused.get(d.key);
      if (why === undefined) {
        this.tally.pruned++;
      } else {
        this.tally.fail(d.relative, `not pruned: ${why}`);
        records.keepIfStillAsWritten(d.relative);
      }
    }
  }

  /** Carries the records over and saves the manifest, last, once every write it records is done; whether they are saved. */
  private async finishRecords(records: SeedRecords, pruned: ((relative: string) => boolean) | undefined): Promise<boolean> {
    // What a prune went through was deleted, is the application's, or failed (and kept its record).
    const handled = pruned && !this.options.dryRun ? pruned : () => false;
    records.carryOver((relative) => this.paths.has(relative) || handled(relative));
    if (this.options.dryRun) return false;
    try {
      if (this.manifestChanged) throw this.manifestChanged;
      await records.save(this.client, this.target, this.options.run, this.tally.complete);
      return true;
    } catch (err) {
      if (err instanceof ManifestChangedError) {
        // Not a failure of this run's files: the place has another run's records, and this run is not complete.
        this.tally.complete = false;
        this.tally.warnings.push(err.message);
        return false;
      }
      this.tally.fail(manifestKey(this.target), `the manifest could not be written (the next run writes every file again): ${(err as Error).message}`);
      return false;
    }
  }
}
