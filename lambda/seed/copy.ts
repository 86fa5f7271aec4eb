import * as fs from 'fs';
import * as path from 'path';
import { lstat, mkdir, readdir, unlink } from '../shared/fs-calls';
import { MiB } from '../shared/sizes';
import { NEW_DIRECTORY_PREFIX, stagingName, TEMP_PREFIX, writeFileAtomically, writeSymlinkAtomically, writeUnseenFile } from './atomic-write';
import { DEFAULT_DIRECTORY_MODE, FileEntry, LINK_IDENTITY, EntrySource, SymlinkEntry } from './entry';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from './limits';
import { emptyManifest, loadManifest, Manifest, saveManifest, STATE_DIR, tidyStateDirectory } from './manifest';
import { parentsOf, removeFiles, removeMadeDirectories } from './removal';
import { RoundRobinPool } from './round-robin-pool';
import { SCRATCH_NAME, ScratchDirectories } from './scratch';
import { checkLinkTargetShape, LinkGraph, safeEntryPath, UnsafeEntryError } from './safety';
import { checkTarget } from './target-root';

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
}

/** An entry to write, at its checked path (the source's own name for it may differ: './a', 'a//b'). */
type Job = { kind: 'file'; path: string; entry: FileEntry } | { kind: 'symlink'; path: string; entry: SymlinkEntry };
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
  const listings = new TargetListings();

  const progress = () => options.onProgress?.({
    files: counts.files, bytes: counts.bytes, written: counts.written, skipped: counts.skipped, failed: failed.length,
    totalFiles: totals?.files, totalBytes: totals?.bytes, elapsedSeconds: (Date.now() - started) / 1000,
  });
  const fail = (entryPath: string, err: unknown) => {
    failed.push({ path: entryPath, error: err instanceof UnsafeEntryError ? err.message : `${entryPath}: ${(err as Error).message}` });
  };
  // Workers sharing a target (no manifest) could not agree on who publishes a new directory.
  const directories = new DirectoryMaker(root, dryRun, !dryRun && useManifest, options, listings, fail, recordDirectory);

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
      const beforeWrite = () => directories.sweepBeforeWriting(directory);
      const done = job.kind === 'file'
        ? await writeFileIfChanged(where, job.entry, dryRun, options, beforeWrite, inPlaceAt !== undefined, tempDir)
        : await writeSymlink(where, job.entry, dryRun, beforeWrite);
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
    specialFiles, warnings,
  };
}

const directoryOf = (task: Task) => (task.kind === 'file' || task.kind === 'symlink' ? path.posix.dirname(task.path) : task.directory);

/** Tasks queued or running, by directory, counting those in the directories below it. */
class PendingWork {
  private readonly counts = new Map<string, number>();

  start(directory: string): void {
    for (const key of lineage(keyOf(directory))) this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** Counts a task in `directory` done; the directories (keys) that now have none left. */
  finish(directory: string): string[] {
    const done: string[] = [];
    for (const key of lineage(keyOf(directory))) {
      const left = this.counts.get(key)! - 1;
      if (left > 0) this.counts.set(key, left);
      else {
        this.counts.delete(key);
        done.push(key);
      }
    }
    return done;
  }

  idle(directory: string): boolean {
    return !this.counts.has(directory);
  }
}

/** A directory key and those of its parents, up to the root's (''). */
function lineage(key: string): string[] {
  const keys = [key];
  for (let k = key; k !== ''; ) {
    k = keyOf(path.posix.dirname(k));
    keys.push(k);
  }
  return keys;
}

/** Archive members held in memory count against the memory bound; files read when written do not. */
const bytesHeld = (job: Job) => (job.kind === 'file' && job.entry.inMemory ? job.entry.size : 0);

/**
 * Permission bits a file or directory keeps (the process umask still applies): no setuid or setgid,
 * which a seed running as root would otherwise hand out from an archive (mkdir keeps a directory's
 * sticky bit, and sets setgid only where the parent has it).
 */
const FILE_MODE_BITS = 0o777;
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

/** Writes the file at `where` (its path on disk): through a temporary name (in `tempDir` if given), or `inPlace`. */
async function writeFileIfChanged(where: string, entry: FileEntry, dryRun: boolean, options: CopyOptions, beforeWrite: () => Promise<void>, inPlace: boolean, tempDir?: string) {
  // Without a manifest (Distributed Map workers), the file on the target tells whether it is current.
  const byTime = options.manifest === false && entry.mtimeMs !== undefined;
  if (byTime) {
    const stat = await lstat(where).catch(() => undefined);
    if (stat?.isFile() && stat.size === entry.size && Math.trunc(stat.mtimeMs) === Math.trunc(entry.mtimeMs!)) {
      entry.discard?.();
      return { written: false, bytes: 0 };
    }
  }
  if (dryRun) {
    entry.discard?.();
    return { written: true, bytes: entry.size };
  }
  await beforeWrite();
  const writeOptions = { mode: entry.mode & FILE_MODE_BITS, uid: options.uid, gid: options.gid, expectedSize: entry.size, mtimeMs: byTime ? entry.mtimeMs : undefined };
  // In place, an interrupted run (or anyone who can write the target) may have left something at the name: replaced, never written through.
  const bytes = inPlace
    ? await writeUnseenFile(where, await entry.open(), writeOptions, true)
    : await writeFileAtomically(where, await entry.open(), writeOptions, tempDir);
  return { written: true, bytes };
}

async function writeSymlink(where: string, entry: SymlinkEntry, dryRun: boolean, beforeWrite: () => Promise<void>) {
  if (dryRun) return { written: true, bytes: 0 };
  await beforeWrite();
  await writeSymlinkAtomically(entry.target, where);
  return { written: true, bytes: 0 };
}

/** A target directory's entries by name; empty where the directory could not be read. */
type Listing = ReadonlyMap<string, fs.Dirent>;

/**
 * The target's directories, each listed at most once per run (by where it is on disk), and only
 * where it existed before the run: the listing tells which unchanged entries are still there, which
 * subdirectories exist (no lookup each) and which temporary files an interrupted run left. Only a
 * seed writes through its temporary names, so a name that is there is a whole file. The listing is
 * taken before this run writes into the directory (every write waits for the sweep, which waits for it).
 */
class TargetListings {
  private readonly listings = new Map<string, Promise<Listing>>();
  /** Staging directories seen in the listings (see DirectoryMaker). */
  readonly staging: string[] = [];

  list(dir: string): Promise<Listing> {
    let listing = this.listings.get(dir);
    if (!listing) {
      listing = readdir(dir, { withFileTypes: true }).then((dirents) => {
        for (const d of dirents) if (d.name.startsWith(NEW_DIRECTORY_PREFIX)) this.staging.push(path.join(dir, d.name));
        return new Map(dirents.map((d) => [d.name, d]));
      }, () => new Map<string, fs.Dirent>());
      this.listings.set(dir, listing);
    }
    return listing;
  }

  /** Settles once every listing asked for so far has. */
  async settled(): Promise<void> {
    await Promise.all(this.listings.values());
  }
}

/**
 * Entries the manifest says are unchanged, waiting, by directory, for that directory's listing: one
 * pool task per directory, not one per file, so an unchanged re-run costs little more than the walk.
 */
class UnchangedEntries {
  private readonly waiting = new Map<string, Job[]>();

  constructor(private readonly listings: TargetListings, private readonly directories: DirectoryMaker) {}

  /** Holds `job` for `directory`'s check; true when the directory needs a check task queued. */
  add(directory: string, job: Job): boolean {
    const queue = this.waiting.get(directory);
    if (queue) {
      queue.push(job);
      return false;
    }
    this.waiting.set(directory, [job]);
    return true;
  }

  /** Run as the check task, once the directory is made: which waiting entries are there, which gone. */
  async settle(directory: string): Promise<{ present: Job[]; gone: Job[] }> {
    const listing = this.directories.existed(directory) ? await this.listings.list(this.directories.pathOf(directory)) : new Map<string, fs.Dirent>();
    const jobs = this.waiting.get(directory) ?? [];
    this.waiting.delete(directory);
    const present: Job[] = [];
    const gone: Job[] = [];
    for (const job of jobs) {
      const dirent = listing.get(path.posix.basename(job.path));
      const there = job.kind === 'file' ? dirent?.isFile() : dirent?.isSymbolicLink();
      (there ? present : gone).push(job);
    }
    return { present, gone };
  }
}

/** The target root is '' ('.' as path.posix.dirname gives it for top-level files). */
const keyOf = (relative: string) => (relative === '.' ? '' : relative);

/** A directory this run made (or an interrupted run began) under a staging name, to rename into place once filled. */
interface Unpublished { readonly relative: string; readonly staged: string; readonly final: string; withheld?: string; publishing?: Promise<void> }

/**
 * Creates each directory once, parents first, refusing any path component that exists but is not a
 * real directory (a symlink planted to lead writes outside the target). Whether a directory exists is
 * read from its parent's listing where the parent existed, so a re-run makes no lookup per directory.
 *
 * With `staging` (a seed that owns its target), a directory that does not exist yet is made under a
 * staging name in its parent and published, renamed into place, once its files are all written (or,
 * for the rest, once the run is complete): until then
 * no reader sees it, so the files inside are written in place, with no temporary name and no rename
 * each (on EFS both are round trips under the directory's lock). A later run adopts a staging
 * directory an interrupted run left and goes on filling it; one nothing adopts is removed at the end.
 *
 * A directory that already existed is swept of temporary files an interrupted run left behind before
 * the first write into it (an interrupted write always leaves its file to be written again), so an
 * unchanged re-run writes nothing. A dry run only looks.
 */
class DirectoryMaker {
  private readonly making = new Map<string, Promise<void>>();
  private readonly modes = new Map<string, number>();
  private readonly existing = new Set<string>(['']);
  /** Where each made directory is on disk. */
  private readonly paths = new Map<string, string>();
  /** Directories no reader sees yet: the staged ones and everything below them. */
  private readonly hidden = new Map<string, Unpublished>();
  private readonly swept = new Map<string, Promise<void>>();

  constructor(
    root: string,
    private readonly dryRun: boolean,
    private readonly staging: boolean,
    private readonly options: CopyOptions,
    private readonly listings: TargetListings,
    /** Records a directory that could not be published. */
    private readonly fail: (relative: string, err: unknown) => void,
    /** Told of each directory a seed made (this run, or an interrupted one under a staging name): only those are ever removed. */
    private readonly made: (relative: string) => void,
  ) {
    this.paths.set('', root);
  }

  declare(relative: string, mode: number): void {
    this.modes.set(relative, mode);
  }

  make(relative: string): Promise<void> {
    const key = keyOf(relative);
    if (key === '') return Promise.resolve();
    return this.making.get(key) ?? this.remember(key, this.create(key));
  }

  /** Whether `relative` (made already) was there before this run. */
  existed(relative: string): boolean {
    return this.existing.has(keyOf(relative));
  }

  /** Where `relative` (made already) is on disk. */
  pathOf(relative: string): string {
    return this.paths.get(keyOf(relative))!;
  }

  /** Whether `relative` (made already) is not published yet: a file in it needs no temporary name. */
  unpublished(relative: string): boolean {
    return this.hidden.has(keyOf(relative));
  }

  /** After a failed write in place at `where`: a file still there (its removal failed too) keeps `directory` unpublished. */
  async withholdIfLeft(directory: string, file: string, where: string): Promise<void> {
    if (await lstat(where).then(() => true, () => false)) this.hidden.get(keyOf(directory))!.withheld = file;
  }

  /** Call before writing into `relative` (made already). */
  sweepBeforeWriting(relative: string): Promise<void> {
    const key = keyOf(relative);
    if (this.dryRun || !this.existing.has(key)) return Promise.resolve();
    const sweep = this.swept.get(key) ?? this.sweep(key);
    this.swept.set(key, sweep);
    return sweep;
  }

  /** The staged directories (each the top of what it hides), by key. */
  stagedDirectories(): string[] {
    return [...this.hidden.entries()].filter(([key, u]) => u.relative === key).map(([key]) => key);
  }

  /**
   * Renames the staged directory `relative` into place, unless it is under way or done: for a
   * directory whose files are all written (and no more can come), so it need not wait for the run.
   */
  publishNow(relative: string): void {
    const unpublished = this.hidden.get(relative);
    if (unpublished?.relative !== relative || unpublished.publishing || unpublished.withheld) return;
    unpublished.publishing = this.rename(unpublished);
  }

  /**
   * Once the run is complete: renames each staged directory not yet published into place, then
   * removes staging directories an interrupted run left that this run did not adopt (the source no
   * longer has them).
   */
  async publish(): Promise<void> {
    const staged = [...new Set(this.hidden.values())];
    await Promise.all(staged.map((u) => {
      if (u.withheld) {
        this.fail(u.relative, new Error(`not published: ${u.withheld} failed and its partial file could not be removed; run the seed again`));
        return undefined;
      }
      return u.publishing ?? this.rename(u);
    }));
    const adopted = new Set(staged.map((u) => u.staged));
    await this.listings.settled();
    const leftovers = this.listings.staging.filter((dir) => !adopted.has(dir));
    await Promise.all(leftovers.map((dir) => fs.promises.rm(dir, { recursive: true, force: true }).catch(() => undefined)));
  }

  private async rename({ relative, staged, final }: Unpublished): Promise<void> {
    // rename() replaces an empty directory made meanwhile; one with content stops it.
    await fs.promises.rename(staged, final).catch((err: NodeJS.ErrnoException) => this.fail(relative, ['ENOTEMPTY', 'EEXIST'].includes(err.code ?? '')
      ? new Error(`appeared on the target during the seed; the seed's copy is left in ${path.basename(staged)}, and the next run writes into it`)
      : err));
  }

  private remember(relative: string, promise: Promise<void>): Promise<void> {
    this.making.set(relative, promise);
    return promise;
  }

  private async create(relative: string): Promise<void> {
    const parent = keyOf(path.posix.dirname(relative));
    await this.make(parent);
    const parentPath = this.pathOf(parent);
    const name = path.posix.basename(relative);
    const parentHidden = this.hidden.get(parent);
    const stage = this.staging && !parentHidden;
    // A listing shares the parent's lock, while a mkdir holds it alone even when the directory exists:
    // on a re-run a mkdir each would queue them one by one.
    const listing = this.existing.has(parent) ? await this.listings.list(parentPath) : undefined;
    const dirent = listing?.get(name);
    if (dirent) {
      this.refuseUnlessDirectory(relative, dirent);
      this.existing.add(relative);
      this.paths.set(relative, path.join(parentPath, name));
      if (parentHidden) {
        // Inside a staging directory: an interrupted seed made it.
        this.hidden.set(relative, parentHidden);
        this.made(relative);
      }
      return;
    }
    const where = path.join(parentPath, stage ? stagingName(name) : name);
    this.paths.set(relative, where);
    const begun = stage ? listing?.get(path.basename(where)) : undefined;
    if (begun) {
      // An interrupted run's staging directory: go on filling it.
      this.refuseUnlessDirectory(relative, begun);
      this.existing.add(relative);
      this.made(relative);
    } else if (!this.dryRun) {
      if (await this.mkdir(relative, where)) this.made(relative);
    }
    // Only a directory made (or adopted) is ever published.
    const unpublished = stage ? { relative, staged: where, final: path.join(parentPath, name) } : parentHidden;
    if (unpublished) this.hidden.set(relative, unpublished);
  }

  /** Makes the directory; false where another writer made it meanwhile (Distributed Map workers share a target). */
  private async mkdir(relative: string, where: string): Promise<boolean> {
    try {
      await mkdir(where, this.modes.get(relative) ?? DEFAULT_DIRECTORY_MODE);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      this.refuseUnlessDirectory(relative, await lstat(where));
      this.existing.add(relative);
      return false;
    }
    if (this.options.uid !== undefined || this.options.gid !== undefined) {
      // lchown: had someone swapped the new directory for a link, the link is changed, not its target.
      await fs.promises.lchown(where, this.options.uid ?? -1, this.options.gid ?? -1);
    }
    return true;
  }

  private refuseUnlessDirectory(relative: string, found: fs.Dirent | fs.Stats): void {
    if (!found.isDirectory()) throw new UnsafeEntryError(relative, 'exists on the target and is not a directory (a symlink is never followed)');
  }

  private async sweep(relative: string): Promise<void> {
    const dir = this.pathOf(relative);
    const names = [...(await this.listings.list(dir)).keys()].filter((n) => n.startsWith(TEMP_PREFIX));
    // Without a manifest, other workers may be writing into this directory right now: only a
    // temporary file older than any of them can run is a leftover.
    const shared = this.options.manifest === false;
    await Promise.all(names.map(async (n) => {
      const full = path.join(dir, n);
      if (shared && !await olderThan(full, SHARED_TARGET_LEFTOVER_MS)) return;
      await unlink(full).catch(() => undefined);
    }));
  }
}

/** Lambda's longest run: no worker of a shared target still writes a temporary file older than this. */
const SHARED_TARGET_LEFTOVER_MS = 15 * 60 * 1000;

async function olderThan(file: string, ms: number): Promise<boolean> {
  const stat = await lstat(file).catch(() => undefined);
  return stat !== undefined && Date.now() - stat.mtimeMs > ms;
}
