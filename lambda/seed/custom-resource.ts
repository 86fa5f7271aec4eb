import * as path from 'path';
import { S3Client } from '@aws-sdk/client-s3';
import { defaultWorkerCount } from './copy-workers';
import { seed, SeedSummary } from './copy';
import { publishSeedMetrics } from './metrics';
import { DEPLOY_TIME_LIMIT_SECONDS, describeSeconds, timeLimitSeconds, TimeLimitProperties } from '../shared/deploy-time-limit';
import { FileSystemCalls } from './file-system-calls';
import { parentsOf, removeLeftovers, removeMadeDirectories, removeWritten } from './removal';
import { archiveLimitsOf, checkSeedProperties, SeedResourceProperties } from './resource-properties';
import { LINK_IDENTITY } from './entry';
import { sliceDeadline } from './slice-deadline';
import { openSource, SourceFormat } from './sources/open-source';
import { StateDirectory } from './state-directory';
import { newHolderId } from './target-lock';
import { TargetTree } from './target-tree';

/**
 * The FileSystemSeed custom resource (Provider framework). onEvent copies until the function's time
 * nearly runs out; isComplete resumes (the manifest is the checkpoint: finished files are skipped)
 * until the copy is complete, or fails it once the deploy's time limit (TimeLimitSeconds from
 * onEvent's start) has run out, every slice stopping by then. Update re-runs only when the source
 * changed; Delete leaves the data unless RemoveOnDelete is 'true', and then removes only what the
 * seed wrote, in slices with the same limit.
 */
export interface SeedEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly LogicalResourceId?: string;
  readonly ResourceProperties: SeedResourceProperties & TimeLimitProperties;
  readonly OldResourceProperties?: SeedResourceProperties;
  readonly PhysicalResourceId?: string;
  /** onEvent's Data, seen by isComplete: whether it finished, and when the whole run must be over (ms). */
  readonly Data?: { Complete?: string; Deadline?: number };
}

export interface SeedDeps {
  readonly s3: S3Client;
  /** Milliseconds this invocation has left. */
  readonly remainingMs: () => number;
}

type Data = Record<string, string | number>;

export async function onEvent(event: SeedEvent, deps: SeedDeps): Promise<{ PhysicalResourceId: string; Data?: Data }> {
  // An older version's resource, on Delete, has no limit of its own: it gets the one this version sets.
  const runDeadline = Date.now() + (timeLimitSeconds(event.ResourceProperties) ?? DEPLOY_TIME_LIMIT_SECONDS) * 1000;
  if (event.RequestType === 'Delete') {
    // Nothing to remove needs no properties: a resource an older version wrote is deleted whatever they hold.
    const complete = event.ResourceProperties?.RemoveOnDelete !== 'true'
      || await removeSlice(checkSeedProperties(event.ResourceProperties), sliceDeadline(deps.remainingMs(), runDeadline));
    return { PhysicalResourceId: event.PhysicalResourceId ?? 'seed', Data: { Complete: String(complete), Deadline: runDeadline } };
  }
  const props = checkSeedProperties(event.ResourceProperties);
  const physicalId = `seed:${targetOf(props)}`;
  // Old properties that fail the check (written by an older version, or by hand) only mean: run.
  if (event.RequestType === 'Update' && event.OldResourceProperties && !needsRun(event.OldResourceProperties, props)) {
    console.log(JSON.stringify({ message: 'source and target unchanged: nothing to copy' }));
    return { PhysicalResourceId: physicalId, Data: { Complete: 'true' } };
  }
  const summary = await runSlice(event, deps, sliceDeadline(deps.remainingMs(), runDeadline));
  return { PhysicalResourceId: physicalId, Data: { ...dataOf(summary), Deadline: runDeadline } };
}

export async function isComplete(event: SeedEvent, deps: SeedDeps): Promise<{ IsComplete: boolean; Data?: Data }> {
  if (event.Data?.Complete === 'true') return { IsComplete: true };
  const runDeadline = event.Data?.Deadline;
  if (typeof runDeadline !== 'number') throw new Error('seed: no Deadline from onEvent; cannot bound the run.');
  if (Date.now() >= runDeadline) throw new Error(timeLimitMessage(event));
  // A removal goes on in slices, like a copy: each invocation stops before its time runs out.
  const deadline = sliceDeadline(deps.remainingMs(), runDeadline);
  if (event.RequestType === 'Delete') return { IsComplete: await removeSlice(checkSeedProperties(event.ResourceProperties), deadline) };
  const summary = await runSlice(event, deps, deadline);
  return summary.complete ? { IsComplete: true, Data: dataOf(summary) } : { IsComplete: false };
}

/** Why the resource fails when the deploy's time limit runs out, and what stays. */
function timeLimitMessage(event: SeedEvent): string {
  const limit = describeSeconds(timeLimitSeconds(event.ResourceProperties) ?? DEPLOY_TIME_LIMIT_SECONDS);
  const why = `within the deploy's time limit of ${limit} (CloudFormation waits at most an hour for a custom resource)`;
  if (event.RequestType === 'Delete') {
    return `seed: removing what the seed wrote did not finish ${why}; what is left is listed in the seed's manifest, and deleting again resumes where this stopped.`;
  }
  return `seed: the copy did not finish ${why}. The files copied so far stay (unless removeOnDelete removes them as the stack rolls back), `
    + 'and the next deploy resumes where this one stopped. For content that takes longer, copy S3 objects with SeedEngine.distributedMap() '
    + 'or SeedEngine.dataSync() and waitForCompletion: false.';
}

/** Where the seed writes (checked properties only: the sub-path is a normal relative path). */
function targetOf(props: SeedResourceProperties): string {
  return path.join(props.MountPath, props.TargetSubPath);
}

/** Settings whose change means the target may differ from the source. */
function needsRun(old: SeedResourceProperties, now: SeedResourceProperties): boolean {
  return old.Fingerprint !== now.Fingerprint || old.MountPath !== now.MountPath || old.TargetSubPath !== now.TargetSubPath || old.Prune !== now.Prune;
}

async function runSlice(event: SeedEvent, deps: SeedDeps, deadline: number): Promise<SeedSummary> {
  const props = checkSeedProperties(event.ResourceProperties);
  const concurrency = Number(props.Concurrency);
  const target = targetOf(props);
  const opened = await openSource({ format: props.Format as SourceFormat, bucket: props.Bucket, key: props.Key }, { client: deps.s3, s3: {}, limits: archiveLimitsOf(props) });
  let summary: SeedSummary;
  let lastLog = 0;
  try {
    // The sub-path's directories are the file system's, which other clients write: none may be a link.
    summary = await seed(opened.source, props.MountPath, {
      targetSubPath: props.TargetSubPath,
      concurrency,
      workers: defaultWorkerCount(),
      prune: props.Prune === 'true',
      deadline,
      onProgress: (p) => {
        if (Date.now() - lastLog < 10_000) return;
        lastLog = Date.now();
        console.log(JSON.stringify({ message: 'seed progress', ...p }));
      },
    });
  } finally {
    await opened.close();
  }
  publishSeedMetrics(props.MetricsName ?? event.LogicalResourceId ?? target, summary);
  console.log(JSON.stringify({ message: 'seed slice done', ...summary, failed: summary.failed.slice(0, 20), specialFiles: summary.specialFiles.slice(0, 20) }));
  for (const warning of summary.warnings) console.warn(JSON.stringify({ message: 'seed warning', warning }));
  if (summary.failed.length > 0) {
    const shown = summary.failed.slice(0, 5).map((f) => f.error).join('; ');
    throw new Error(`seed of ${opened.source.description} into ${target} failed for ${summary.failed.length} entr${summary.failed.length === 1 ? 'y' : 'ies'}: ${shown}${summary.failed.length > 5 ? '; ...' : ''}`);
  }
  return summary;
}

function dataOf(summary: SeedSummary): Data {
  return {
    Complete: String(summary.complete), Files: summary.files, Bytes: summary.bytes,
    Written: summary.written, Skipped: summary.skipped, Seconds: summary.seconds,
  };
}

/**
 * One slice of removing what the seed wrote (removeOnDelete), until `deadline`: what
 * interrupted seeds left (staging directories, temporary files), the files and links the manifest
 * lists while they are still as the seed wrote them, the directories seeds made once nothing else is
 * in them, then the seed's state; nothing else, and never through a link. A slice that runs out of
 * time saves what is left in the manifest for the next one. A file that cannot be removed, or that
 * changed since the seed wrote it, is logged and left. True once everything is done.
 */
async function removeSlice(props: SeedResourceProperties, deadline: number): Promise<boolean> {
  const tree = await TargetTree.open(new FileSystemCalls(FileSystemCalls.TARGET), props.MountPath, props.TargetSubPath, false);
  if (!tree) return true; // nothing there to remove
  try {
    const state = await StateDirectory.open(tree, false);
    const lock = await state?.lock({ holder: newHolderId(), waitMs: Math.max(0, deadline - Date.now()) });
    try {
      const manifest = state ? await state.readManifest(lock?.uid) : undefined;
      for (const problem of manifest?.problems ?? []) console.warn(JSON.stringify({ message: 'seed warning', warning: problem }));
      const files = [...manifest?.files ?? []].map(([file, source]) => ({ path: file, identity: source.startsWith(LINK_IDENTITY) ? source : manifest!.written.get(file) }));
      const concurrency = Number(props.Concurrency);
      const directories = [...manifest?.directories ?? [], ...files.flatMap((file) => [...parentsOf(file.path)])];
      const leftoversGone = await removeLeftovers(tree, directories, concurrency, deadline);
      const failures: string[] = [];
      const { gone, kept } = await removeWritten(tree, files, concurrency, (relative, err) => failures.push(`${relative}: ${(err as Error).message}`), deadline);
      if (failures.length > 0) console.warn(JSON.stringify({ message: 'files the seed wrote could not be removed', count: failures.length, failures: failures.slice(0, 20) }));
      if (kept.length > 0) console.warn(JSON.stringify({ message: 'kept files that changed since the seed wrote them', count: kept.length, kept: kept.slice(0, 20) }));
      if (!manifest || !state) return leftoversGone;
      for (const file of [...gone, ...kept]) {
        manifest.files.delete(file);
        manifest.written.delete(file);
      }
      const timeLeft = leftoversGone && Date.now() < deadline && gone.length + kept.length + failures.length === files.length;
      if (timeLeft) {
        (await removeMadeDirectories(tree, manifest.directories, manifest.directories, deadline)).forEach((dir) => manifest.directories.delete(dir));
        await state.remove();
        console.log(JSON.stringify({ message: 'seed removal done', removed: gone.length, kept: kept.length, failed: failures.length }));
        return true;
      }
      await state.saveManifest(manifest, false);
      console.log(JSON.stringify({ message: 'seed removal slice done', removed: gone.length, left: manifest.files.size }));
      return false;
    } finally {
      await lock?.release();
    }
  } finally {
    await tree.close();
  }
}
