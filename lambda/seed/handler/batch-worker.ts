import { S3Client } from '@aws-sdk/client-s3';
import { SeedEntry, EntrySource } from '../sources/entry';
import { defaultWorkerCount } from '../copy/copy-workers';
import { seed } from '../copy/copy';
import type { SeedFailure } from '../copy/seed-summary';
import { publishSeedMetrics } from './metrics';
import { checkSeedProperties, SeedResourceProperties } from '../../../lib/seed/contract/resource-properties';
import { sliceDeadline } from './slice-deadline';
import { S3ObjectsSource } from '../sources/s3-objects';

/**
 * The Distributed Map worker: copies one batch of S3 keys (Step Functions' ItemBatcher shape) into
 * the target. Many workers write one target at once, so there is no shared manifest: unchanged files
 * are recognised by size and modification time. A bad key fails alone; the batch reports it. A batch
 * that would outlast the function stops starting files before its timeout and fails as unfinished,
 * for the state machine to retry: the retry skips what is written and goes on from there.
 */
export interface BatchEvent {
  /**
   * As Distributed Map's readers hand them out: the S3 listing gives Size as a number and
   * LastModified in epoch seconds; an S3 Inventory report gives strings, LastModifiedDate, and
   * URL-encoded keys.
   */
  readonly Items: ReadonlyArray<BatchItem>;
  readonly BatchInput: SeedResourceProperties;
}

export interface BatchItem {
  readonly Key: string;
  readonly Size?: number | string;
  readonly Etag?: string;
  readonly ETag?: string;
  readonly LastModified?: number | string;
  readonly LastModifiedDate?: string;
}

export interface BatchResult {
  readonly written: number;
  readonly skipped: number;
  readonly failed: SeedFailure[];
}

function lastModifiedOf(item: BatchItem): Date | undefined {
  const value = item.LastModified ?? item.LastModifiedDate;
  if (value === undefined) return undefined;
  return typeof value === 'number' ? new Date(value * 1000) : new Date(value);
}

/** S3 Inventory writes keys as in a URL query ('+' for a space); a key that is not valid encoding is used as it is. */
function decodeInventoryKey(key: string): string {
  try {
    return decodeURIComponent(key.replace(/\+/g, '%20'));
  } catch {
    return key;
  }
}

export interface BatchDeps {
  readonly s3: S3Client;
  /** Milliseconds this invocation has left. */
  readonly remainingMs: () => number;
}

export class BatchFailedError extends Error {
  constructor(readonly failed: SeedFailure[], readonly written: number, readonly skipped: number) {
    super(`${failed.length} of the batch's keys failed (${written} written, ${skipped} unchanged): ${failed.slice(0, 10).map((f) => f.error).join('; ')}`);
    this.name = 'SeedBatchFailed';
  }
}

/** The error name the state machine retries on: the batch stopped before its function's timeout. */
export class BatchUnfinishedError extends Error {
  constructor(readonly written: number, readonly skipped: number) {
    super(`the batch ran out of the worker's time (${written} written, ${skipped} unchanged); a retry skips those and goes on`);
    this.name = 'SeedBatchUnfinished';
  }
}

export async function copyBatch(event: BatchEvent, deps: BatchDeps): Promise<BatchResult> {
  const props = checkSeedProperties(event.BatchInput);
  if (!Array.isArray(event.Items)) throw new Error('invalid batch: Items must be a list of S3 objects');
  // The handler's client is made from the environment's settings ({}): workers make theirs the same way.
  const objects = new S3ObjectsSource(deps.s3, props.Bucket, props.Key, {});
  const source: EntrySource = {
    description: `${event.Items.length} keys of ${objects.description}`,
    async *entries() {
      for (const item of event.Items) {
        if (typeof item?.Key !== 'string') {
          yield { type: 'failed', path: JSON.stringify(item?.Key), reason: 'the batch item has no Key' };
          continue;
        }
        const key = props.KeysUrlEncoded === 'true' ? decodeInventoryKey(item.Key) : item.Key;
        const entry: SeedEntry | undefined = objects.entryFor(key, Number(item.Size ?? 0), item.Etag ?? item.ETag ?? '', lastModifiedOf(item));
        if (entry) yield entry;
      }
    },
  };
  // The sub-path's directories are the file system's, which other clients write: none may be a link.
  const summary = await seed(source, props.MountPath, {
    targetSubPath: props.TargetSubPath,
    concurrency: Number(props.Concurrency), manifest: false, workers: defaultWorkerCount(), deadline: sliceDeadline(deps.remainingMs()),
  });
  publishSeedMetrics(props.MetricsName ?? `${props.Bucket}/${props.Key}`, summary);
  console.log(JSON.stringify({ message: 'seed batch done', written: summary.written, skipped: summary.skipped, failed: summary.failed.length, seconds: summary.seconds, filesByWorker: summary.filesByWorker }));
  if (summary.failed.length > 0) {
    // The rest of the batch is written; failing it lets the map's tolerated-failure settings decide.
    throw new BatchFailedError(summary.failed, summary.written, summary.skipped);
  }
  if (!summary.complete) throw new BatchUnfinishedError(summary.written, summary.skipped);
  return { written: summary.written, skipped: summary.skipped, failed: [] };
}
