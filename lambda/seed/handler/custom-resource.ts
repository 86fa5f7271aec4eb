import { defaultWorkerCount } from '../copy/copy-workers';
import { seed } from '../copy/copy';
import type { SeedSummary } from '../copy/seed-summary';
import { publishSeedMetrics } from './metrics';
import { DEPLOY_TIME_LIMIT_SECONDS, describeSeconds, timeLimitSeconds } from '../../../lib/core/contract/deploy-time-limit';
import { onDelete, removalSlice } from './remove-on-delete';
import type { SeedDeps, SeedEvent } from './seed-event';
import { checkSeedProperties, SeedResourceProperties } from '../../../lib/seed/contract/resource-properties';
import { describeResource, identityOf, ofAnotherStack, sameResource } from './resource-identity';
import { physicalIdOf, Place, placeOf } from './seed-place';
import { sliceDeadline } from './slice-deadline';
import { failedEntriesError, progressLogger } from './slice-report';
import { archiveLimitsOf } from '../sources/archive-limits';
import { openSource } from '../sources/open-source';
import { printable } from '../../shared/printable';

/**
 * The FileSystemSeed custom resource (Provider framework), right under every CloudFormation event
 * (docs/seed.md has the table):
 * - Create and Update claim the place (file system, access point, target path) for their request, so
 *   that any older request's run stops at its next heartbeat or slice; an Update's onEvent copies until
 *   the function's time nearly runs out, isComplete resumes from the manifest (the checkpoint) until the
 *   copy is complete, or fails once the deploy's time limit (TimeLimitSeconds from onEvent's start)
 *   has run out. A Create's onEvent only claims the place and its copy starts in isComplete, so a
 *   failure or a killed slice leaves a resource whose rollback Delete reaches the handler (the
 *   framework drops the Delete of a Create that failed in onEvent). An Update runs when the source or the place changed; a new place is a new physical id.
 * - A rollback Update is an Update with the old properties: it claims the place, stops the forward
 *   run, writes the old source's content back (content, not presence), and removes what the forward
 *   request added, whether its run was unfinished or complete (recorded as the last complete
 *   request's, with the sources it went from and to), prune or not.
 * - Delete (remove-on-delete.ts) parses leniently and never sticks.
 */
type Data = Record<string, string | number>;

/** How long a slice waits for an older request's run to see it is superseded and let go (it looks every 10 s). */
const SUPERSEDED_WAIT_MS = 120_000;

export async function onEvent(event: SeedEvent, deps: SeedDeps): Promise<{ PhysicalResourceId: string; Data?: Data }> {
  const runDeadline = Date.now() + limitSecondsOf(event) * 1000;
  if (event.RequestType === 'Delete') return onDelete(event, sliceDeadline(deps.remainingMs(), runDeadline), runDeadline);
  // Properties that fail the checks stop the request here, before anything is touched.
  const props = checkSeedProperties(event.ResourceProperties);
  const physicalId = physicalIdOf(props);
  // Old properties that fail the check (written by an older version, or by hand) only mean: run.
  if (event.RequestType === 'Update' && event.OldResourceProperties && !needsRun(event.OldResourceProperties, props)) {
    console.log(JSON.stringify({ message: 'source and place unchanged: nothing to copy' }));
    return { PhysicalResourceId: physicalId, Data: { Complete: 'true' } };
  }
  const place = placeOf(props);
  const identity = identityOf(event, physicalId);
  await claimPlace(place, requestOf(event), identity, physicalId);
  // A Create copies from isComplete only: should onEvent fail or be killed, the framework answers the
  // Create itself and drops its rollback Delete, which would leave whatever a slice had written.
  if (event.RequestType === 'Create') return { PhysicalResourceId: physicalId, Data: { Complete: 'false', Deadline: runDeadline } };
  const summary = await runSlice(event, props, place, identity, deps, sliceDeadline(deps.remainingMs(), runDeadline));
  return { PhysicalResourceId: physicalId, Data: { ...dataOf(summary), Deadline: runDeadline } };
}

export async function isComplete(event: SeedEvent, deps: SeedDeps): Promise<{ IsComplete: boolean; Data?: Data }> {
  if (event.Data?.Complete === 'true') return { IsComplete: true };
  const runDeadline = event.Data?.Deadline;
  if (typeof runDeadline !== 'number') throw new Error('seed: no Deadline from onEvent; cannot bound the run.');
  if (Date.now() >= runDeadline) throw new Error(timeLimitMessage(event));
  // A removal goes on in slices, like a copy: each invocation stops before its time runs out.
  const deadline = sliceDeadline(deps.remainingMs(), runDeadline);
  if (event.RequestType === 'Delete') return { IsComplete: await removalSlice(event, deadline) };
  const props = checkSeedProperties(event.ResourceProperties);
  const place = placeOf(props);
  const request = requestOf(event);
  if (!await place.claimedFor(request)) throw supersededError(event);
  const summary = await runSlice(event, props, place, identityOf(event, event.PhysicalResourceId ?? physicalIdOf(props)), deps, deadline);
  if (summary.complete) return { IsComplete: true, Data: dataOf(summary) };
  // Stopped for a newer request: its waiter ends; CloudFormation listens to the newer one.
  if (!await place.claimedFor(request)) throw supersededError(event);
  return { IsComplete: false };
}

/**
 * Claims the place for this request, unless a resource of another stack holds it (a twin stack
 * seeding the same file system): its Delete would remove what this one serves, and this one's what
 * that one serves. A resource of this stack may take the place over (a renamed or moved construct:
 * the old resource's Delete then sees the place is not its own), and so may anyone once the holder
 * was deleted and released it.
 */
async function claimPlace(place: Place, request: string, identity: string, physicalId: string): Promise<void> {
  const holder = await place.claimed();
  if (holder && !holder.released && ofAnotherStack(holder.resource, identity)) {
    // The holder's identity is read from the target, which others can write: shown escaped.
    throw new Error(`seed: ${physicalId} is the place of ${printable(describeResource(holder.resource))}, so ${describeResource(identity)} cannot seed it too: `
      + 'each would delete what the other serves. Give this seed a place of its own (another targetPath or access point), or delete the other seed first.');
  }
  // Taken over from another resource of this stack (a renamed construct) that may come back on a rollback: remembered.
  const previous = holder && !holder.released && !sameResource(holder.resource, identity) ? holder.resource : holder?.previous;
  await place.claim(request, identity, true, false, previous);
}

/** The time limit the properties set; an unreadable one (or an older version's none) gets this version's. */
function limitSecondsOf(event: SeedEvent): number {
  try {
    return timeLimitSeconds(event.ResourceProperties) ?? DEPLOY_TIME_LIMIT_SECONDS;
  } catch (err) {
    if (event.RequestType !== 'Delete') throw err;
    return DEPLOY_TIME_LIMIT_SECONDS;
  }
}

/** The request's id: CloudFormation's, the same for onEvent and every isComplete of one request. */
const requestOf = (event: SeedEvent) => event.RequestId ?? event.RequestType;

const supersededError = (event: SeedEvent) => new Error(`seed: a newer request for this place (another deploy, or CloudFormation's rollback) `
  + `took over from request ${requestOf(event)}, which stopped; what it wrote is recorded, and the newer request decides what stays.`);

/** Why the resource fails when the deploy's time limit runs out, and what stays. */
function timeLimitMessage(event: SeedEvent): string {
  const limit = describeSeconds(limitSecondsOf(event));
  const why = `within the deploy's time limit of ${limit} (CloudFormation waits at most an hour for a custom resource)`;
  if (event.RequestType === 'Delete') {
    return `seed: removing what the seed wrote did not finish ${why}; what is left is listed in the seed's manifest, and deleting again resumes where this stopped.`;
  }
  return `seed: the copy did not finish ${why}. The files copied so far stay (unless removeOnDelete removes them as the stack rolls back), `
    + 'and the next deploy resumes where this one stopped. For content that takes longer, copy S3 objects with SeedEngine.distributedMap() '
    + 'or SeedEngine.dataSync() and waitForCompletion: false.';
}

/** Settings whose change means the target may differ from the source: the source, the place, pruning. */
function needsRun(old: SeedResourceProperties, now: SeedResourceProperties): boolean {
  return old.Fingerprint !== now.Fingerprint || old.MountPath !== now.MountPath || old.TargetSubPath !== now.TargetSubPath || old.Prune !== now.Prune
    || old.FileSystemId !== now.FileSystemId || old.AccessPointId !== now.AccessPointId;
}

async function runSlice(event: SeedEvent, props: SeedResourceProperties, place: Place, identity: string, deps: SeedDeps, deadline: number): Promise<SeedSummary> {
  const request = requestOf(event);
  const opened = await openSource({ format: props.Format, bucket: props.Bucket, key: props.Key }, { client: deps.s3, s3: {}, limits: archiveLimitsOf(props) });
  let summary: SeedSummary;
  try {
    // The sub-path's directories are the file system's, which other clients write: none may be a link.
    summary = await seed(opened.source, props.MountPath, {
      targetSubPath: props.TargetSubPath,
      concurrency: Number(props.Concurrency),
      workers: defaultWorkerCount(),
      prune: props.Prune === 'true',
      deadline,
      request: { id: request, resource: identity, current: () => place.claimedFor(request), source: sourceChangeOf(event, props) },
      lockWaitMs: Math.max(0, Math.min(SUPERSEDED_WAIT_MS, deadline - Date.now())),
      onLockWait: (holder) => console.log(JSON.stringify({ message: 'waiting for the run that holds the place\'s lock to stop', holder })),
      onProgress: progressLogger(),
    });
  } finally {
    await opened.close();
  }
  const target = place.where;
  publishSeedMetrics(props.MetricsName ?? event.LogicalResourceId ?? target, summary);
  console.log(JSON.stringify({ message: 'seed slice done', ...summary, failed: summary.failed.slice(0, 20), specialFiles: summary.specialFiles.slice(0, 20) }));
  for (const warning of summary.warnings) console.warn(JSON.stringify({ message: 'seed warning', warning }));
  if (summary.failed.length > 0) throw failedEntriesError(opened.source.description, target, summary.failed);
  return summary;
}

/** The source this request copies and, for an Update, the one before (an old Fingerprint that is not a string counts as none). */
function sourceChangeOf(event: SeedEvent, props: SeedResourceProperties): { to: string; from?: string } {
  const from = event.RequestType === 'Update' ? event.OldResourceProperties?.Fingerprint : undefined;
  return { to: props.Fingerprint, ...typeof from === 'string' ? { from } : {} };
}

function dataOf(summary: SeedSummary): Data {
  return {
    Complete: String(summary.complete), Files: summary.files, Bytes: summary.bytes,
    Written: summary.written, Skipped: summary.skipped, Seconds: summary.seconds,
  };
}
