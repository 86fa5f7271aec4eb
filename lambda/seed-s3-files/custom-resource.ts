import type { S3Client } from '@aws-sdk/client-s3';
import * as path from 'path';
import { PlaceClaim } from './place-claim';
import { VisibleFile, waitUntilVisible } from '../seed-bucket/boundary/mount-visibility';
import { removeBucketSeed } from '../seed-bucket/bucket-removal';
import { seedBucket } from '../seed-bucket/bucket-seed';
import type { BucketSeedSummary } from '../seed-bucket/bucket-seed-summary';
import type { BucketTarget } from '../seed-bucket/bucket-target';
import { publishSeedMetrics } from '../seed/handler/metrics';
import { describeResource, identityOf, ofAnotherStack, sameResource } from '../seed/handler/resource-identity';
import { SAFETY_MARGIN_MS, sliceDeadline } from '../seed/handler/slice-deadline';
import { failedEntriesError, firstFive, progressLogger } from '../seed/handler/slice-report';
import { archiveLimitsOf } from '../seed/sources/archive-limits';
import { openSource } from '../seed/sources/open-source';
import { S3ObjectsSource } from '../seed/sources/s3-objects';
import { printable } from '../shared/printable';
import { DEPLOY_TIME_LIMIT_SECONDS, describeSeconds, TimeLimitProperties, timeLimitSeconds } from '../../lib/core/contract/deploy-time-limit';
import { safeEntryPath } from '../../lib/seed/contract/entry-path';
import { checkS3FilesSeedProperties, S3FilesSeedResourceProperties, s3FilesSeedPlace } from '../../lib/seed/contract/s3-files-seed-properties';

/**
 * The S3FilesSeed custom resource (Provider framework): it writes the source's files as objects of
 * the file system's bucket (seedBucket) and completes once they show through the mount. Under each
 * CloudFormation event (docs/seed-s3-files.md has the table):
 * - Create and Update claim the place (the bucket's key prefix) for their request, which stops an
 *   older request's run at its next look; the copy runs in isComplete, slice by slice, each resuming
 *   from the manifest, until it is complete and visible, or the deploy's time limit has run out. An
 *   Update whose source, place and prune are unchanged does nothing.
 * - A rollback Update (back to the source before) writes the old content back and removes what the
 *   forward request added (the manifest's record of the last run), prune or not.
 * - Delete releases the claim and, with RemoveOnDelete, removes what the seed wrote and nobody
 *   changed since, unless another resource holds the place now (a renamed construct took it over).
 */
export interface S3FilesSeedEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly RequestId?: string;
  readonly StackId?: string;
  readonly LogicalResourceId?: string;
  readonly PhysicalResourceId?: string;
  readonly ResourceProperties: S3FilesSeedResourceProperties & TimeLimitProperties;
  readonly OldResourceProperties?: S3FilesSeedResourceProperties;
  readonly Data?: { Complete?: string; Deadline?: number };
}

export interface S3FilesSeedDeps {
  readonly s3: S3Client;
  /** Milliseconds this invocation has left. */
  readonly remainingMs: () => number;
}

type Data = Record<string, string | number>;

export async function onEvent(event: S3FilesSeedEvent, deps: S3FilesSeedDeps): Promise<{ PhysicalResourceId: string; Data?: Data }> {
  if (event.RequestType === 'Delete') return onDelete(event, deps);
  const runDeadline = Date.now() + limitSecondsOf(event) * 1000;
  const props = checkS3FilesSeedProperties(event.ResourceProperties);
  const physicalId = placeIdOf(props);
  if (event.RequestType === 'Update' && event.OldResourceProperties && !needsRun(event.OldResourceProperties, props)) {
    console.log(JSON.stringify({ message: 'source, place and prune unchanged: nothing to copy' }));
    return { PhysicalResourceId: physicalId, Data: { Complete: 'true' } };
  }
  await claimPlace(new PlaceClaim(deps.s3, targetOf(props)), requestOf(event), identityOf(event, physicalId), physicalId);
  // The copy runs in isComplete only: should it fail, the framework sends the rollback's Delete, which removeOnDelete needs.
  return { PhysicalResourceId: physicalId, Data: { Complete: 'false', Deadline: runDeadline } };
}

export async function isComplete(event: S3FilesSeedEvent, deps: S3FilesSeedDeps): Promise<{ IsComplete: boolean; Data?: Data }> {
  if (event.Data?.Complete === 'true') return { IsComplete: true };
  const runDeadline = event.Data?.Deadline;
  if (typeof runDeadline !== 'number') throw new Error('seed: no Deadline from onEvent; cannot bound the run.');
  if (Date.now() >= runDeadline) throw new Error(timeLimitMessage(event));
  const props = checkS3FilesSeedProperties(event.ResourceProperties);
  const claim = new PlaceClaim(deps.s3, targetOf(props));
  const request = requestOf(event);
  if (!await claim.heldFor(request)) throw supersededError(event);
  const deadline = sliceDeadline(deps.remainingMs(), runDeadline);
  let files: ReadonlyArray<VisibleFile>;
  let data: Data;
  if (props.CopiedBy === 'dataSync') {
    // A DataSync task copied the prefix before this request: what it should have written is what the source lists.
    files = await sourceFiles(props, deps.s3);
    data = { Complete: 'true', Files: files.length };
  } else {
    const summary = await runSlice(event, props, claim, deps, deadline);
    if (summary.superseded) throw supersededError(event);
    if (!summary.complete) return { IsComplete: false };
    files = summary.seededFiles ?? [];
    data = dataOf(summary);
  }
  // Visible through the mount before the stack's consumers start; a wait cut short by the slice goes on in the next one.
  const visibilityMs = Number(props.VisibilityTimeoutSeconds) * 1000;
  const waitMs = Math.min(visibilityMs, deadline + SAFETY_MARGIN_MS / 2 - Date.now());
  const where = path.join(props.MountPath, props.VisiblePath);
  const visibility = await waitUntilVisible(where, files, { timeoutMs: Math.max(0, waitMs) });
  console.log(JSON.stringify({ message: 'seed visibility', where, visible: visibility.visible, missing: visibility.missing.length, seconds: visibility.seconds }));
  if (visibility.missing.length === 0) return { IsComplete: true, Data: data };
  if (waitMs < visibilityMs) return { IsComplete: false };
  throw new Error(`seed: ${visibility.missing.length} of ${files.length} files written to ${s3FilesSeedPlace(props)} did not show through the mount `
    + `(${where}) within ${describeSeconds(visibilityMs / 1000)}: ${firstFive(visibility.missing.map((m) => `${m.path} (${m.reason})`))}. The objects stay, and a deploy again checks again; `
    + 'look at the file system\'s ImportFailures and ImportAge metrics, or raise visibilityTimeout.');
}

/**
 * Claims the place for this request, unless a resource of another stack holds it (a twin stack
 * seeding the same prefix): each would delete what the other serves. A resource of this stack may
 * take the place over (a renamed construct), and anyone may once the holder released it.
 */
async function claimPlace(claim: PlaceClaim, request: string, identity: string, physicalId: string): Promise<void> {
  // The write is conditional on the claim read: of two requests claiming at once (twin stacks), one reads the other's claim.
  for (let attempt = 0; attempt < 3; attempt++) {
    const { claim: holder, etag } = await claim.read();
    if (holder && !holder.released && ofAnotherStack(holder.resource, identity)) {
      throw new Error(`seed: ${physicalId} is the place of ${printable(describeResource(holder.resource))}, so ${describeResource(identity)} cannot seed it too: `
        + 'each would delete what the other serves. Give this seed a place of its own (another targetPath), or delete the other seed first.');
    }
    // Taken over from another resource of this stack (a renamed construct) that may come back on a rollback: remembered.
    const previous = holder && !holder.released && !sameResource(holder.resource, identity) ? holder.resource : holder?.previous;
    if (await claim.write({ request, resource: identity, ...previous ? { previous } : {} }, etag)) return;
  }
  throw new Error(`seed: the claim of ${physicalId} kept changing while this request claimed it (another request for the same place at the same time); deploy again.`);
}

/**
 * The files of the S3 source, by their path under the place, as DataSync copies them (each key less
 * the prefix; a key ending in '/' is a folder). A key the seed would refuse (not a normal path, or one
 * of its own names) fails the request, named: DataSync copied it as it is, but no check can say where
 * S3 Files shows it, nor must the seed trust it.
 */
async function sourceFiles(props: S3FilesSeedResourceProperties, s3: S3Client): Promise<VisibleFile[]> {
  const files: VisibleFile[] = [];
  const refused: string[] = [];
  for await (const entry of new S3ObjectsSource(s3, props.Bucket, props.Key).entries()) {
    if (entry.type !== 'file') continue;
    try {
      files.push({ path: safeEntryPath(entry.path), size: entry.size });
    } catch (err) {
      refused.push((err as Error).message);
    }
  }
  if (refused.length > 0) {
    throw new Error(`seed: the source s3://${props.Bucket}/${props.Key} has ${refused.length} key${refused.length === 1 ? '' : 's'} the seed refuses, which DataSync copied as they are: `
      + `${firstFive(refused)}. Rename or remove them in the source, and the objects DataSync wrote for them under ${s3FilesSeedPlace(props)}.`);
  }
  return files;
}

async function runSlice(event: S3FilesSeedEvent, props: S3FilesSeedResourceProperties, claim: PlaceClaim, deps: S3FilesSeedDeps, deadline: number): Promise<BucketSeedSummary> {
  const request = requestOf(event);
  const opened = await openSource({ format: props.Format, bucket: props.Bucket, key: props.Key }, { client: deps.s3, s3: {}, limits: archiveLimitsOf(props) });
  let summary: BucketSeedSummary;
  try {
    summary = await seedBucket(deps.s3, opened.source, targetOf(props), {
      concurrency: Number(props.Concurrency),
      prune: props.Prune === 'true',
      deadline,
      listFiles: true,
      run: { to: props.Fingerprint, ...fromOf(event) },
      stillCurrent: () => claim.heldFor(request),
      onProgress: progressLogger(),
    });
  } finally {
    await opened.close();
  }
  publishSeedMetrics(props.MetricsName ?? event.LogicalResourceId ?? s3FilesSeedPlace(props), summary);
  const { seededFiles, ...logged } = summary;
  console.log(JSON.stringify({ message: 'seed slice done', ...logged, failed: summary.failed.slice(0, 20), kept: summary.kept.slice(0, 20), files: seededFiles?.length ?? summary.files }));
  for (const warning of summary.warnings) console.warn(JSON.stringify({ message: 'seed warning', warning }));
  if (summary.failed.length > 0) throw failedEntriesError(opened.source.description, s3FilesSeedPlace(props), summary.failed);
  return summary;
}

/**
 * Releases the place's claim where this resource holds it and, with RemoveOnDelete, removes what the
 * seed wrote: never where another resource holds the place (it took the place over, and serves it).
 * Read leniently: a Delete of a resource whose properties no longer pass must not stick. It is done
 * within onEvent (its isComplete answers at once).
 */
async function onDelete(event: S3FilesSeedEvent, deps: S3FilesSeedDeps): Promise<{ PhysicalResourceId: string; Data: Data }> {
  const done = { PhysicalResourceId: event.PhysicalResourceId ?? '', Data: { Complete: 'true' } };
  const physicalId = done.PhysicalResourceId;
  let props: S3FilesSeedResourceProperties;
  try {
    props = checkS3FilesSeedProperties(event.ResourceProperties);
  } catch (err) {
    console.warn(JSON.stringify({ message: 'Delete with properties that do not pass: nothing removed', error: (err as Error).message }));
    return done;
  }
  // A Delete of another place than the properties name (the old resource after a move) has the old properties: the physical id is what it concerns.
  if (physicalId !== placeIdOf(props)) {
    console.warn(JSON.stringify({ message: 'Delete of a place its properties do not name: nothing removed', physicalId }));
    return done;
  }
  try {
    await leaveOrRemove(event, props, deps.s3, identityOf(event, physicalId));
  } catch (err) {
    console.warn(JSON.stringify({ message: 'the seed\'s Delete could not do all it would: what is left stays', physicalId, error: (err as Error).message }));
  }
  return done;
}

/** What a Delete does to the place: leaves it to the resource that holds it now, hands it back, releases it, or removes what the seed wrote. */
async function leaveOrRemove(event: S3FilesSeedEvent, props: S3FilesSeedResourceProperties, s3: S3Client, identity: string): Promise<void> {
  const claim = new PlaceClaim(s3, targetOf(props));
  const { claim: holder, etag } = await claim.read();
  if (holder && !holder.released && !sameResource(holder.resource, identity)) {
    console.log(JSON.stringify({ message: 'the place is another resource\'s now: left as it is', holder: holder.resource }));
    // The resource that took the place over from this one (a renamed construct) now holds it alone.
    if (holder.previous && sameResource(holder.previous, identity)) await claim.write({ request: holder.request, resource: holder.resource }, etag);
    return;
  }
  if (holder?.previous && !holder.released) {
    // A rename rolled back: this, the new resource, goes; the one it took the place over from stays, with the place's content.
    console.log(JSON.stringify({ message: 'handing the place back to the resource this one took it over from', to: holder.previous }));
    await claim.write({ request: requestOf(event), resource: holder.previous }, etag);
    return;
  }
  if (props.RemoveOnDelete === 'true') {
    // Claimed for the Delete first: a run of this resource that goes on stops at its next look.
    await claim.write({ request: requestOf(event), resource: identity }, null);
    const removal = await removeBucketSeed(s3, targetOf(props));
    console.log(JSON.stringify({ message: 'removed what the seed wrote', removed: removal.removed, kept: removal.kept.slice(0, 20), failed: removal.failed.slice(0, 20) }));
    if (removal.failed.length > 0) {
      // Never sticks: what could not be removed stays, released to whoever seeds the place next.
      console.warn(JSON.stringify({ message: 'some of what the seed wrote could not be removed: it stays', failed: removal.failed.slice(0, 20) }));
      await claim.write({ request: requestOf(event), resource: identity, released: true }, null);
      return;
    }
    await claim.remove();
    return;
  }
  if (holder) await claim.write({ request: requestOf(event), resource: identity, released: true }, null);
}

const placeIdOf = (props: S3FilesSeedResourceProperties) => `seed:${s3FilesSeedPlace(props)}`;
const targetOf = (props: S3FilesSeedResourceProperties): BucketTarget => ({ bucket: props.TargetBucket, prefix: props.TargetPrefix });
const requestOf = (event: S3FilesSeedEvent) => event.RequestId ?? event.RequestType;

/** An Update's source before, for the manifest's record of the run (a rollback is an Update back to it). */
function fromOf(event: S3FilesSeedEvent): { from?: string } {
  const from = event.RequestType === 'Update' ? event.OldResourceProperties?.Fingerprint : undefined;
  return typeof from === 'string' ? { from } : {};
}

/** Settings whose change means the place may differ from the source: the source, the place, pruning, the copier. */
function needsRun(old: S3FilesSeedResourceProperties, now: S3FilesSeedResourceProperties): boolean {
  return old.Fingerprint !== now.Fingerprint || old.TargetBucket !== now.TargetBucket || old.TargetPrefix !== now.TargetPrefix || old.Prune !== now.Prune
    || old.CopiedBy !== now.CopiedBy;
}

/** The run's time limit (a Delete, done within onEvent, has none). */
const limitSecondsOf = (event: S3FilesSeedEvent) => timeLimitSeconds(event.ResourceProperties) ?? DEPLOY_TIME_LIMIT_SECONDS;

const supersededError = (event: S3FilesSeedEvent) => new Error(`seed: a newer request for this place (another deploy, or CloudFormation's rollback) `
  + `took over from request ${requestOf(event)}, which stopped; what it wrote is recorded, and the newer request decides what stays.`);

function timeLimitMessage(event: S3FilesSeedEvent): string {
  return `seed: the copy did not finish within the deploy's time limit of ${describeSeconds(limitSecondsOf(event))} (CloudFormation waits at most an hour for a custom resource). `
    + 'The objects written so far stay (unless removeOnDelete removes them as the stack rolls back), and the next deploy resumes where this one stopped.';
}

function dataOf(summary: BucketSeedSummary): Data {
  return {
    Complete: String(summary.complete), Files: summary.files, Bytes: summary.bytes,
    Written: summary.written, Skipped: summary.skipped, Seconds: summary.seconds,
  };
}
