import { S3Client } from '@aws-sdk/client-s3';
import type { FileEntry } from '../seed/sources/entry';
import { BucketManifest, ObjectRecord, readListedManifest, RunRecord, writeManifest } from './bucket-manifest';
import { CurrentObject, listCurrentObjects, mayDelete, stillAsWritten } from './bucket-state';
import { BucketTarget, MANIFEST_NAME } from './bucket-target';

/**
 * What a run knows of each path under the prefix: what the stored manifest recorded, what the bucket
 * holds now (both read once, before any write), and the records the next manifest will hold.
 */
export class SeedRecords {
  static async read(client: S3Client, target: BucketTarget): Promise<SeedRecords> {
    const current = await listCurrentObjects(client, target, { withManifest: true });
    const stored = await readListedManifest(client, target, current);
    current.delete(MANIFEST_NAME);
    return new SeedRecords(stored, current);
  }

  private readonly next = new Map<string, ObjectRecord>();
  /** Paths this run wrote that the stored manifest did not record. */
  private readonly added = new Set<string>();
  /** The manifest's ETag as this run last read or wrote it: every save is conditional on it. */
  private etag?: string;

  private constructor(readonly stored: BucketManifest, readonly current: ReadonlyMap<string, CurrentObject>) {
    this.etag = stored.etag;
  }

  /**
   * The paths to remove because this run undoes the last one (a rollback: back from the source the
   * last run went to, to the one it came from), or undefined when it does not.
   */
  undoneBy(run: SeedRun | undefined): ReadonlySet<string> | undefined {
    const last = this.stored.lastRun;
    if (!run?.from || !last || last.to !== run.from || last.from !== run.to) return undefined;
    return new Set(last.added);
  }

  /** Whether the file's object is still the one the seed wrote from the same source content; if so it stays recorded. */
  unchanged(relative: string, entry: FileEntry): boolean {
    const recorded = this.stored.objects.get(relative);
    if (!recorded || recorded.identity !== entry.identity || recorded.size !== entry.size || !stillAsWritten(recorded, this.current.get(relative))) return false;
    this.next.set(relative, recorded);
    return true;
  }

  /**
   * Records a write, and returns the version it replaced where that was the seed's own, still as
   * written: the run deletes it, so that each path keeps one version of the seed's and removing it
   * (prune, removeOnDelete) brings back what was there before the seed, not an older seed's copy.
   */
  wrote(relative: string, record: ObjectRecord): string | undefined {
    this.next.set(relative, record);
    const recorded = this.stored.objects.get(relative);
    if (!recorded) this.added.add(relative);
    return recorded && mayDelete(recorded, this.current.get(relative)) ? recorded.versionId : undefined;
  }

  /** Keeps the stored record of an object the seed wrote and nobody changed since (a write or a prune of it failed, or the run did not get to it). */
  keepIfStillAsWritten(relative: string): void {
    const recorded = this.stored.objects.get(relative);
    if (recorded && stillAsWritten(recorded, this.current.get(relative))) this.next.set(relative, recorded);
  }

  /**
   * Records of files the source no longer has (or this run did not get to) and that were not pruned:
   * still the seed's, for a later run, while the object is there as written. Pruned, gone, or
   * changed by someone else since: forgotten (a changed object is the application's from then on).
   */
  carryOver(handled: (relative: string) => boolean): void {
    for (const relative of this.stored.objects.keys()) {
      if (handled(relative) || this.next.has(relative)) continue;
      this.keepIfStillAsWritten(relative);
    }
  }

  /**
   * The manifest, once every write it records is done; not when nothing changed (an unchanged re-run
   * writes nothing). With `run`, it records that run and what it added, over every slice of it; a
   * run that undoes the last one keeps that one's record until it is complete, so that a slice after
   * this one still knows what to undo.
   */
  async save(client: S3Client, target: BucketTarget, run: SeedRun | undefined, complete: boolean): Promise<void> {
    const lastRun = !complete && this.undoneBy(run) ? this.stored.lastRun : this.lastRunAfter(run, this.next);
    if (this.changed(lastRun)) this.etag = await writeManifest(client, target, this.next, lastRun, this.etag);
  }

  /**
   * A checkpoint while the run goes on: what the stored manifest recorded, with what this run wrote
   * so far over it, so that a run killed before its end (a crash, not its deadline) leaves the
   * objects it wrote recorded as the seed's, for the next run to recognise, prune and remove.
   */
  async checkpoint(client: S3Client, target: BucketTarget, run: SeedRun | undefined): Promise<void> {
    const records = new Map([...this.stored.objects, ...this.next]);
    const lastRun = this.undoneBy(run) ? this.stored.lastRun : this.lastRunAfter(run, records);
    this.etag = await writeManifest(client, target, records, lastRun, this.etag);
  }

  /** The run's record as a manifest of `records` holds it: the paths it added (over every slice) that `records` still has. */
  private lastRunAfter(run: SeedRun | undefined, records: ReadonlyMap<string, ObjectRecord>): RunRecord | undefined {
    const last = this.stored.lastRun;
    if (!run) return last;
    const resumed = last && last.to === run.to && last.from === run.from;
    const added = new Set([...resumed ? last.added : [], ...this.added].filter((path) => records.has(path)));
    return { ...run.from === undefined ? {} : { from: run.from }, to: run.to, added: [...added].sort() };
  }

  /** Whether the records differ from the stored manifest's (else it is not written again). */
  private changed(lastRun: RunRecord | undefined): boolean {
    if (JSON.stringify(lastRun) !== JSON.stringify(this.stored.lastRun)) return true;
    if (this.next.size !== this.stored.objects.size) return true;
    for (const [relative, r] of this.next) {
      const o = this.stored.objects.get(relative);
      if (!o || o.identity !== r.identity || o.etag !== r.etag || o.versionId !== r.versionId || o.size !== r.size) return true;
    }
    return false;
  }
}

/** The request a run serves: the source it copies (`to`) and, for an Update, the source before (`from`). */
export interface SeedRun {
  readonly from?: string;
  readonly to: string;
}
