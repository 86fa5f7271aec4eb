import * as fs from 'fs';
import * as path from 'path';
import { S3Client } from '@aws-sdk/client-s3';
import { defaultWorkerCount } from './copy-workers';
import { seed, SeedSummary } from './copy';
import { loadManifest, saveManifest, STATE_DIR } from './manifest';
import { publishSeedMetrics } from './metrics';
import { parentsOf, RealDirectories, removeFiles, removeLeftovers, removeMadeDirectories } from './removal';
import { archiveLimitsOf, checkSeedProperties, SeedResourceProperties } from './resource-properties';
import { openSource, SourceFormat } from './sources/open-source';
import { directoryBelow } from './target-root';

/**
 * The FileSystemSeed custom resource (Provider framework). onEvent copies until the function's time
 * nearly runs out; isComplete resumes (the manifest is the checkpoint: finished files are skipped)
 * until the copy is complete. Update re-runs only when the source changed; Delete leaves the data
 * unless RemoveOnDelete is 'true', and then removes only what the seed wrote.
 */
export interface SeedEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly LogicalResourceId?: string;
  readonly ResourceProperties: SeedResourceProperties;
  readonly OldResourceProperties?: SeedResourceProperties;
  readonly PhysicalResourceId?: string;
  /** onEvent's Data, seen by isComplete. */
  readonly Data?: { Complete?: string };
}

export interface SeedDeps {
  readonly s3: S3Client;
  /** Milliseconds this invocation has left. */
  readonly remainingMs: () => number;
}

/** Stop starting files this long before the function times out: in-flight writes must finish. */
export const SAFETY_MARGIN_MS = 60_000;

type Data = Record<string, string | number>;

export async function onEvent(event: SeedEvent, deps: SeedDeps): Promise<{ PhysicalResourceId: string; Data?: Data }> {
  if (event.RequestType === 'Delete') {
    // Nothing to remove needs no properties: a resource an older version wrote is deleted whatever they hold.
    const complete = event.ResourceProperties?.RemoveOnDelete !== 'true' || await removeSlice(checkSeedProperties(event.ResourceProperties), deps);
    return { PhysicalResourceId: event.PhysicalResourceId ?? 'seed', Data: { Complete: String(complete) } };
  }
  const props = checkSeedProperties(event.ResourceProperties);
  const physicalId = `seed:${targetOf(props)}`;
  // Old properties that fail the check (written by an older version, or by hand) only mean: run.
  if (event.RequestType === 'Update' && event.OldResourceProperties && !needsRun(event.OldResourceProperties, props)) {
    console.log(JSON.stringify({ message: 'source and target unchanged: nothing to copy' }));
    return { PhysicalResourceId: physicalId, Data: { Complete: 'true' } };
  }
  const summary = await runSlice(event, deps);
  return { PhysicalResourceId: physicalId, Data: dataOf(summary) };
}

export async function isComplete(event: SeedEvent, deps: SeedDeps): Promise<{ IsComplete: boolean; Data?: Data }> {
  if (event.Data?.Complete === 'true') return { IsComplete: true };
  // A removal goes on in slices, like a copy: each invocation stops before its time runs out.
  if (event.RequestType === 'Delete') return { IsComplete: await removeSlice(checkSeedProperties(event.ResourceProperties), deps) };
  const summary = await runSlice(event, deps);
  return summary.complete ? { IsComplete: true, Data: dataOf(summary) } : { IsComplete: false };
}

/** Where the seed writes (checked properties only: the sub-path is a normal relative path). */
function targetOf(props: SeedResourceProperties): string {
  return path.join(props.MountPath, props.TargetSubPath);
}

/** Settings whose change means the target may differ from the source. */
function needsRun(old: SeedResourceProperties, now: SeedResourceProperties): boolean {
  return old.Fingerprint !== now.Fingerprint || old.MountPath !== now.MountPath || old.TargetSubPath !== now.TargetSubPath || old.Prune !== now.Prune;
}

/** When a slice stops starting work: the safety margin before the function's own timeout. */
const deadlineOf = (deps: SeedDeps) => Date.now() + deps.remainingMs() - SAFETY_MARGIN_MS;

async function runSlice(event: SeedEvent, deps: SeedDeps): Promise<SeedSummary> {
  const props = checkSeedProperties(event.ResourceProperties);
  const concurrency = Number(props.Concurrency);
  // The sub-path's directories are the file system's, which other clients write: none may be a link.
  const target = (await directoryBelow(props.MountPath, props.TargetSubPath, true))!;
  const opened = await openSource({ format: props.Format as SourceFormat, bucket: props.Bucket, key: props.Key }, { client: deps.s3, s3: {}, limits: archiveLimitsOf(props) });
  let summary: SeedSummary;
  let lastLog = 0;
  try {
    summary = await seed(opened.source, target, {
      concurrency,
      workers: defaultWorkerCount(),
      prune: props.Prune === 'true',
      deadline: deadlineOf(deps),
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
 * One slice of removing what the seed wrote (removeOnDelete), until `deps`' deadline: what
 * interrupted seeds left (staging directories, temporary files), the files the manifest lists, the
 * directories seeds made once nothing else is in them, then the seed's state; nothing else, and never
 * through a link. A slice that runs out of time saves what is left in the manifest for the next one.
 * A file that cannot be removed is logged and left. True once everything is done.
 */
async function removeSlice(props: SeedResourceProperties, deps: SeedDeps): Promise<boolean> {
  const deadline = deadlineOf(deps);
  const target = await directoryBelow(props.MountPath, props.TargetSubPath, false);
  if (!target) return true; // nothing there to remove
  const manifest = await loadManifest(target);
  for (const problem of manifest.problems) console.warn(JSON.stringify({ message: 'seed warning', warning: problem }));
  const files = [...manifest.files.keys()];
  const real = new RealDirectories(target);
  const concurrency = Number(props.Concurrency);
  const leftoversGone = await removeLeftovers(target, [...manifest.directories, ...files.flatMap((file) => [...parentsOf(file)])], { concurrency, deadline, real });
  const failures: string[] = [];
  const gone = await removeFiles(target, files, concurrency, (relative, err) => failures.push(`${relative}: ${(err as Error).message}`), real, deadline);
  if (failures.length > 0) console.warn(JSON.stringify({ message: 'files the seed wrote could not be removed', count: failures.length, failures: failures.slice(0, 20) }));
  gone.forEach((file) => manifest.files.delete(file));
  const timeLeft = leftoversGone && Date.now() < deadline && gone.length + failures.length === files.length;
  if (timeLeft) {
    (await removeMadeDirectories(target, manifest.directories, manifest.directories, real)).forEach((dir) => manifest.directories.delete(dir));
    await fs.promises.rm(path.join(target, STATE_DIR), { recursive: true, force: true });
    console.log(JSON.stringify({ message: 'seed removal done', removed: gone.length, failed: failures.length }));
    return true;
  }
  await saveManifest(target, manifest);
  console.log(JSON.stringify({ message: 'seed removal slice done', removed: gone.length, left: manifest.files.size }));
  return false;
}
