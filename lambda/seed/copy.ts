import * as fs from 'fs';
import * as path from 'path';
import { MiB } from '../shared/sizes';
import { LINK_IDENTITY, EntrySource } from './entry';
import { CopyWorkers } from './copy-workers';
import { FileCopier, Job } from './file-copy';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from './limits';
import { emptyManifest, loadManifest, Manifest, saveManifest, STATE_DIR, tidyStateDirectory } from './manifest';
import { PendingWork } from './pending-work';
import { parentsOf, removeFiles, removeMadeDirectories } from './removal';
import { RoundRobinPool } from './round-robin-pool';
import { SCRATCH_NAME, ScratchDirectories } from './scratch';
import { checkLinkTargetShape, LinkGraph, safeEntryPath, UnsafeEntryError } from './safety';
import { FileSystemCalls } from './file-system-calls';
import { DirectoryMaker, TargetListings } from './target-directories';
import { checkTarget } from './target-root';
import { UnchangedEntries } from './unchanged-entries';

/**
 * The copier behind the seed Lambda, the CLI and the Distributed Map worker (the deploy-time
 * backends are the "engines" of lib/seed-engine.ts): it fills `target`
 * from a source with a bounded pool of writers spread across directories, each file written
 * atomically (through a temporary name, or inside a new directory published whole once it is filled);
 * unchanged files (per the manifest) are only looked for in one listing of their
 * directory; nothing outside the target is ever touched, and files the source no longer has are kept
 * unless `prune` is set.
 */
export interface CopyOptions {
  /** Files written at once. @default 64 */
  readonly concurrency?: number;
  /** Delete files an earlier seed wrote that the source no longer has (then the directories it emptied that the source no longer has). @default false */
  readonly prune?: boolean;
  /** Report what would be written, write nothing. @default false */
  readonly dryRun?: boolean;
  /** Owner of written files and directories. @default the process's */
  readonly uid?: number;
  readonly gid?: number;
  /** Epoch ms after which no new file is started; the summary then says complete: false. */
  readonly deadline?: number;
  /** Bytes of archive members held in memory while waiting for a writer or a check. @default 64 MiB */
  readonly maxQueuedBytes?: number;
  /**
   * Keep a manifest in the target (default). Without one, as when many Distributed Map workers
   * write into one target at once, a file counts as unchanged when its size and modification time
   * match the source's, and written files get the source's modification time.
   * @default true
   */
  readonly manifest?: boolean;
  /** Called after each entry is done. */
  readonly onProgress?: (progress: SeedProgress) => void;
  /**
   * Worker threads that write files, so that a copy bound by the CPU uses more than one vCPU (the
   * CLI and the handler give one per vCPU); 0 writes on this thread.
   * @default 0
   */
  readonly workers?: number;
}

export interface SeedProgress {
  readonly files: number;
  readonly bytes: number;
  readonly written: number;
  readonly skipped: number;
  readonly failed: number;
  readonly totalFiles?: number;
  readonly totalBytes?: number;
  readonly elapsedSeconds: number;
}

export interface SeedFailure {
  readonly path: string;
  readonly error: string;
}

export interface SeedSummary {
  /** Files and symlinks in the source (that this run got to). */
  readonly files: number;
  /** Their bytes. */
  readonly bytes: number;
  readonly directories: number;
  /** Files written (or, in a dry run, that would be). */
  readonly written: number;
  readonly writtenBytes: number;
  /** Files left alone because they were unchanged. */
  readonly skipped: number;
  readonly pruned: number;
  readonly failed: SeedFailure[];
  /** False when the deadline stopped the run: run it again to continue. */
  readonly complete: boolean;
  readonly seconds: number;
  /** Most files, and directories being made, in progress at once. */
  readonly peakConcurrency: number;
  /** FIFOs, sockets and devices in the source, skipped: they have no content to copy. */
  readonly specialFiles: string[];
  /** What the run noticed but did not fail on (a manifest entry it ignored, a link it removed). */
  readonly warnings: string[];
  /** Files each worker thread wrote (empty where the engine's thread wrote them all). */
  readonly filesByWorker: number[];
}

/**
 * Looks for a directory's unchanged entries (per the manifest) in one listing of it; or makes a
 * directory that nothing is written into (the pool makes the others for their files).
 */
type Task = Job | { kind: 'check'; directory: string } | { kind: 'directory'; directory: string };

export async function seed(source: EntrySource, target: string, options: CopyOptions = {}): Promise<SeedSummary> {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) {
    throw new Error(`concurrency must be an integer from 1 to ${MAX_CONCURRENCY}, got ${concurrency}`);
  }
  const started = Date.now();
  const root = path.resolve(target);
  const dryRun = options.dryRun ?? false;
  checkTarget(root, source.localDirectory);
  const rootDevice = dryRun ? undefined : await ensureRoot(root);

  const useManifest = options.manifest ?? true;
  // What earlier seeds wrote, updated as files are written: each path is looked up before its own update.
  const manifest: Manifest = useManifest ? await loadManifest(root) : emptyManifest();
  const warnings = [...manifest.problems];
  // Dropping the entries it refused is a change to save.
  let manifestChanged = manifest.problems.length > 0;
  const record = (relative: string, identity: string) => {
    if (manifest.files.get(relative) === identity) return;
    manifest.files.set(relative, identity);
    manifestChanged = true;
  };
  const recordDirectory = (relative: string) => {
    if (!useManifest || dryRun || manifest.directories.has(relative)) return;
    manifest.directories.add(relative);
    manifestChanged = true;
  };
  const seen = new Set<string>();
  const failed: SeedFailure[] = [];
  const specialFiles: string[] = [];
  const counts = { files: 0, bytes: 0, written: 0, writtenBytes: 0, skipped: 0, directories: 0 };
  // Totals feed progress only: the copy starts without waiting for them (a walked tree knows them at the end).
  let totals: { files: number; bytes: number } | undefined;
  source.totals?.().then((t) => { totals = t; }, () => undefined);
  const calls = new FileSystemCalls();
  const listings = new TargetListings(calls);

  const progress = () => options.onProgress?.({
    files: counts.files, bytes: counts.bytes, written: counts.written, skipped: counts.skipped, failed: failed.length,
    totalFiles: totals?.files, totalBytes: totals?.bytes, elapsedSeconds: (Date.now() - started) / 1000,
  });
  const fail = (entryPath: string, err: unknown) => {
    failed.push({ path: entryPath, error: err instanceof UnsafeEntryError ? err.message : `${entryPath}: ${(err as Error).message}` });
  };
  // Workers sharing a target (no manifest) could not agree on who publishes a new directory.
  const directories = new DirectoryMaker({
    root, calls, listings, dryRun, staging: !dryRun && useManifest, shared: !useManifest, uid: options.uid, gid: options.gid, fail, made: recordDirectory,
  });

  let complete = true;
  const pastDeadline = () => options.deadline !== undefined && Date.now() >= options.deadline;
  const skip = (job: Job) => {
    if (job.kind === 'file') job.entry.discard?.();
    counts.skipped++;
    progress();
  };
  // In a directory no reader sees yet, a file is written in place, unless an earlier run recorded it
  // whole there: rewritten in place and interrupted, it would later pass for that recorded file.
  const inPlace = (directory: string, relative: string) => directories.unpublished(directory) && !manifest.files.has(relative);
  const unchanged = new UnchangedEntries(listings, directories);
  // Not for workers sharing a target: they could remove each other's files in flight there.
  const scratch = rootDevice !== undefined && useManifest ? new ScratchDirectories(root, rootDevice) : undefined;
  // Once the source has listed everything, a staged directory whose work is all done is published at
  // once: renames in one parent are serial, and left to the end they would all queue there.
  const pending = new PendingWork();
  // Directories still to be made go first: they need the same parents' locks, and writers wait for them.
  let listed = false;
  const finished = new Set<string>();
  const publishDone = (done: string[]) => {
    if (!listed || !complete) return;
    done.forEach((directory) => finished.add(directory));
    if (pool.preparing) return;
    finished.forEach((directory) => directories.publishNow(directory));
    finished.clear();
  };
  const runTask = async (job: Task) => {
    if (job.kind === 'directory') {
      if (pastDeadline()) complete = false;
      else await directories.make(job.directory).catch((err) => fail(job.directory, err));
      return;
    }
    if (job.kind === 'check') {
      const { present, gone } = await unchanged.settle(job.directory);
      pool.letGo([...present, ...gone].reduce((sum, settled) => sum + bytesHeld(settled), 0));
      present.forEach(skip);
      // Entries no longer on the target (deleted since) are written again.
      for (const entry of gone) enqueue(job.directory, entry, bytesHeld(entry));
      return;
    }
    const relative = job.path;
    if (pastDeadline()) {
      // Queued but not started: leave it to the next run.
      if (job.kind === 'file') {
        job.entry.discard?.();
        counts.bytes -= job.entry.size;
      }
      counts.files--;
      complete = false;
      return;
    }
    const directory = path.posix.dirname(relative);
    let inPlaceAt: string | undefined;
    try {
      await directories.make(directory);
      const where = path.join(directories.pathOf(directory), path.posix.basename(relative));
      if (job.kind === 'file' && inPlace(directory, relative)) inPlaceAt = where;
      // A directory with the pool to itself takes files twice as fast with its temporary files elsewhere.
      const tempDir = job.kind === 'file' && !inPlaceAt && scratch && pool.alone(directory) ? await scratch.for(directories.pathOf(directory)) : undefined;
      const done = await copier.copy(job, { where, inPlace: inPlaceAt !== undefined, tempDir }, () => directories.sweepBeforeWriting(directory));
      if (done.written) {
        counts.written++;
        counts.writtenBytes += done.bytes;
      } else {
        counts.skipped++;
      }
      if (!dryRun && useManifest) record(relative, job.entry.identity);
    } catch (err) {
      if (job.kind === 'file') job.entry.discard?.();
      fail(relative, err);
      if (inPlaceAt) await directories.withholdIfLeft(directory, relative, inPlaceAt);
    }
    progress();
  };
  const pool: RoundRobinPool<Task> = new RoundRobinPool<Task>({
    concurrency,
    maxQueuedJobs: Math.max(10_000, concurrency * 16),
    maxQueuedBytes: options.maxQueuedBytes ?? 64 * MiB,
  }, async (task) => {
    try {
      await runTask(task);
    } finally {
      publishDone(pending.finish(directoryOf(task)));
    }
  }, (directory) => directories.make(directory));
  // Every task goes through these two, so the pending work is counted.
  const enqueue = (directory: string, task: Task, bytes = 0) => {
    pending.start(directory);
    pool.enqueue(directory, task, bytes);
  };
  const add = (directory: string, task: Task, bytes: number) => {
    pending.start(directory);
    return pool.add(directory, task, bytes);
  };

  // Directories the source has, and those its files and symlinks are in: the difference has to be made on its own.
  const declared: string[] = [];
  const holdingEntries = new Set<string>();
  const queue = async (job: Job) => {
    const directory = path.posix.dirname(job.path);
    holdingEntries.add(directory);
    if (useManifest && manifest.files.get(job.path) === job.entry.identity) {
      // Unchanged since the last seed: no job of its own, only a look at its directory's listing.
      pool.hold(bytesHeld(job));
      if (unchanged.add(directory, job)) enqueue(directory, { kind: 'check', directory });
      await pool.room();
    } else {
      await add(directory, job, bytesHeld(job));
    }
  };
  // Started last before the work, and stopped in its `finally`: a worker left running keeps the process alive.
  const workers = dryRun ? undefined : CopyWorkers.start(options.workers ?? 0);
  const copier = new FileCopier(calls, { dryRun, uid: options.uid, gid: options.gid, byTime: !useManifest, workers });
  // Symlinks wait for the whole listing: where one resolves depends on the links it leads through.
  const links = new LinkGraph();
  const linkJobs: Job[] = [];
  try {
    for await (const raw of source.entries()) {
      if (raw.type === 'failed') {
        fail(raw.path, new Error(raw.reason));
        continue;
      }
      let relative: string;
      try {
        relative = safeEntryPath(raw.path);
        if (relative === '' && raw.type !== 'directory') throw new UnsafeEntryError(raw.path, 'the name is empty');
        if (raw.type === 'symlink') checkLinkTargetShape(relative, raw.target);
      } catch (err) {
        if (raw.type === 'file') raw.discard?.();
        fail(raw.path, err);
        continue;
      }
      if (raw.type === 'special') {
        specialFiles.push(relative);
        continue;
      }
      if (raw.type === 'directory') {
        if (relative === '') continue; // the archive's own root, './'
        counts.directories++;
        directories.declare(relative, raw.mode & DIRECTORY_MODE_BITS);
        declared.push(relative);
        continue;
      }
      if (seen.has(relative)) {
        if (raw.type === 'file') raw.discard?.();
        fail(raw.path, new Error('the source lists this path twice'));
        continue;
      }
      seen.add(relative);
      if (pastDeadline()) {
        if (raw.type === 'file') raw.discard?.();
        complete = false;
        break;
      }
      counts.files++;
      if (raw.type === 'file') {
        counts.bytes += raw.size;
        await queue({ kind: 'file', path: relative, entry: raw });
      } else {
        links.add(relative, raw.target);
        linkJobs.push({ kind: 'symlink', path: relative, entry: raw });
      }
    }
    if (complete) {
      await queueLinks();
      // A directory with no file or symlink of its own (an app's empty uploads/ or cache/) is made on its own.
      for (const directory of declared) if (!holdingEntries.has(directory)) enqueue(directory, { kind: 'directory', directory });
      listed = true;
      publishDone(directories.stagedDirectories().filter((directory) => pending.idle(directory)));
    } else {
      counts.files -= linkJobs.length; // left to the next run
    }
  } finally {
    // Even when the source fails, let writes in flight finish or clean up their temporary files.
    await pool.drain();
    await workers?.close();
    if (useManifest && !dryRun) await tidyStateDirectory(root, SCRATCH_NAME);
  }

  /**
   * Judges every link the target will hold (the source's, and those earlier seeds wrote that are
   * still there) and queues the source's safe ones. A refused link is not written; one an earlier
   * seed wrote is removed, so that no link the seed leaves resolves outside the target.
   */
  async function queueLinks(): Promise<void> {
    for (const [relative, identity] of manifest.files) {
      if (!seen.has(relative) && identity.startsWith(LINK_IDENTITY)) links.add(relative, identity.slice(LINK_IDENTITY.length));
    }
    const refused = links.refusals();
    const written = [...refused.keys()].filter((relative) => manifest.files.has(relative));
    if (written.length > 0 && !dryRun) {
      const removed = await removeFiles(root, written, concurrency, fail);
      removed.forEach((relative) => manifest.files.delete(relative));
      manifestChanged ||= removed.length > 0;
      for (const relative of removed) warnings.push(`removed the link ${JSON.stringify(relative)} an earlier seed wrote: ${refused.get(relative)!.message.replace(/^refused "[^"]*": /, '')}`);
    }
    for (const [relative, err] of refused) if (seen.has(relative)) fail(relative, err);
    for (const job of linkJobs) {
      if (refused.has(job.path)) counts.files--;
      else await queue(job);
    }
  }

  if (complete && !dryRun) await directories.publish();
  let pruned = 0;
  if (complete && options.prune && failed.length === 0) {
    const stale = [...manifest.files.keys()].filter((relative) => !seen.has(relative));
    // A dry run only counts them (and saves no manifest).
    const gone = dryRun ? stale : await removeFiles(root, stale, concurrency, fail);
    // A file whose unlink failed stays in the manifest, for the next prune.
    gone.forEach((relative) => manifest.files.delete(relative));
    manifestChanged ||= gone.length > 0;
    pruned = gone.length;
    // Then the directories a seed made that the source no longer has, once nothing else is left in them.
    if (!dryRun) {
      const kept = withParents([...declared, ...holdingEntries]);
      const dropped = [...manifest.directories].filter((directory) => !kept.has(directory));
      const removed = await removeMadeDirectories(root, dropped, manifest.directories);
      removed.forEach((directory) => manifest.directories.delete(directory));
      manifestChanged ||= removed.length > 0;
    }
  }
  // An unchanged re-run writes nothing at all, not even the manifest.
  if (!dryRun && useManifest && manifestChanged) {
    // The files are in place either way; without the manifest the next run re-checks and rewrites them.
    await saveManifest(root, manifest).catch((err) => fail(`${STATE_DIR}/seed-manifest.json`, err));
  }
  progress();

  return {
    ...counts, pruned, failed, complete, seconds: (Date.now() - started) / 1000, peakConcurrency: pool.peakConcurrency,
    specialFiles, warnings, filesByWorker: workers?.filesWritten ?? [],
  };
}

const directoryOf = (task: Task) => (task.kind === 'file' || task.kind === 'symlink' ? path.posix.dirname(task.path) : task.directory);

/** Archive members held in memory count against the memory bound; files read when written do not. */
const bytesHeld = (job: Job) => (job.kind === 'file' && job.entry.inMemory ? job.entry.size : 0);

/**
 * Permission bits a directory keeps (the process umask still applies): no setuid or setgid (mkdir
 * keeps the sticky bit, and sets setgid only where the parent has it).
 */
const DIRECTORY_MODE_BITS = 0o1777;

/** Every directory in `directories` and all those above them ('.' is the root). */
function withParents(directories: Iterable<string>): Set<string> {
  const all = new Set<string>();
  for (const directory of directories) {
    if (all.has(directory)) continue;
    all.add(directory);
    for (const parent of parentsOf(directory)) {
      if (all.has(parent)) break;
      all.add(parent);
    }
  }
  return all;
}

/** Files up to this size are read whole by streamed sources, and written in one write. */
export const SMALL_FILE_BYTES = MiB;

/** Makes the target root if it is missing; its device number. */
async function ensureRoot(root: string): Promise<number> {
  await fs.promises.mkdir(root, { recursive: true });
  // The root is the caller's choice and may be a symlink (/mnt/efs -> ...); below it, nothing is followed.
  const stat = await fs.promises.stat(root);
  if (!stat.isDirectory()) throw new Error(`the target ${root} is not a directory`);
  return stat.dev;
}
