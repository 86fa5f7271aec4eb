import * as path from 'path';
import { MiB } from '../../shared/sizes';
import type { CopyOptions } from './copy-options';
import { CopyWorkers } from './copy-workers';
import { EntrySource } from '../sources/entry';
import { Copied, FileCopier, Job } from './file-copy';
import { FileSystemCalls } from '../boundary/file-system-calls';
import { Manifest, MAX_MANIFEST_FILES } from '../state/manifest';
import { commitRequest, LeftoversRun, pruneStale } from '../target/leftovers';
import { LinkJudge } from '../target/link-judge';
import { ManifestBook } from '../state/manifest-book';
import { PendingWork } from '../target/pending-work';
import { RoundRobinPool } from './round-robin-pool';
import { describeNotProven, MadeProof, NotProven, RunToken } from '../state/run-tokens';
import { sameResource } from '../handler/resource-identity';
import { safeEntryPath, UnsafeEntryError } from '../../../lib/seed/contract/entry-path';
import { checkLinkTargetShape } from '../target/link-graph';
import { SCRATCH_NAME, ScratchDirectories } from '../target/scratch';
import type { SeedFailure, SeedSummary } from './seed-summary';
import { STATE_DIR, StateDirectory, StateMovedError } from '../state/state-directory';
import { DirectoryMaker, keyOf, TargetListings } from '../target/target-directories';
import { HEARTBEAT_MS, TargetLock } from '../state/target-lock';
import { MovedOutError, TargetTree } from '../boundary/target-tree';
import { UnchangedEntries } from '../target/unchanged-entries';
import { describeResolution } from '../boundary/open-beneath';

/**
 * Looks for a directory's unchanged entries (per the manifest) in one listing of it; or makes a
 * directory that nothing is written into (the pool makes the others for their files).
 */
type Task = Job | { kind: 'check'; directory: string } | { kind: 'directory'; directory: string };

/** The options a run settled on (the caller's `CopyOptions` are read as the run goes: a deadline may move). */
export interface RunSettings {
  readonly concurrency: number;
  readonly dryRun: boolean;
  readonly useManifest: boolean;
  /** Another seed's state directory is in a directory above the target (a place nested in another). */
  readonly nested: boolean;
  /** What the settling noticed (a concurrency lowered to the open-file limit), reported with the run's warnings. */
  readonly warnings?: string[];
  /** This run's token, in every staging and temporary name it gives (recorded in the state directory before the first). */
  readonly runToken: RunToken;
  /** What proves an entry with a reserved name a seed's (its tokens include this run's). */
  readonly proof: MadeProof;
}

/**
 * One run of the copy: it lists the source and queues each entry, schedules the pool (directories
 * made first, files spread across directories), publishes staged directories as they are done, then
 * judges the links it wrote, prunes and saves the manifest (and a checkpoint of it as it goes). What
 * it does to each file is FileCopier's; what it does to directories is DirectoryMaker's; judging
 * links is LinkJudge's, removing what the source no longer has leftovers.ts's, keeping the manifest
 * ManifestBook's; every operation on the target is in a directory it holds open (TargetTree).
 */
export class CopyRun {
  private readonly started = Date.now();
  private readonly counts = { files: 0, bytes: 0, written: 0, writtenBytes: 0, skipped: 0, directories: 0 };
  private readonly failed: SeedFailure[] = [];
  private readonly specialFiles: string[] = [];
  private readonly warnings: string[];
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
  /** Entries with the seed's reserved names that it cannot prove it made: left alone, and reported. */
  private readonly leftAlone: NotProven[] = [];
  /** Files this run wrote, by the directory (its key) they are in: each is checked still under the root before the run says it is complete. */
  private readonly writtenInto = new Map<string, number>();
  /** Directories found moved out of the target (reported once each). */
  private readonly movedOut = new Set<string>();
  /** Whether every leftover of earlier runs that this run found is gone (then their tokens are dropped). */
  private leftoversGone = false;

  private readonly calls: FileSystemCalls;
  private readonly listings: TargetListings;
  private readonly directories: DirectoryMaker;
  private readonly unchanged: UnchangedEntries;
  private readonly scratch?: ScratchDirectories;
  /** Once the source has listed everything, a staged directory whose work is all done is published at once. */
  private readonly pending = new PendingWork();
  private listed = false;
  private readonly finished = new Set<string>();
  /** Directories being published (after the manifest records them), see publishRecorded. */
  private publishing?: Promise<void>;
  private readonly pool: RoundRobinPool<Task>;
  private workers?: CopyWorkers;
  private copier?: FileCopier;
  private keepingAlive?: Promise<void>;
  /** The manifest's bookkeeping, and when it is saved. */
  private readonly book: ManifestBook;
  private readonly links: LinkJudge;
  private readonly leftovers: LeftoversRun;
  /** The manifest was another resource's (a renamed construct's): its runs may have rewritten what it records. */
  private readonly ownedByAnother: boolean;

  constructor(
    private readonly source: EntrySource,
    private readonly tree: TargetTree,
    private readonly options: CopyOptions,
    private readonly settings: RunSettings,
    private readonly manifest: Manifest,
    private readonly state?: StateDirectory,
    private readonly lock?: TargetLock,
  ) {
    this.warnings = [...settings.warnings ?? [], ...manifest.problems];
    // Read before the book makes this resource the owner.
    this.ownedByAnother = !!manifest.owner && !!options.request && !sameResource(manifest.owner, options.request.resource);
    const { dryRun, useManifest } = settings;
    this.book = new ManifestBook(manifest, {
      state, dryRun, useManifest, request: options.request, lockLost: () => this.lostLock, warn: (message) => this.warnings.push(message),
    });
    const { uid, gid } = options;
    this.calls = tree.calls;
    this.links = new LinkJudge({
      tree, book: this.book, concurrency: settings.concurrency, dryRun, seen: this.seen, sourceLinks: this.sourceLinks,
      fail: (relative, err) => this.fail(relative, err), warn: (message) => this.warnings.push(message),
    });
    this.leftovers = {
      tree, book: this.book, concurrency: settings.concurrency, seen: this.seen,
      // Read when used: a caller may move the deadline while the run goes.
      get deadline() { return options.deadline; },
      fail: (relative, err) => this.fail(relative, err), failures: () => this.failed.length, warn: (message) => this.warnings.push(message),
    };
    this.listings = new TargetListings(tree);
    // Workers sharing a target (no manifest) could not agree on who publishes a new directory.
    this.directories = new DirectoryMaker({
      tree, listings: this.listings, dryRun, staging: !dryRun && useManifest, uid, gid, runToken: settings.runToken, proof: settings.proof,
      fail: (relative, err) => this.fail(relative, err), made: (relative) => this.book.recordDirectory(relative), leftAlone: (entry) => this.leftAlone.push(entry),
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
    this.copier = new FileCopier(this.calls, { uid: this.options.uid, gid: this.options.gid, byTime: !useManifest, workers: this.workers, runToken: this.settings.runToken.token });
    const timer = this.lock ? setInterval(() => void this.keepAlive(), HEARTBEAT_MS) : undefined;
    let sourceFailure: unknown;
    try {
      await this.list();
    } catch (err) {
      sourceFailure = err;
    } finally {
      // Even when the source fails, let writes in flight finish or clean up their temporary files.
      await this.pool.drain();
      this.book.endCopying();
      clearInterval(timer);
      await this.keepingAlive;
      await this.workers?.close();
    }
    // Before anything is published or removed: is the lock (and the state directory it is in) still this run's?
    if (this.lock && !this.lostLock && !await this.lock.stillHeld()) await this.lockLost();
    if (this.lostLock) return this.summary(0, []);
    if (sourceFailure !== undefined) {
      // What was written is whole and recorded: the next run goes on from there.
      await this.finish();
      throw sourceFailure;
    }
    await this.publishing;
    if (this.complete && !dryRun) {
      if (this.directories.stagedDirectories().length > 0) await this.book.saveRecorded();
      this.leftoversGone = await this.directories.publish(this.options.deadline);
    }
    if (!dryRun) await this.checkWrittenDirectories();
    if (!dryRun) await this.links.judgeWritten(this.writtenLinks);
    const { pruned, kept } = this.complete && this.options.prune && this.failed.length === 0 ? await this.prune() : { pruned: 0, kept: [] };
    if (this.complete && !dryRun && this.options.request && !await commitRequest(this.leftovers, this.options.request, [...this.declared, ...this.holdingEntries])) this.complete = false;
    await this.finish();
    return this.summary(pruned, kept);
  }

  /** Saves the manifest where it changed (an unchanged re-run writes nothing but its lock) and tidies the state directory. */
  private async finish(): Promise<void> {
    if (this.settings.dryRun || !this.state) return;
    if (this.manifest.files.size > MAX_MANIFEST_FILES) {
      this.warnings.push(`the manifest records ${this.manifest.files.size} files, more than the ${MAX_MANIFEST_FILES} a seed reads back: the next run ignores it, and checks and rewrites every file; seed parts of this source to targets of their own`);
    }
    if (this.book.changed || this.manifest.running) {
      // The files are in place either way; without the manifest the next run re-checks and rewrites them.
      await this.book.save(false).catch((err) => this.fail(`${STATE_DIR}/seed-manifest.json`, err));
    }
    // Complete and clean: every leftover of the runs recorded is gone (their entries in the directories
    // this run listed), and so are this run's own staging and temporary names; their tokens go too.
    if (this.complete && this.leftoversGone && this.failed.length === 0 && this.settings.runToken.onDisk) {
      // A record left behind proves only entries that are gone, and at most 1,024 are kept: worth a warning, not a failure.
      await this.state.forgetTokens().catch((err: Error) => this.warnings.push(`${STATE_DIR}/run-tokens.json could not be removed: ${err.message}`));
    }
    await this.state.tidy(SCRATCH_NAME);
  }

  private summary(pruned: number, kept: string[]): SeedSummary {
    this.progress();
    return {
      ...this.counts, pruned, failed: this.failed, complete: this.complete && !this.lostLock && !this.superseded, seconds: (Date.now() - this.started) / 1000,
      peakConcurrency: this.pool.peakConcurrency, specialFiles: this.specialFiles,
      warnings: this.leftAlone.length > 0 ? [...this.warnings, describeNotProven(this.leftAlone)] : this.warnings,
      filesByWorker: this.workers?.filesWritten ?? [], kept, pathResolution: describeResolution(),
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

  /** Queues the source's links the judge lets through (see LinkJudge). */
  private async queueLinks(): Promise<void> {
    const refused = await this.links.refuseBeforeWriting();
    for (const job of this.linkJobs) {
      if (refused.has(job.path)) this.counts.files--;
      else await this.queue(job);
    }
  }

  private async runTask(task: Task): Promise<void> {
    if (task.kind === 'directory') {
      if (this.stopping()) this.complete = false;
      else await this.directories.make(task.directory).catch((err) => this.fail(task.directory, err));
      return;
    }
    if (task.kind === 'check') {
      const { present, gone, identities } = await this.unchanged.settle(task.directory, () => this.mustVerify(task.directory));
      this.pool.letGo([...present, ...gone].reduce((sum, settled) => sum + bytesHeld(settled), 0));
      for (const [relative, identity] of identities) this.book.record(relative, this.manifest.files.get(relative)!, identity);
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
      if (this.manifest.files.has(relative) && !this.settings.dryRun) await this.book.markRunning();
      // In a directory no reader sees yet, a file is written in place, unless an earlier run recorded it
      // whole there: rewritten in place and interrupted, it would later pass for that recorded file.
      inPlace = job.kind === 'file' && this.directories.unpublished(directory) && !this.manifest.files.has(relative);
      // Once this round's check found the directory in place, nothing to wait for.
      if (!this.settings.dryRun && !this.tree.knownInPlace(keyOf(directory))) await this.refuseMovedOut(keyOf(directory));
      const done = this.settings.dryRun ? await this.copier!.copy(job, undefined, async () => undefined) : await this.place(job, keyOf(directory), name, inPlace);
      if (done.written) {
        this.counts.written++;
        this.counts.writtenBytes += done.bytes;
        if (job.kind === 'symlink') this.writtenLinks.push(relative);
        const key = keyOf(directory);
        this.writtenInto.set(key, (this.writtenInto.get(key) ?? 0) + 1);
      } else {
        this.counts.skipped++;
      }
      if (!this.settings.dryRun && this.settings.useManifest) this.book.record(relative, job.entry.identity, done.identity);
    } catch (err) {
      if (job.kind === 'file') job.entry.discard?.();
      if (err instanceof MovedOutError) this.reportMovedOut(err.key);
      this.fail(relative, err);
      if (inPlace) await this.directories.withholdIfLeft(directory, relative, name).catch(() => undefined);
    }
    this.progress();
  }

  /** Copies `job` to `name` in the directory `key`, held open (with its scratch directory) until the copy settles. */
  private async place(job: Job, key: string, name: string, inPlace: boolean): Promise<Copied> {
    const dir = this.tree.pinIfOpen(key) ?? await this.tree.pin(key);
    let scratch: string | undefined;
    try {
      // A directory with the pool to itself takes files twice as fast with its temporary files elsewhere.
      scratch = job.kind === 'file' && !inPlace && this.scratch && this.pool.alone(path.posix.dirname(job.path)) ? await this.scratch.for(key) : undefined;
      const tempDir = scratch === undefined ? undefined : await this.tree.pin(scratch).catch(() => {
        scratch = undefined;
        return undefined;
      });
      // The first write of a run records its token (its temporary names carry it) before it makes anything.
      return await this.copier!.copy(job, { dir, name, inPlace, tempDir }, () => this.settings.runToken.recorded().then(() => this.directories.sweepBeforeWriting(key)));
    } finally {
      if (scratch !== undefined) this.tree.unpin(scratch);
      this.tree.unpin(key);
    }
  }

  /**
   * Throws MovedOutError where the directory `key` (or one above it) is no longer at its name under the
   * root: looked at on its first write of each round of checks (a heartbeat starts one), not per file.
   */
  private async refuseMovedOut(key: string): Promise<void> {
    if (!await this.tree.stillInPlace(key)) this.tree.refuseMovedOut(key);
  }

  /** Before the run says it is complete: every directory it wrote into is still where it wrote (one lstat each, and the directories above them). */
  private async checkWrittenDirectories(): Promise<void> {
    this.tree.newCheckRound();
    await Promise.all([...this.writtenInto.keys()].map((key) => this.refuseMovedOut(key).catch((err: unknown) => {
      if (!(err instanceof MovedOutError)) throw err;
      this.reportMovedOut(err.key);
    })));
  }

  /** A directory moved out of the target: what the run wrote there went with it, and the run is not complete. */
  private reportMovedOut(key: string): void {
    if (this.movedOut.has(key)) return;
    this.movedOut.add(key);
    this.complete = false;
    let files = 0;
    for (const [directory, count] of this.writtenInto) if (directory === key || directory.startsWith(`${key}/`)) files += count;
    this.fail(key, new Error(`moved out of the target during the run; nothing more written there (the ${files} files this run wrote in it went with it)`));
  }

  /** Staged directories with nothing left to do are renamed into place; directories still to be made go first. */
  private publishDone(done: string[]): void {
    if (!this.listed || !this.complete) return;
    done.forEach((directory) => this.finished.add(directory));
    void this.publishRecorded();
  }

  /**
   * Publishes the finished directories once the manifest on disk records them and their files (a run
   * killed just after leaves nothing at a final name that no record names); one save for all that
   * finished meanwhile.
   */
  private publishRecorded(): Promise<void> {
    this.publishing ??= (async () => {
      // They need the same parents' locks as directories still to be made, and writers wait for those.
      while (this.finished.size > 0 && !this.pool.preparing) {
        // Only directories still staged are published (a directory that existed is done as it is).
        const staged = new Set(this.directories.stagedDirectories());
        const batch = [...this.finished].filter((directory) => staged.has(directory));
        this.finished.clear();
        if (batch.length === 0) break;
        await this.book.saveRecorded();
        batch.forEach((directory) => this.directories.publishNow(directory));
      }
    })().finally(() => { this.publishing = undefined; });
    return this.publishing;
  }

  /** With `prune`: what earlier seeds wrote that the source no longer has (a dry run only counts it, and saves no manifest). */
  private async prune(): Promise<{ pruned: number; kept: string[] }> {
    if (this.settings.dryRun) return { pruned: [...this.manifest.files.keys()].filter((relative) => !this.seen.has(relative)).length, kept: [] };
    const { pruned, kept, done } = await pruneStale(this.leftovers, [...this.declared, ...this.holdingEntries]);
    if (!done) this.complete = false;
    return { pruned, kept };
  }

  /**
   * Whether the unchanged entries of `directory` are checked one by one against what was written, not
   * only looked for: after a run that did not end cleanly, where another resource owned the manifest,
   * and where another seed's place is nested above or below (it may have rewritten them: a seed moved
   * between /a and /a/b, its rollback). Asked once the directory is listed, so a place there counts.
   */
  private mustVerify(directory: string): boolean {
    if (this.manifest.running || this.settings.nested || this.ownedByAnother) return true;
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
      // Each directory written into from now on is looked at again, once, before its next file.
      this.tree.newCheckRound();
      if (!await this.lock!.heartbeat()) {
        await this.lockLost();
        return;
      }
      if (this.options.request && !this.superseded) {
        // A claim that cannot be read as one (a FIFO planted there) stops the run too, as a failure.
        const current = await this.options.request.current().catch((err: unknown) => {
          this.fail(STATE_DIR, err);
          return undefined;
        });
        if (current !== true) {
          this.superseded = true;
          this.complete = false;
          if (current === false) this.warnings.push('a newer deploy request claimed this place: this run stopped, keeping what it wrote recorded');
          return;
        }
      }
      if (this.book.checkpointDue) await this.book.checkpoint();
    })().finally(() => { this.keepingAlive = undefined; });
    return this.keepingAlive;
  }

  /** The run lost its lock, or the state directory the lock is in: it writes nothing more, and says which. */
  private async lockLost(): Promise<void> {
    this.lostLock = true;
    this.fail(STATE_DIR, this.state && !await this.state.inPlace() ? new StateMovedError(this.tree.where)
      : new Error('the seed lost the target\'s lock (it was not kept alive for a minute and another run took it over): it stopped; run it again'));
  }

  private skip(job: Job): void {
    if (job.kind === 'file') job.entry.discard?.();
    this.counts.skipped++;
    this.progress();
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

/**
 * An error's message for a failure of `path`: a system call's without the path it was given (every
 * target path is /proc/self/fd/<fd>/<name>, which says nothing to a reader), which the failure names.
 */
function errorMessage(err: unknown): string {
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
