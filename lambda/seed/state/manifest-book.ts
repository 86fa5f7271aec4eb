import type { SeedRequest } from '../copy/copy-options';
import { LINK_IDENTITY } from '../sources/entry';
import { Manifest } from './manifest';
import { Written } from '../target/removal';
import { StateDirectory } from './state-directory';

/**
 * A run saves its progress in the manifest every CHECKPOINT_MS, and sooner once CHECKPOINT_FILES
 * files are written since the last save, but not within CHECKPOINT_MIN_MS of it nor more often than
 * every 20 times a save takes (a manifest of a million entries takes seconds to write), so that a
 * killed run's successor skips what was finished, at a cost of a few percent of a run at most.
 */
const CHECKPOINT_FILES = 1000;
export const CHECKPOINT_MS = 30_000;
const CHECKPOINT_MIN_MS = 2_000;

export interface ManifestBookOptions {
  /** Where the manifest is saved; none for workers sharing a target, and nothing is saved then. */
  readonly state?: StateDirectory;
  readonly dryRun: boolean;
  readonly useManifest: boolean;
  /** The deploy request the run is for, where there is one. */
  readonly request?: Pick<SeedRequest, 'id' | 'resource'>;
  /** Whether the run lost its lock: it saves nothing more then. */
  readonly lockLost: () => boolean;
  /** Reports what the run noticed but did not fail on. */
  readonly warn: (message: string) => void;
}

/**
 * A copy run's manifest bookkeeping: what the seed wrote (recorded as files are written, forgotten
 * as they are removed), the directories it made, the request's pending additions and owner, and
 * when to save it: before the first recorded file is replaced (marked as a run under way), at
 * checkpoints, and at the end.
 */
export class ManifestBook {
  /** Whether there is anything to save (dropping entries the manifest had wrong counts). */
  public changed: boolean;
  private markedRunning?: Promise<void>;
  private saving: Promise<void> = Promise.resolve();
  private lastSave = Date.now();
  private lastSaveMs = 0;
  /** When the book was opened, and what its saves took the JS thread so far (building their bodies), without their round trips. */
  private readonly opened = Date.now();
  private saveWorkMs = 0;
  /** Files recorded since the last save. */
  private sinceSave = 0;
  private checkpointing = false;
  private copyingEnded = false;
  /** Ends saveRecorded's wait for its turn. */
  private endWait?: () => void;

  constructor(public readonly manifest: Manifest, private readonly options: ManifestBookOptions) {
    this.changed = manifest.problems.length > 0;
    const { request } = options;
    if (request && !options.dryRun) {
      // What an unfinished earlier request added stays pending with this one's additions, until this run completes.
      if (manifest.pending?.request !== request.id) {
        manifest.pending = { request: request.id, added: new Set(manifest.pending?.added), directories: new Set(manifest.pending?.directories) };
        this.changed = true;
      }
      if (manifest.owner !== request.resource) {
        manifest.owner = request.resource;
        this.changed = true;
      }
    }
  }

  /** Whether a checkpoint is due by time (the heartbeat asks). */
  public get checkpointDue(): boolean {
    return Date.now() - this.lastSave >= CHECKPOINT_MS;
  }

  /** What an earlier seed wrote, updated as files are written: each path is looked up before its own update. */
  public record(relative: string, identity: string, written?: string): void {
    const { manifest } = this;
    if (manifest.files.get(relative) === identity && manifest.written.get(relative) === written) return;
    if (!manifest.files.has(relative)) manifest.pending?.added.add(relative);
    manifest.files.set(relative, identity);
    if (written === undefined) manifest.written.delete(relative);
    else manifest.written.set(relative, written);
    this.changed = true;
    if (++this.sinceSave >= CHECKPOINT_FILES && this.checkpointAllowed) void this.checkpoint();
  }

  public forget(relative: string): void {
    this.manifest.files.delete(relative);
    this.manifest.written.delete(relative);
    this.manifest.pending?.added.delete(relative);
    this.manifest.committed?.added.delete(relative);
    this.changed = true;
  }

  public recordDirectory(relative: string): void {
    if (!this.options.useManifest || this.options.dryRun || this.manifest.directories.has(relative)) return;
    this.manifest.directories.add(relative);
    this.manifest.pending?.directories.add(relative);
    this.changed = true;
  }

  /** Directories removed: no longer the seed's, nor any request's. */
  public forgetDirectories(relatives: Iterable<string>): void {
    for (const relative of relatives) {
      this.manifest.directories.delete(relative);
      this.manifest.pending?.directories.delete(relative);
      this.manifest.committed?.directories.delete(relative);
      this.changed = true;
    }
  }

  /** The links the manifest records as written (and still knows). */
  public recordedLinks(): string[] {
    const links: string[] = [];
    for (const [relative, identity] of this.manifest.files) if (identity.startsWith(LINK_IDENTITY)) links.push(relative);
    return links;
  }

  /** A recorded path as a removal checks it: the link it wrote, or the file's identity as written. */
  public writtenEntry(relative: string): Written {
    const source = this.manifest.files.get(relative);
    return { path: relative, identity: source?.startsWith(LINK_IDENTITY) ? source : this.manifest.written.get(relative) };
  }

  /** Whether a checkpoint may be saved now: none under way, and the last save not too recent. */
  private get checkpointAllowed(): boolean {
    return !this.checkpointing && Date.now() - this.lastSave >= Math.max(CHECKPOINT_MIN_MS, this.lastSaveMs * 20);
  }

  /** Saves the manifest as it stands, marked as a run under way, unless a save is under way or one was just made. */
  public async checkpoint(): Promise<void> {
    if (!this.checkpointAllowed || !this.changed || this.options.dryRun || !this.options.state) return;
    this.checkpointing = true;
    try {
      await this.save(true);
    } catch (err) {
      this.options.warn(`a checkpoint of the manifest failed: ${(err as Error).message}`);
    } finally {
      this.checkpointing = false;
    }
  }

  /**
   * Saves what is recorded now, marked as a run under way, before staged directories are published:
   * a run killed once they are at their final names leaves them recorded, for a rollback or a Delete
   * to remove. While files are still being copied, once what the saves took the JS thread so far
   * (building the manifest's body) is within a twentieth of the time since the run began: a small
   * manifest is saved as soon as a directory is done, a large one (seconds to build) in fewer, larger
   * batches of directories; once the copying ended, at once. Their round trips cost the copy nothing
   * and set no turn: a small manifest's save on efs-gp is 15-60 ms of round trips, and twenty times
   * that held most staged directories of a 2,000-file seed to the end of its copying, to be renamed
   * one after another there (0.1-0.2 s of a 0.8 s copy); a save timed while the run's own writes queued
   * ahead of it took 11.6 s on efs-sim, and its successor waited 232 s.
   */
  public async saveRecorded(): Promise<void> {
    if (this.options.dryRun || !this.options.state || !this.changed) return;
    const wait = this.opened + this.saveWorkMs * 20 - Date.now();
    if (wait > 0 && !this.copyingEnded) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.endWait = () => { clearTimeout(timer); resolve(); };
      });
      this.endWait = undefined;
    }
    await this.save(true).catch((err: Error) => this.options.warn(`the manifest could not be saved before directories were published: ${err.message}`));
  }

  /** The run copies nothing more: a save waiting for its turn before directories are published goes now. */
  public endCopying(): void {
    this.copyingEnded = true;
    this.endWait?.();
  }

  /** Saves the manifest once before the first file it records is replaced, marked as a run under way. */
  public markRunning(): Promise<void> {
    this.markedRunning ??= this.manifest.running ? Promise.resolve() : this.save(true);
    return this.markedRunning;
  }

  /** Saves the manifest (one save at a time; the last one wins). */
  public save(running: boolean): Promise<void> {
    const save = this.saving.then(async () => {
      if (this.options.lockLost()) return;
      const started = Date.now();
      this.sinceSave = 0;
      // saveManifest builds the body before its first await: what the save costs the JS thread.
      const saved = this.options.state!.saveManifest(this.manifest, running);
      const work = Date.now() - started;
      await saved;
      this.manifest.running = running;
      this.lastSave = Date.now();
      this.lastSaveMs = this.lastSave - started;
      this.saveWorkMs += work;
    });
    this.saving = save.catch(() => undefined);
    return save;
  }
}
