import * as fs from 'fs';
import * as path from 'path';
import { MiB } from '../shared/sizes';
import { CopyWorkers } from './copy-workers';
import { EntrySource, LINK_IDENTITY } from './entry';
import { FileCopier, Job } from './file-copy';
import { FileSystemCalls } from './file-system-calls';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from './limits';
import { emptyManifest, loadManifest, Manifest, saveManifest, STATE_DIR, tidyStateDirectory } from './manifest';
import { PendingWork } from './pending-work';
import { parentsOf, removeFiles, removeMadeDirectories } from './removal';
import { RoundRobinPool } from './round-robin-pool';
import { checkLinkTargetShape, LinkGraph, safeEntryPath, UnsafeEntryError } from './safety';
import { SCRATCH_NAME, ScratchDirectories } from './scratch';
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
   * CLI and the handler give one per vCPU beyond the first from 3 vCPUs up); 0 writes on this thread.
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
  const root = path.resolve(target);
  const dryRun = options.dryRun ?? false;
  checkTarget(root, source.localDirectory);
  const rootDevice = dryRun ? undefined : await ensureRoot(root);
  const useManifest = options.manifest ?? true;
  const manifest = useManifest ? await loadManifest(root) : emptyManifest();
  return new CopyRun(source, root, options, { concurrency, dryRun, useManifest, rootDevice }, manifest).run();
}

/** The options a run settled on (the caller's `CopyOptions` are read as the run goes: a deadline may move). */
interface RunSettings {
  readonly concurrency: number;
  readonly dryRun: boolean;
  readonly useManifest: boolean;
  /** The target root's device, where the run writes (for the scratch directories). */
  readonly rootDevice?: number;
}

/**
 * One run of the copy: it lists the source and queues each entry, schedules the pool (directories
 * made first, files spread across directories), publishes staged directories as they are done, then
 * prunes and saves the manifest. What it does to each file is FileCopier's; what it does to
 * directories is DirectoryMaker's.
 */
class CopyRun {
  private readonly started = Date.now();
  private readonly counts = { files: 0, bytes: 0, written: 0, writtenBytes: 0, skipped: 0, directories: 0 };
  private readonly failed: SeedFailure[] = [];
  private readonly specialFiles: string[] = [];
  private readonly warnings: string[];
  /** Dropping entries the manifest had wrong is a change to save. */
  private manifestChanged: boolean;
  /** False once the deadline stops the run. */
  private complete = true;
  /** Totals feed progress only: the copy starts without waiting for them (a walked tree knows them at the end). */
  private totals?: { files: number; bytes: number };
  private readonly seen = new Set<string>();
  /** Directories the source has, and those its files and symlinks are in: the difference has to be made on its own. */
  private readonly declared: string[] = [];
  private readonly holdingEntries = new Set<string>();
  /** Symlinks wait for the whole listing: where one resolves depends on the links it leads through. */
  private readonly links = new LinkGraph();
  private readonly linkJobs: Job[] = [];

  private readonly calls = new FileSystemCalls(FileSystemCalls.TARGET);
  private readonly listings = new TargetListings(this.calls);
  private readonly directories: DirectoryMaker;
  private readonly unchanged: UnchangedEntries;
  private readonly scratch?: ScratchDirectories;
  /** Once the source has listed everything, a staged directory whose work is all done is published at once. */
  private readonly pending = new PendingWork();
  private listed = false;
  private readonly finished = new Set<string>();
  private readonly pool: RoundRobinPool<Task>;
  private workers?: CopyWorkers;
  private copier?: FileCopier;

  constructor(
    private readonly source: EntrySource,
    private readonly root: string,
    private readonly options: CopyOptions,
    private readonly settings: RunSettings,
    private readonly manifest: Manifest,
  ) {
    this.warnings = [...manifest.problems];
    this.manifestChanged = manifest.problems.length > 0;
    const { dryRun, useManifest } = settings;
    const { uid, gid } = options;
    // Workers sharing a target (no manifest) could not agree on who publishes a new directory.
    this.directories = new DirectoryMaker({
      root, calls: this.calls, listings: this.listings, dryRun, staging: !dryRun && useManifest, shared: !useManifest, uid, gid,
      fail: (relative, err) => this.fail(relative, err), made: (relative) => this.recordDirectory(relative),
    });
    this.unchanged = new UnchangedEntries(this.listings, this.directories);
    // Not for workers sharing a target: they could remove each other's files in flight there.
    if (settings.rootDevice !== undefined && useManifest) this.scratch = new ScratchDirectories(root, settings.rootDevice);
    this.pool = new RoundRobinPool<Task>({
      concurrency: settings.concurrency,
      maxQueuedJobs: Math.max(10_000, settings.concurrency * 16),
      maxQueuedBytes: options.maxQueuedBytes ?? 64 * MiB,
    }, async (task) => {
      try {
        await this.runTask(task);
      } finally {
        this.publishDone(this.pending.finish(directoryOf(task)));
      }
    }, (directory) => this.directories.make(directory));
    source.totals?.().then((t) => { this.totals = t; }, () => undefined);
  }

  async run(): Promise<SeedSummary> {
    const { dryRun, useManifest } = this.settings;
    // Stopped in the `finally`: a worker left running keeps the process alive.
    this.workers = dryRun ? undefined : CopyWorkers.start(this.options.workers ?? 0);
    this.copier = new FileCopier(this.calls, { dryRun, uid: this.options.uid, gid: this.options.gid, byTime: !useManifest, workers: this.workers });
    try {
      await this.list();
    } finally {
      // Even when the source fails, let writes in flight finish or clean up their temporary files.
      await this.pool.drain();
      await this.workers?.close();
      if (useManifest && !dryRun) await tidyStateDirectory(this.root, SCRATCH_NAME);
    }
    if (this.complete && !dryRun) await this.directories.publish();
    const pruned = this.complete && this.options.prune && this.failed.length === 0 ? await this.prune() : 0;
    // An unchanged re-run writes nothing at all, not even the manifest.
    if (!dryRun && useManifest && this.manifestChanged) {
      // The files are in place either way; without the manifest the next run re-checks and rewrites them.
      await saveManifest(this.root, this.manifest).catch((err) => this.fail(`${STATE_DIR}/seed-manifest.json`, err));
    }
    this.progress();
    return {
      ...this.counts, pruned, failed: this.failed, complete: this.complete, seconds: (Date.now() - this.started) / 1000,
      peakConcurrency: this.pool.peakConcurrency, specialFiles: this.specialFiles, warnings: this.warnings,
      filesByWorker: this.workers?.filesWritten ?? [],
    };
  }

  /** Lists the source and queues every entry; then the links, and the directories nothing is written into. */
  private async list(): Promise<void> {
    for await (const raw of this.source.entries()) {
      if (raw.type === 'failed') {
        this.fail(raw.path, new Error(raw.reason));
        continue;
      }
      let relative: string;
      try {
        relative = safeEntryPath(raw.path);
        if (relative === '' && raw.type !== 'directory') throw new UnsafeEntryError(raw.path, 'the name is empty');
        if (raw.type === 'symlink') checkLinkTargetShape(relative, raw.target);
      } catch (err) {
        if (raw.type === 'file') raw.discard?.();
        this.fail(raw.path, err);
        continue;
      }
      if (raw.type === 'special') {
        this.specialFiles.push(relative);
        continue;
      }
      if (raw.type === 'directory') {
        if (relative === '') continue; // the archive's own root, './'
        this.counts.directories++;
        this.directories.declare(relative, raw.mode & DIRECTORY_MODE_BITS);
        this.declared.push(relative);
        continue;
      }
      if (this.seen.has(relative)) {
        if (raw.type === 'file') raw.discard?.();
        this.fail(raw.path, new Error('the source lists this path twice'));
        continue;
      }
      this.seen.add(relative);
      if (this.pastDeadline()) {
        if (raw.type === 'file') raw.discard?.();
        this.complete = false;
        break;
      }
      this.counts.files++;
      if (raw.type === 'file') {
        this.counts.bytes += raw.size;
        await this.queue({ kind: 'file', path: relative, entry: raw });
      } else {
        this.links.add(relative, raw.target);
        this.linkJobs.push({ kind: 'symlink', path: relative, entry: raw });
      }
    }
    if (!this.complete) {
      this.counts.files -= this.linkJobs.length; // left to the next run
      return;
    }
    await this.queueLinks();
    // A directory with no file or symlink of its own (an app's empty uploads/ or cache/) is made on its own.
    for (const directory of this.declared) if (!this.holdingEntries.has(directory)) this.enqueue(directory, { kind: 'directory', directory });
    this.listed = true;
    this.publishDone(this.directories.stagedDirectories().filter((directory) => this.pending.idle(directory)));
  }

  /** Queues a file or link: its own job, or (unchanged since the last seed) only a look at its directory's listing. */
  private async queue(job: Job): Promise<void> {
    const directory = path.posix.dirname(job.path);
    this.holdingEntries.add(directory);
    if (this.settings.useManifest && this.manifest.files.get(job.path) === job.entry.identity) {
      this.pool.hold(bytesHeld(job));
      if (this.unchanged.add(directory, job)) this.enqueue(directory, { kind: 'check', directory });
      await this.pool.room();
    } else {
      this.pending.start(directory);
      await this.pool.add(directory, job, bytesHeld(job));
    }
  }

  /** Every task goes through here or `queue`, so the pending work is counted. */
  private enqueue(directory: string, task: Task, bytes = 0): void {
    this.pending.start(directory);
    this.pool.enqueue(directory, task, bytes);
  }

  /**
   * Judges every link the target will hold (the source's, and those earlier seeds wrote that are
   * still there) and queues the source's safe ones. A refused link is not written; one an earlier
   * seed wrote is removed, so that no link the seed leaves resolves outside the target.
   */
  private async queueLinks(): Promise<void> {
    for (const [relative, identity] of this.manifest.files) {
      if (!this.seen.has(relative) && identity.startsWith(LINK_IDENTITY)) this.links.add(relative, identity.slice(LINK_IDENTITY.length));
    }
    const refused = this.links.refusals();
    const written = [...refused.keys()].filter((relative) => this.manifest.files.has(relative));
    if (written.length > 0 && !this.settings.dryRun) {
      const removed = await removeFiles(this.root, written, this.settings.concurrency, (relative, err) => this.fail(relative, err));
      removed.forEach((relative) => this.manifest.files.delete(relative));
      this.manifestChanged ||= removed.length > 0;
      for (const relative of removed) this.warnings.push(`removed the link ${JSON.stringify(relative)} an earlier seed wrote: ${refused.get(relative)!.message.replace(/^refused "[^"]*": /, '')}`);
    }
    for (const [relative, err] of refused) if (this.seen.has(relative)) this.fail(relative, err);
    for (const job of this.linkJobs) {
      if (refused.has(job.path)) this.counts.files--;
      else await this.queue(job);
    }
  }

  private async runTask(task: Task): Promise<void> {
    if (task.kind === 'directory') {
      if (this.pastDeadline()) this.complete = false;
      else await this.directories.make(task.directory).catch((err) => this.fail(task.directory, err));
      return;
    }
    if (task.kind === 'check') {
      const { present, gone } = await this.unchanged.settle(task.directory);
      this.pool.letGo([...present, ...gone].reduce((sum, settled) => sum + bytesHeld(settled), 0));
      present.forEach((job) => this.skip(job));
      // Entries no longer on the target (deleted since) are written again.
      for (const job of gone) this.enqueue(task.directory, job, bytesHeld(job));
      return;
    }
    if (this.pastDeadline()) {
      // Queued but not started: leave it to the next run.
      if (task.kind === 'file') {
        task.entry.discard?.();
        this.counts.bytes -= task.entry.size;
      }
      this.counts.files--;
      this.complete = false;
      return;
    }
    await this.copy(task);
  }

  /** Writes one file or link where its directory is on the target, and reports progress (each file's, with nothing awaited in between). */
  private async copy(job: Job): Promise<void> {
    const relative = job.path;
    const directory = path.posix.dirname(relative);
    let inPlaceAt: string | undefined;
    try {
      await this.directories.make(directory);
      const where = path.join(this.directories.pathOf(directory), path.posix.basename(relative));
      // In a directory no reader sees yet, a file is written in place, unless an earlier run recorded it
      // whole there: rewritten in place and interrupted, it would later pass for that recorded file.
      if (job.kind === 'file' && this.directories.unpublished(directory) && !this.manifest.files.has(relative)) inPlaceAt = where;
      // A directory with the pool to itself takes files twice as fast with its temporary files elsewhere.
      const tempDir = job.kind === 'file' && !inPlaceAt && this.scratch && this.pool.alone(directory)
        ? await this.scratch.for(this.directories.pathOf(directory)) : undefined;
      const done = await this.copier!.copy(job, { where, inPlace: inPlaceAt !== undefined, tempDir }, () => this.directories.sweepBeforeWriting(directory));
      if (done.written) {
        this.counts.written++;
        this.counts.writtenBytes += done.bytes;
      } else {
        this.counts.skipped++;
      }
      if (!this.settings.dryRun && this.settings.useManifest) this.record(relative, job.entry.identity);
    } catch (err) {
      if (job.kind === 'file') job.entry.discard?.();
      this.fail(relative, err);
      if (inPlaceAt) await this.directories.withholdIfLeft(directory, relative, inPlaceAt);
    }
    this.progress();
  }

  /** Staged directories with nothing left to do are renamed into place; directories still to be made go first. */
  private publishDone(done: string[]): void {
    if (!this.listed || !this.complete) return;
    done.forEach((directory) => this.finished.add(directory));
    // They need the same parents' locks, and writers wait for them.
    if (this.pool.preparing) return;
    this.finished.forEach((directory) => this.directories.publishNow(directory));
    this.finished.clear();
  }

  /** Deletes files an earlier seed wrote that the source no longer has, then the directories a seed made that it no longer has; how many files went. */
  private async prune(): Promise<number> {
    const stale = [...this.manifest.files.keys()].filter((relative) => !this.seen.has(relative));
    // A dry run only counts them (and saves no manifest).
    if (this.settings.dryRun) return stale.length;
    const gone = await removeFiles(this.root, stale, this.settings.concurrency, (relative, err) => this.fail(relative, err));
    // A file whose unlink failed stays in the manifest, for the next prune.
    gone.forEach((relative) => this.manifest.files.delete(relative));
    // Then the directories, once nothing else is left in them.
    const kept = withParents([...this.declared, ...this.holdingEntries]);
    const dropped = [...this.manifest.directories].filter((directory) => !kept.has(directory));
    const removed = await removeMadeDirectories(this.root, dropped, this.manifest.directories);
    removed.forEach((directory) => this.manifest.directories.delete(directory));
    this.manifestChanged ||= gone.length + removed.length > 0;
    return gone.length;
  }

  private pastDeadline(): boolean {
    const { deadline } = this.options;
    return deadline !== undefined && Date.now() >= deadline;
  }

  private skip(job: Job): void {
    if (job.kind === 'file') job.entry.discard?.();
    this.counts.skipped++;
    this.progress();
  }

  /** What an earlier seed wrote, updated as files are written: each path is looked up before its own update. */
  private record(relative: string, identity: string): void {
    if (this.manifest.files.get(relative) === identity) return;
    this.manifest.files.set(relative, identity);
    this.manifestChanged = true;
  }

  private recordDirectory(relative: string): void {
    if (!this.settings.useManifest || this.settings.dryRun || this.manifest.directories.has(relative)) return;
    this.manifest.directories.add(relative);
    this.manifestChanged = true;
  }

  private fail(entryPath: string, err: unknown): void {
    this.failed.push({ path: entryPath, error: err instanceof UnsafeEntryError ? err.message : `${entryPath}: ${(err as Error).message}` });
  }

  private progress(): void {
    const { counts, totals } = this;
    this.options.onProgress?.({
      files: counts.files, bytes: counts.bytes, written: counts.written, skipped: counts.skipped, failed: this.failed.length,
      totalFiles: totals?.files, totalBytes: totals?.bytes, elapsedSeconds: (Date.now() - this.started) / 1000,
    });
  }
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
