import * as path from 'path';
import { MiB } from '../../shared/sizes';
import type { CopyOptions } from './copy-options';
import { CopyRun } from './copy-run';
import { EntrySource } from '../sources/entry';
import { FileSystemCalls } from '../boundary/file-system-calls';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from '../../../lib/seed/contract/limits';
import { emptyManifest } from '../state/manifest';
import { newRunToken } from '../state/reserved-names';
import { RunToken, RunTokens } from '../state/run-tokens';
import type { SeedSummary } from './seed-summary';
import { StateDirectory } from '../state/state-directory';
import { newHolderId, TargetLock } from '../state/target-lock';
import { checkTarget, makeTargetRoot, placeAbove } from '../boundary/target-root';
import { concurrencyFor, idleDescriptorsFor, openFileLimit, TargetTree } from '../boundary/target-tree';
import { describeResolution } from '../boundary/open-beneath';

/** How long a run waits for another to let go of the target's lock, by default. */
export const DEFAULT_LOCK_WAIT_MS = 60_000;

/**
 * The copier behind the seed Lambda, the CLI and the Distributed Map worker (the seed engines of
 * lib/seed/seed-engine.ts deploy it, or DataSync instead): it fills `target`
 * from a source with a bounded pool of writers spread across directories, each file written
 * atomically (through a temporary name, or inside a new directory published whole once it is filled);
 * unchanged files (per the manifest) are only looked for in one listing of their
 * directory; nothing outside the target is ever touched, and files the source no longer has are kept
 * unless `prune` is set. A run itself is CopyRun's (copy-run.ts).
 */
export async function seed(source: EntrySource, target: string, options: CopyOptions = {}): Promise<SeedSummary> {
  const requested = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(requested) || requested < 1 || requested > MAX_CONCURRENCY) {
    throw new Error(`concurrency must be an integer from 1 to ${MAX_CONCURRENCY}, got ${requested}`);
  }
  const openFiles = openFileLimit();
  const concurrency = concurrencyFor(requested, options.workers ?? 0, openFiles);
  const root = path.resolve(target);
  const subPath = options.targetSubPath ?? '';
  const dryRun = options.dryRun ?? false;
  checkTarget(path.join(root, subPath), source.localDirectory);
  if (!dryRun && !subPath) await makeTargetRoot(root);
  const tree = await TargetTree.open(new FileSystemCalls(FileSystemCalls.TARGET), root, subPath, !dryRun, idleDescriptorsFor(concurrency, openFiles));
  if (!tree) return dryRunWithoutTarget(source);
  const useManifest = options.manifest ?? true;
  let lock: TargetLock | undefined;
  const holder = options.request?.id ?? newHolderId();
  try {
    const state = useManifest ? await StateDirectory.open(tree, !dryRun) : undefined;
    // A dry run writes nothing and takes no lock: it reports what a run would do now.
    lock = state && !dryRun
      ? await state.lock({ holder, waitMs: options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS, onWait: options.onLockWait })
      : undefined;
    const manifest = state ? await state.readManifest(lock?.uid) : emptyManifest();
    // This run's token is recorded before any entry with it is made: the proof, for a later run, that the seed made it.
    // A later slice of the same deploy request goes on with the token its earlier slice recorded.
    const recorded = state && lock ? await state.readTokens(lock.uid) : RunTokens.none;
    const reused = recorded.newestOf(holder);
    const token = reused ?? newRunToken();
    const tokens = reused ? recorded : recorded.with(token, ['staging', 'temporary'], holder);
    const runToken = new RunToken(token, state && lock && !reused ? () => state.saveTokens(tokens) : undefined, recorded.tokens.length > 0);
    const proof = { tokens, owners: new Set([lock?.uid, options.uid].filter((uid): uid is number => uid !== undefined)) };
    // Another seed's place above this one: files here may have been rewritten by it, so check each.
    const nested = useManifest && placeAbove(path.join(root, subPath));
    const warnings = concurrency < requested
      ? [`wrote ${concurrency} file${concurrency === 1 ? '' : 's'} at a time, not the ${requested} asked for: the limit on open files (ulimit -n) is ${openFiles}, and each file in flight holds up to 3`]
      : [];
    return await new CopyRun(source, tree, options, { concurrency, dryRun, useManifest, nested, warnings, runToken, proof }, manifest, state, lock).run();
  } finally {
    await lock?.release();
    await tree.close();
  }
}

/** A dry run into a target that does not exist yet: every entry would be written. */
async function dryRunWithoutTarget(source: EntrySource): Promise<SeedSummary> {
  const started = Date.now();
  const counts = { files: 0, bytes: 0, directories: 0 };
  for await (const entry of source.entries()) {
    if (entry.type === 'file') {
      entry.discard?.();
      counts.bytes += entry.size;
    }
    if (entry.type === 'file' || entry.type === 'symlink') counts.files++;
    if (entry.type === 'directory') counts.directories++;
  }
  return {
    ...counts, written: counts.files, writtenBytes: counts.bytes, skipped: 0, pruned: 0, failed: [], complete: true,
    seconds: (Date.now() - started) / 1000, peakConcurrency: 0, specialFiles: [], warnings: [], filesByWorker: [], kept: [], pathResolution: describeResolution(),
  };
}

/** Files up to this size are read whole by streamed sources, and written in one write. */
export const SMALL_FILE_BYTES = MiB;
