import * as fs from 'fs';
import * as path from 'path';
import { MiB } from '../shared/sizes';
import { CopyWorkers } from './copy-workers';
import { EntrySource, LINK_IDENTITY } from './entry';
import { Copied, FileCopier, Job } from './file-copy';
import { FileSystemCalls } from './file-system-calls';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from '../../lib/seed/contract/limits';
import { emptyManifest, Manifest } from './manifest';
import { PendingWork } from './pending-work';
import { parentsOf, removeMadeDirectories, removeWritten, Written } from './removal';
import { RoundRobinPool } from './round-robin-pool';
import { safeEntryPath, UnsafeEntryError } from '../../lib/seed/contract/entry-path';
import { checkLinkTargetShape, LinkGraph, PathKind } from './safety';
import { SCRATCH_NAME, ScratchDirectories } from './scratch';
import { STATE_DIR, StateDirectory } from './state-directory';
import { DirectoryMaker, keyOf, TargetListings } from './target-directories';
import { HEARTBEAT_MS, LockHolder, newHolderId, TargetLock } from './target-lock';
import { checkTarget, placeAbove } from './target-root';
import { idleDescriptorsFor, TargetTree } from './target-tree';
import { UnchangedEntries } from './unchanged-entries';

/**
 * The copier behind the seed Lambda, the CLI and the Distributed Map worker (the seed engines of
 * lib/seed/seed-engine.ts deploy it, or DataSync instead): it fills `target`
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
  /**
   * A directory below `target` to fill, named by someone the seed does not trust (a custom
   * resource's property): each part is opened without following a link, and made where missing.
   * `target` itself is the caller's (it may be reached through links, as /mnt/efs often is).
   * @default '' - the target itself
   */
  readonly targetSubPath?: string;
  /**
   * The deploy request this run is for (a FileSystemSeed custom resource's), where there is one:
   * its id holds the lock (so the request's next invocation takes over what an earlier one left),
   * its resource is recorded as the place's owner, and a run stops as soon as its request is no
   * longer current (a newer request claimed the place), saving what it did. What an unfinished
   * earlier request added that this run's source does not have is removed once this run is complete.
   * @default - a run of its own (the CLI)
   */
  readonly request?: SeedRequest;
  /** How long to wait for another run to let go of the target's lock. @default 60 s */
  readonly lockWaitMs?: number;
  /** Told once when the run starts waiting for another run's lock. */
  readonly onLockWait?: (holder: Partial<LockHolder>) => void;
}

/** A deploy request a run is for (see CopyOptions.request). */
export interface SeedRequest {
  /** CloudFormation's RequestId. */
  readonly id: string;
  /** The resource (its physical id) whose place the target is. */
  readonly resource: string;
  /** Whether the place is still claimed for this request; asked at every heartbeat. */
  readonly current: () => Promise<boolean>;
}

/** How long a run waits for another to let go of the target's lock, by default. */
export const DEFAULT_LOCK_WAIT_MS = 60_000;
/**
 * A run saves its progress in the manifest every CHECKPOINT_MS, and sooner once CHECKPOINT_FILES
 * files are written since the last save, but not within CHECKPOINT_MIN_MS of it nor more often than
 * every 20 times a save takes (a manifest of a million entries takes seconds to write), so that a
 * killed run's successor skips what was finished, at a cost of a few percent of a run at most.
 */
const CHECKPOINT_FILES = 1000;
const CHECKPOINT_MS = 30_000;
const CHECKPOINT_MIN_MS = 2_000;

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
  /** Files each worker thread wrote (empty where the main thread wrote them all). */
  readonly filesByWorker: number[];
  /** Files and links the source no longer has that are kept because they changed since a seed wrote them (prune). */
  readonly kept: string[];
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
  const subPath = options.targetSubPath ?? '';
  const dryRun = options.dryRun ?? false;
  checkTarget(path.join(root, subPath), source.localDirectory);
  // The caller's own path is made as mkdir -p would; below it, each part is opened without following a link.
  if (!dryRun && !subPath) await fs.promises.mkdir(root, { recursive: true });
  const tree = await TargetTree.open(new FileSystemCalls(FileSystemCalls.TARGET), root, subPath, !dryRun, idleDescriptorsFor(concurrency));
  if (!tree) return dryRunWithoutTarget(source);
  const useManifest = options.manifest ?? true;
  let lock: TargetLock | undefined;
  try {
    const state = useManifest ? await StateDirectory.open(tree, !dryRun) : undefined;
    // A dry run writes nothing and takes no lock: it reports what a run would do now.
    lock = state && !dryRun
      ? await state.lock({ holder: options.request?.id ?? newHolderId(), waitMs: options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS, onWait: options.onLockWait })
      : undefined;
    const manifest = state ? await state.readManifest(lock?.uid) : emptyManifest();
    // Another seed's place above this one: files here may have been rewritten by it, so check each.
    const nested = useManifest && placeAbove(path.join(root, subPath));
    return await new CopyRun(source, tree, options, { concurrency, dryRun, useManifest, nested }, manifest, state, lock).run();
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
    seconds: (Date.now() - started) / 1000, peakConcurrency: 0, specialFiles: [], warnings: [], filesByWorker: [], kept: [],
  };
}

/** The options a run settled on (the caller's `CopyOptions` are read as the run goes: a deadline may move). */
interface RunSettings {
  readonly concurrency: number;
  readonly dryRun: boolean;
  readonly useManifest: boolean;
  /** Another seed's state directory is in a directory above the target (a place nested in another). */
  readonly nested: boolean;
}

/**
 * One run of the copy: it lists the source and queues each entry, schedules the pool (directories
 * made first, files spread across directories), publishes staged directories as they are done, then
 * judges the links it wrote, prunes and saves the manifest (and a checkpoint of it as it goes). What
 * it does to each file is FileCopier's; what it does to directories is DirectoryMaker's; every
 * operation on the target is in a directory it holds open (TargetTree).
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
  /** Set when the run lost its lock (taken over as stale): it writes nothing more, the manifest included. */
  private lostLock = false;
  /** Set when a newer request claimed the place: the run stops, saving what it did. */
  private superseded = false;
  /** Totals feed progress only: the copy starts without waiting for them (a walked tree knows them at the end). */
  private totals?: { files: number; bytes: number };
  /** Files and links of the source, by path. */
  private readonly seen = new Set<string>();
  /** Every directory the source's entries are in, and their parents: no file may have one of these paths. */
  private readonly directoryPaths = new Set<string>(['.']);
  /** Directories the source has, and those its files and symlinks are in: the difference has to be made on its own. */
  private readonly declared: string[] = [];
  private readonly holdingEntries = new Set<string>();
  /** Symlinks wait for the whole listing: where one resolves depends on the links it leads through. */
  private readonly sourceLinks = new Map<string, string>();
  private readonly linkJobs: Job[] = [];
  /** Links this run wrote, judged again once they are all in place. */
  private readonly writtenLinks: string[] = [];

  private readonly calls: FileSystemCalls;
  private readonly listings: TargetListings;
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
  /** Saved (with the running mark) before the run first replaces a file the manifest records. */
  private markedRunning?: Promise<void>;
  private saving: Promise<void> = Promise.resolve();
  private keepingAlive?: Promise<void>;
  private lastSave = Date.now();
  private lastSaveMs = 0;
  /** Files recorded since the last save. */
  private sinceSave = 0;
  private checkpointing = false;

  constructor(
    private readonly source: EntrySource,
    private readonly tree: TargetTree,
    private readonly options: CopyOptions,
    private readonly settings: RunSettings,
    private readonly manifest: Manifest,
    private readonly state?: StateDirectory,
    private readonly lock?: TargetLock,
  ) {
    this.warnings = [...manifest.problems];
    this.manifestChanged = manifest.problems.length > 0;
    const { request } = options;
    if (request && !settings.dryRun) {
      // What an unfinished earlier request added stays pending with this one's additions, until this run completes.
      if (manifest.pending?.request !== request.id) {
        manifest.pending = { request: request.id, added: new Set(manifest.pending?.added) };
        this.manifestChanged = true;
      }
      if (manifest.owner !== request.resource) {
        manifest.owner = request.resource;
        this.manifestChanged = true;
      }
    }
    const { dryRun, useManifest } = settings;
    const { uid, gid } = options;
    this.calls = tree.calls;
    this.listings = new TargetListings(tree);
    // Workers sharing a target (no manifest) could not agree on who publishes a new directory.
    this.directories = new DirectoryMaker({
      tree, listings: this.listings, dryRun, staging: !dryRun && useManifest, shared: !useManifest, uid, gid,
      fail: (relative, err) => this.fail(relative, err), made: (relative) => this.recordDirectory(relative),
    });
    this.unchanged = new UnchangedEntries(tree, this.listings, this.directories, manifest.written);
    // Not for workers sharing a target: they could remove each other's files in flight there.
    if (state && !dryRun) this.scratch = new ScratchDirectories(tree, state);
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
    this.copier = new FileCopier(this.calls, { uid: this.options.uid, gid: this.options.gid, byTime: !useManifest, workers: this.workers });
    const timer = this.lock ? setInterval(() => void this.keepAlive(), HEARTBEAT_MS) : undefined;
    let sourceFailure: unknown;
    try {
      await this.list();
    } catch (err) {
      sourceFailure = err;
    } finally {
      // Even when the source fails, let writes in flight finish or clean up their temporary files.
      await this.pool.drain();
      clearInterval(timer);
      await this.keepingAlive;
      await this.workers?.close();
    }
    if (this.lostLock) return this.summary(0, []);
    if (sourceFailure !== undefined) {
      // What was written is whole and recorded: the next run goes on from there.
      await this.finish();
      throw sourceFailure;
    }
    if (this.complete && !dryRun) await this.directories.publish();
    if (!dryRun) await this.judgeWrittenLinks();
    const { pruned, kept } = this.complete && this.options.prune && this.failed.length === 0 ? await this.prune() : { pruned: 0, kept: [] };
    if (this.complete && !dryRun) await this.commit();
    await this.finish();
    return this.summary(pruned, kept);
  }

  /**
   * Once the run is complete, its request's additions are the seed's for good; what an unfinished
   * earlier request added that this source does not have is removed (while still as written), so
   * that nothing of a deploy that was rolled back or cancelled stays at a final name.
   */
  private async commit(): Promise<void> {
    const pending = this.manifest.pending;
    if (!pending || !this.options.request) return;
    const abandoned = [...pending.added].filter((relative) => !this.seen.has(relative) && this.manifest.files.has(relative));
    if (abandoned.length > 0) {
      const { gone, kept } = await removeWritten(this.tree, abandoned.map((relative) => this.writtenEntry(relative)), this.settings.concurrency, (relative, err) => this.fail(relative, err), this.options.deadline);
      [...gone, ...kept].forEach((relative) => this.forget(relative));
      if (gone.length + kept.length < abandoned.length) {
        this.complete = false; // the deadline, or failures: the next slice goes on
        return;
      }
      if (gone.length > 0) this.warnings.push(`removed ${gone.length} file${gone.length === 1 ? '' : 's'} an unfinished earlier deploy of this seed added, which this source does not have`);
    }
    this.manifest.pending = undefined;
    this.manifestChanged = true;
  }

  /** Saves the manifest where it changed (an unchanged re-run writes nothing but its lock) and tidies the state directory. */
  private async finish(): Promise<void> {
    if (this.settings.dryRun || !this.state) return;
    if (this.manifestChanged || this.manifest.running) {
      // The files are in place either way; without the manifest the next run re-checks and rewrites them.
      await this.save(false).catch((err) => this.fail(`${STATE_DIR}/seed-manifest.json`, err));
    }
    await this.state.tidy(SCRATCH_NAME);
  }

  private summary(pruned: number, kept: string[]): SeedSummary {
    this.progress();
    return {
      ...this.counts, pruned, failed: this.failed, complete: this.complete && !this.lostLock && !this.superseded, seconds: (Date.now() - this.started) / 1000,
      peakConcurrency: this.pool.peakConcurrency, specialFiles: this.specialFiles, warnings: this.warnings,
      filesByWorker: this.workers?.filesWritten ?? [], kept,
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
        if (raw.type !== 'special') this.refuseConflicts(raw.path, relative, raw.type === 'directory');
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
      if (this.stopping()) {
        if (raw.type === 'file') raw.discard?.();
        this.complete = false;
        break;
      }
      this.counts.files++;
      if (raw.type === 'file') {
        this.counts.bytes += raw.size;
        await this.queue({ kind: 'file', path: relative, entry: raw });
      } else {
        this.sourceLinks.set(relative, raw.target);
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

  /**
   * A path can be a file (or link) or a directory, not both: S3 keys `a` and `a/b`, or an archive
   * with both, would leave one of them unwritable. The first one the source lists wins; a later one
   * that conflicts fails alone.
   */
  private refuseConflicts(raw: string, relative: string, isDirectory: boolean): void {
    const parent = path.posix.dirname(relative);
    if (!isDirectory && this.directoryPaths.has(relative)) throw new UnsafeEntryError(raw, 'the source also has entries below this path, so it is a directory');
    for (let dir = isDirectory ? relative : parent; dir !== '.' && !this.directoryPaths.has(dir); dir = path.posix.dirname(dir)) {
      if (this.seen.has(dir)) throw new UnsafeEntryError(raw, `the source also has a file or link at ${JSON.stringify(dir)}, so it cannot be a directory`);
    }
    for (let dir = isDirectory ? relative : parent; dir !== '.' && !this.directoryPaths.has(dir); dir = path.posix.dirname(dir)) this.directoryPaths.add(dir);
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
   * still recorded) against the target as it is, and queues the source's safe ones. A refused link
   * is not written; one an earlier seed wrote is removed (while it is still the link it wrote), so
   * that no link the seed leaves resolves outside the target.
   */
  private async queueLinks(): Promise<void> {
    const earlier = this.recordedLinks().filter((relative) => !this.seen.has(relative));
    const graph = new LinkGraph((key) => this.plannedKind(key));
    const refused = await graph.refusals([...this.sourceLinks.keys(), ...earlier]);
    await this.removeEarlierLinks([...refused].filter(([relative]) => !this.seen.has(relative)));
    for (const [relative, err] of refused) if (this.seen.has(relative)) this.fail(relative, err);
    for (const job of this.linkJobs) {
      if (refused.has(job.path)) this.counts.files--;
      else await this.queue(job);
    }
  }

  /**
   * Once every link is written (or failed): each is judged again against the target as it really is
   * now (a link whose write failed left whatever won the name; a directory may have been swapped
   * meanwhile), and one that leaves the target is removed, while it is still the link written.
   */
  private async judgeWrittenLinks(): Promise<void> {
    const links = [...new Set([...this.writtenLinks, ...this.recordedLinks()])];
    if (links.length === 0) return;
    const refused = [...await new LinkGraph((key) => this.actualKind(key)).refusals(links)];
    await this.removeEarlierLinks(refused.filter(([relative]) => !this.seen.has(relative)));
    const own = refused.filter(([relative]) => this.seen.has(relative));
    if (own.length === 0) return;
    const { gone } = await removeWritten(this.tree, own.map(([relative]) => this.writtenEntry(relative)), this.settings.concurrency, (relative, err) => this.fail(relative, err));
    for (const [relative, err] of own) {
      this.fail(relative, new UnsafeEntryError(relative, `${err.message.replace(/^refused "[^"]*": /, '')}, as the target is now${gone.includes(relative) ? '; removed' : ''}`));
      if (gone.includes(relative)) this.forget(relative);
    }
  }

  /** Removes links an earlier seed wrote that now lead out of the target (and reports them). */
  private async removeEarlierLinks(refused: Array<[string, UnsafeEntryError]>): Promise<void> {
    if (refused.length === 0 || this.settings.dryRun) return;
    const { gone, kept } = await removeWritten(this.tree, refused.map(([relative]) => this.writtenEntry(relative)), this.settings.concurrency, (relative, err) => this.fail(relative, err));
    const reasons = new Map(refused);
    for (const relative of gone) {
      this.forget(relative);
      this.warnings.push(`removed the link ${JSON.stringify(relative)} an earlier seed wrote: ${reasons.get(relative)!.message.replace(/^refused "[^"]*": /, '')}`);
    }
    for (const relative of kept) {
      this.forget(relative);
      this.warnings.push(`kept ${JSON.stringify(relative)}: an earlier seed wrote a link there that would now lead out of the target, but it has changed since, so it is not the seed's any more`);
    }
  }

  /** The links the manifest records as written (and still knows). */
  private recordedLinks(): string[] {
    return [...this.manifest.files].filter(([, identity]) => identity.startsWith(LINK_IDENTITY)).map(([relative]) => relative);
  }

  private writtenEntry(relative: string): Written {
    const source = this.manifest.files.get(relative);
    return { path: relative, identity: source?.startsWith(LINK_IDENTITY) ? source : this.manifest.written.get(relative) };
  }

  /** What will be at `key` once this run is done: the source's link or file there, else what the target has. */
  private plannedKind(key: string): Promise<PathKind> | PathKind {
    const link = this.sourceLinks.get(key);
    if (link !== undefined) return { kind: 'link', target: link };
    if (this.seen.has(key)) return OTHER;
    return this.actualKind(key);
  }

  /** What the target has at `key` now: a link (and its target), or something else, or nothing. */
  private async actualKind(key: string): Promise<PathKind> {
    const parent = keyOf(path.posix.dirname(key));
    if (await this.tree.find(parent).catch(() => 'missing') !== 'real') return OTHER;
    return this.tree.using(parent, async (dir) => {
      const at = dir.at(path.posix.basename(key));
      const stats = await this.calls.lstat(at).catch(() => undefined);
      return stats?.isSymbolicLink() ? { kind: 'link' as const, target: await this.calls.readlink(at) } : OTHER;
    }).catch(() => OTHER);
  }

  private async runTask(task: Task): Promise<void> {
    if (task.kind === 'directory') {
      if (this.stopping()) this.complete = false;
      else await this.directories.make(task.directory).catch((err) => this.fail(task.directory, err));
      return;
    }
    if (task.kind === 'check') {
      const { present, gone, identities } = await this.unchanged.settle(task.directory, this.mustVerify(task.directory));
      this.pool.letGo([...present, ...gone].reduce((sum, settled) => sum + bytesHeld(settled), 0));
      for (const [relative, identity] of identities) this.record(relative, this.manifest.files.get(relative)!, identity);
      present.forEach((job) => this.skip(job));
      // Entries no longer on the target (deleted or changed since) are written again.
      for (const job of gone) this.enqueue(task.directory, job, bytesHeld(job));
      return;
    }
    if (this.stopping()) {
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
    const name = path.posix.basename(relative);
    let inPlace = false;
    try {
      await this.directories.make(directory);
      // A file the manifest records is about to be replaced: a run that does not end cleanly from here
      // on leaves the manifest saying otherwise, so it is marked as running first.
      if (this.manifest.files.has(relative) && !this.settings.dryRun) await this.markRunning();
      // In a directory no reader sees yet, a file is written in place, unless an earlier run recorded it
      // whole there: rewritten in place and interrupted, it would later pass for that recorded file.
      inPlace = job.kind === 'file' && this.directories.unpublished(directory) && !this.manifest.files.has(relative);
      const done = this.settings.dryRun ? await this.copier!.copy(job, undefined, async () => undefined) : await this.place(job, keyOf(directory), name, inPlace);
      if (done.written) {
        this.counts.written++;
        this.counts.writtenBytes += done.bytes;
        if (job.kind === 'symlink') this.writtenLinks.push(relative);
      } else {
        this.counts.skipped++;
      }
      if (!this.settings.dryRun && this.settings.useManifest) this.record(relative, job.entry.identity, done.identity);
    } catch (err) {
      if (job.kind === 'file') job.entry.discard?.();
      this.fail(relative, err);
      if (inPlace) await this.directories.withholdIfLeft(directory, relative, name).catch(() => undefined);
    }
    this.progress();
  }

  /** Copies `job` to `name` in the directory `key`, held open (with its scratch directory) until the copy settles. */
  private async place(job: Job, key: string, name: string, inPlace: boolean): Promise<Copied> {
    const dir = await this.tree.pin(key);
    let scratch: string | undefined;
    try {
      // A directory with the pool to itself takes files twice as fast with its temporary files elsewhere.
      scratch = job.kind === 'file' && !inPlace && this.scratch && this.pool.alone(path.posix.dirname(job.path)) ? await this.scratch.for(key) : undefined;
      const tempDir = scratch === undefined ? undefined : await this.tree.pin(scratch).catch(() => {
        scratch = undefined;
        return undefined;
      });
      return await this.copier!.copy(job, { dir, name, inPlace, tempDir }, () => this.directories.sweepBeforeWriting(key));
    } finally {
      if (scratch !== undefined) this.tree.unpin(scratch);
      this.tree.unpin(key);
    }
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

  /**
   * Deletes files and links an earlier seed wrote that the source no longer has, while they are still
   * as written (the others are kept, reported, and are no longer the seed's), then the directories a
   * seed made that it no longer has.
   */
  private async prune(): Promise<{ pruned: number; kept: string[] }> {
    const stale = [...this.manifest.files.keys()].filter((relative) => !this.seen.has(relative));
    // A dry run only counts them (and saves no manifest).
    if (this.settings.dryRun) return { pruned: stale.length, kept: [] };
    const failures = this.failed.length;
    const { gone, kept } = await removeWritten(this.tree, stale.map((relative) => this.writtenEntry(relative)), this.settings.concurrency, (relative, err) => this.fail(relative, err), this.options.deadline);
    // A file whose unlink failed stays in the manifest, for the next prune; past the deadline the rest waits for the next slice.
    [...gone, ...kept].forEach((relative) => this.forget(relative));
    if (gone.length + kept.length + this.failed.length - failures < stale.length) this.complete = false;
    if (kept.length > 0) {
      this.warnings.push(`kept ${kept.length} file${kept.length === 1 ? '' : 's'} changed since seeded (${kept.slice(0, 5).map((k) => JSON.stringify(k)).join(', ')}${kept.length > 5 ? ', ...' : ''}): `
        + 'the source no longer has them, but they are not as the seed wrote them, so they are left, and no longer recorded as the seed\'s');
    }
    // Then the directories, once nothing else is left in them.
    const keep = withParents([...this.declared, ...this.holdingEntries]);
    const dropped = [...this.manifest.directories].filter((directory) => !keep.has(directory));
    const { gone: removed, finished } = await removeMadeDirectories(this.tree, dropped, this.manifest.directories, this.options.deadline);
    removed.forEach((directory) => this.manifest.directories.delete(directory));
    this.manifestChanged ||= removed.length > 0;
    // Past the deadline, the directories left wait for the next slice.
    if (!finished) this.complete = false;
    return { pruned: gone.length, kept };
  }

  /**
   * Whether the unchanged entries of `directory` are checked one by one against what was written, not
   * only looked for: after a run that did not end cleanly, and where another seed's place is nested
   * above or below (it may have rewritten them: a seed moved between /a and /a/b, its rollback).
   */
  private mustVerify(directory: string): boolean {
    if (this.manifest.running || this.settings.nested) return true;
    for (let key = keyOf(directory); ; key = keyOf(path.posix.dirname(key))) {
      if (this.listings.places.has(key)) return true;
      if (key === '') return false;
    }
  }

  /** Whether to start no more work: the deadline passed, the run lost its lock, or a newer request claimed the place. */
  private stopping(): boolean {
    const { deadline } = this.options;
    return this.lostLock || this.superseded || (deadline !== undefined && Date.now() >= deadline);
  }

  /** Every HEARTBEAT_MS: keeps the lock alive (a run that lost it stops), and saves a checkpoint when one is due. */
  private keepAlive(): Promise<void> {
    this.keepingAlive ??= (async () => {
      if (this.lostLock) return;
      if (!await this.lock!.heartbeat()) {
        this.lostLock = true;
        this.fail(STATE_DIR, new Error('the seed lost the target\'s lock (it was not kept alive for a minute and another run took it over): it stopped; run it again'));
        return;
      }
      if (this.options.request && !this.superseded && !await this.options.request.current()) {
        this.superseded = true;
        this.complete = false;
        this.warnings.push('a newer deploy request claimed this place: this run stopped, keeping what it wrote recorded');
        return;
      }
      if (Date.now() - this.lastSave >= CHECKPOINT_MS) await this.checkpoint();
    })().finally(() => { this.keepingAlive = undefined; });
    return this.keepingAlive;
  }

  /** Saves the manifest as it stands, marked as a run under way, unless a save is under way or one was just made. */
  private async checkpoint(): Promise<void> {
    if (this.checkpointing || !this.manifestChanged || this.settings.dryRun || !this.state) return;
    if (Date.now() - this.lastSave < Math.max(CHECKPOINT_MIN_MS, this.lastSaveMs * 20)) return;
    this.checkpointing = true;
    try {
      await this.save(true);
    } catch (err) {
      this.warnings.push(`a checkpoint of the manifest failed: ${(err as Error).message}`);
    } finally {
      this.checkpointing = false;
    }
  }

  /** Saves the manifest once before the first file it records is replaced, marked as a run under way. */
  private markRunning(): Promise<void> {
    this.markedRunning ??= this.manifest.running ? Promise.resolve() : this.save(true);
    return this.markedRunning;
  }

  /** Saves the manifest (one save at a time; the last one wins). */
  private save(running: boolean): Promise<void> {
    const save = this.saving.then(async () => {
      if (this.lostLock) return;
      const started = Date.now();
      this.sinceSave = 0;
      await this.state!.saveManifest(this.manifest, running);
      this.manifest.running = running;
      this.lastSave = Date.now();
      this.lastSaveMs = this.lastSave - started;
    });
    this.saving = save.catch(() => undefined);
    return save;
  }

  private skip(job: Job): void {
    if (job.kind === 'file') job.entry.discard?.();
    this.counts.skipped++;
    this.progress();
  }

  /** What an earlier seed wrote, updated as files are written: each path is looked up before its own update. */
  private record(relative: string, identity: string, written?: string): void {
    if (this.manifest.files.get(relative) === identity && this.manifest.written.get(relative) === written) return;
    if (!this.manifest.files.has(relative)) this.manifest.pending?.added.add(relative);
    this.manifest.files.set(relative, identity);
    if (written === undefined) this.manifest.written.delete(relative);
    else this.manifest.written.set(relative, written);
    this.manifestChanged = true;
    if (++this.sinceSave >= CHECKPOINT_FILES) void this.checkpoint();
  }

  private forget(relative: string): void {
    this.manifest.files.delete(relative);
    this.manifest.written.delete(relative);
    this.manifest.pending?.added.delete(relative);
    this.manifestChanged = true;
  }

  private recordDirectory(relative: string): void {
    if (!this.settings.useManifest || this.settings.dryRun || this.manifest.directories.has(relative)) return;
    this.manifest.directories.add(relative);
    this.manifestChanged = true;
  }

  private fail(entryPath: string, err: unknown): void {
    this.failed.push({ path: entryPath, error: err instanceof UnsafeEntryError ? err.message : `${entryPath}: ${errorMessage(err)}` });
  }

  private progress(): void {
    const { counts, totals } = this;
    this.options.onProgress?.({
      files: counts.files, bytes: counts.bytes, written: counts.written, skipped: counts.skipped, failed: this.failed.length,
      totalFiles: totals?.files, totalBytes: totals?.bytes, elapsedSeconds: (Date.now() - this.started) / 1000,
    });
  }
}

const OTHER: PathKind = { kind: 'other' };

/**
 * An error's message for a failure of `path`: a system call's without the path it was given (every
 * target path is /proc/<pid>/fd/<fd>/<name>, which says nothing to a reader), which the failure names.
 */
export function errorMessage(err: unknown): string {
  const { message, path: at } = err as NodeJS.ErrnoException;
  return at?.startsWith('/proc/') ? message.replace(/ '\/proc\/[^']*'( -> '[^']*')?$/, '') : String(message);
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
