import { S3Client } from '@aws-sdk/client-s3';
import type { FileEntry } from '../seed/sources/entry';
import { BucketManifest, ObjectRecord, readManifest, writeManifest } from './bucket-manifest';
import { CurrentObject, listCurrentObjects, stillAsWritten } from './bucket-state';
import type { BucketTarget } from './bucket-target';

/**
 * What a run knows of each path under the prefix: what the stored manifest recorded, what the bucket
 * holds now (both read once, before any write), and the records the next manifest will hold.
 */
export class SeedRecords {
  static async read(client: S3Client, target: BucketTarget): Promise<SeedRecords> {
    const stored = await readManifest(client, target);
    return new SeedRecords(stored, await listCurrentObjects(client, target));
  }

  private readonly next = new Map<string, ObjectRecord>();

  private constructor(readonly stored: BucketManifest, readonly current: ReadonlyMap<string, CurrentObject>) {}

  /** Whether the file's object is still the one the seed wrote from the same source content; if so it stays recorded. */
  unchanged(relative: string, entry: FileEntry): boolean {
    const recorded = this.stored.objects.get(relative);
    if (!recorded || recorded.identity !== entry.identity || recorded.size !== entry.size || !stillAsWritten(recorded, this.current.get(relative))) return false;
    this.next.set(relative, recorded);
    return true;
  }

  wrote(relative: string, record: ObjectRecord): void {
    this.next.set(relative, record);
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
  carryOver(inSource: (relative: string) => boolean): void {
    for (const relative of this.stored.objects.keys()) {
      if (inSource(relative) || this.next.has(relative)) continue;
      this.keepIfStillAsWritten(relative);
    }
  }

  /** The manifest, once every write it records is done; not when nothing changed (an unchanged re-run writes nothing). */
  async save(client: S3Client, target: BucketTarget): Promise<void> {
    if (this.changed) await writeManifest(client, target, this.next);
  }

  /** Whether the records differ from the stored manifest's (else it is not written again). */
  private get changed(): boolean {
    if (this.next.size !== this.stored.objects.size) return true;
    for (const [relative, r] of this.next) {
      const o = this.stored.objects.get(relative);
      if (!o || o.identity !== r.identity || o.etag !== r.etag || o.versionId !== r.versionId || o.size !== r.size) return true;
    }
    return false;
  }
}
