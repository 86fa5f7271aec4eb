import * as fs from 'fs';
import * as path from 'path';
import { S3Client } from '@aws-sdk/client-s3';
import { defaultWorkerCount } from './copy-workers';
import { seed, SeedSummary } from './engine';
import { loadManifest, STATE_DIR } from './manifest';
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
  const props = checkSeedProperties(event.ResourceProperties);
  const physicalId = `seed:${targetOf(props)}`;
  if (event.RequestType === 'Delete') {
    if (props.RemoveOnDelete === 'true') await removeWhatTheSeedWrote(props);
    return { PhysicalResourceId: event.PhysicalResourceId ?? physicalId };
  }
  // Old properties that fail the check (written by an older version, or by hand) only mean: run.
  if (event.RequestType === 'Update' && event.OldResourceProperties && !needsRun(event.OldResourceProperties, props)) {
    console.log(JSON.stringify({ message: 'source and target unchanged: nothing to copy' }));
    return { PhysicalResourceId: physicalId, Data: { Complete: 'true' } };
  }
  const summary = await runSlice(event, deps);
  return { PhysicalResourceId: physicalId, Data: dataOf(summary) };
}

export async function isComplete(event: SeedEvent, deps: SeedDeps): Promise<{ IsComplete: boolean; Data?: Data }> {
  if (event.RequestType === 'Delete' || event.Data?.Complete === 'true') return { IsComplete: true };
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

async function runSlice(event: SeedEvent, deps: SeedDeps): Promise<SeedSummary> {
  const props = checkSeedProperties(event.ResourceProperties);
  const concurrency = Number(props.Concurrency);
  // The sub-path's directories are the file system's, which other clients write: none may be a link.
  const target = (await directoryBelow(props.MountPath, props.TargetSubPath, true))!;
  const opened = await openSource({ format: props.Format as SourceFormat, bucket: props.Bucket, key: props.Key }, { client: deps.s3, limits: archiveLimitsOf(props) });
  let summary: SeedSummary;
  let lastLog = 0;
  try {
    summary = await seed(opened.source, target, {
      concurrency,
      workers: defaultWorkerCount(),
      prune: props.Prune === 'true',
      deadline: Date.now() + deps.remainingMs() - SAFETY_MARGIN_MS,
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
 * Removes what interrupted seeds left (staging directories, temporary files), the files the manifest
 * lists (what seeds wrote), the directories seeds made once nothing else is in them, then the seed's
 * state; nothing else, and never through a link. A file that cannot be removed is logged and left.
 */
async function removeWhatTheSeedWrote(props: SeedResourceProperties): Promise<void> {
  const target = await directoryBelow(props.MountPath, props.TargetSubPath, false);
  if (!target) return; // nothing there to remove
  const manifest = await loadManifest(target);
  for (const problem of manifest.problems) console.warn(JSON.stringify({ message: 'seed warning', warning: problem }));
  const files = [...manifest.files.keys()];
  const real = new RealDirectories(target);
  await removeLeftovers(target, [...manifest.directories, ...files.flatMap((file) => [...parentsOf(file)])], real);
  const failures: string[] = [];
  await removeFiles(target, files, Number(props.Concurrency), (relative, err) => failures.push(`${relative}: ${(err as Error).message}`), real);
  if (failures.length > 0) console.warn(JSON.stringify({ message: 'files the seed wrote could not be removed', count: failures.length, failures: failures.slice(0, 20) }));
  await removeMadeDirectories(target, manifest.directories, manifest.directories, real);
  await fs.promises.rm(path.join(target, STATE_DIR), { recursive: true, force: true });
}
