import * as fs from 'fs';
import * as path from 'path';
import { DEFAULT_DIRECTORY_MODE } from '../sources/entry';
import { UnsafeEntryError } from '../../../lib/seed/contract/entry-path';
import { FileSystemCalls } from '../boundary/file-system-calls';
import { removeTree } from './removal';
import { ReservedKind, reservedName, stagedAs, stagingName } from '../state/reserved-names';
import { MadeProof, NotProven, proveMade, RunToken } from '../state/run-tokens';
import { STATE_DIR } from '../state/state-directory';
import { TargetTree } from '../boundary/target-tree';

/**
 * The target's directories: listed once each, made once each (parents first, new ones under a
 * staging name), swept of an interrupted run's temporary files before the first write, and the
 * staged ones published (renamed into place) once filled.
 */

/** A target directory's entries by name; empty where the directory could not be read. */
export type Listing = ReadonlyMap<string, fs.Dirent>;

/**
 * The target's directories, each listed at most once per run (by where it is on disk), and only
 * where it existed before the run: the listing tells which unchanged entries are still there, which
 * subdirectories exist (no lookup each) and which temporary files an interrupted run left. Only a
 * seed writes through its temporary names, so a name that is there is a whole file. The listing is
 * taken before this run writes into the directory (every write waits for the sweep, which waits for it).
 */
export class TargetListings {
  private readonly listings = new Map<string, Promise<Listing>>();
  /** Entries with the seed's reserved names seen in the listings, as [directory key, name] (see DirectoryMaker). */
  readonly reserved: Array<[string, string]> = [];
  /** Staging directories with a token seen in the listings, by directory key, then by what they are staged as (see stagedAs). */
  readonly staged = new Map<string, Map<string, string[]>>();
  /** Directories below the root that hold a seed's state directory: other seeds' places. */
  readonly places = new Set<string>();

  constructor(private readonly tree: TargetTree) {}

  /** The listing of the directory `key` (known to the tree). */
  list(key: string): Promise<Listing> {
    let listing = this.listings.get(key);
    if (!listing) {
      listing = this.tree.using(key, (dir) => this.tree.calls.readdir(dir.self)).then((dirents) => {
        for (const d of dirents) {
          const reserved = reservedName(d.name);
          if (reserved) this.reserved.push([key, d.name]);
          if (reserved?.kind === 'staging' && reserved.stagedAs !== undefined && d.isDirectory()) {
            const here = this.staged.get(key) ?? new Map<string, string[]>();
            here.set(reserved.stagedAs, [...here.get(reserved.stagedAs) ?? [], d.name]);
            this.staged.set(key, here);
          }
          else if (d.name === STATE_DIR && key !== '') this.places.add(key);
        }
        return new Map(dirents.map((d) => [d.name, d]));
      }, () => new Map<string, fs.Dirent>());
      this.listings.set(key, listing);
    }
    return listing;
  }

  /** Settles once every listing asked for so far has. */
  async settled(): Promise<void> {
    await Promise.all(this.listings.values());
  }
}

/** The target root is '' ('.' as path.posix.dirname gives it for top-level files). */
export const keyOf = (relative: string) => (relative === '.' ? '' : relative);

/** A directory this run made (or an interrupted run began) under a staging name, to rename into place once filled. */
interface Unpublished { readonly relative: string; readonly parent: string; readonly staged: string; readonly final: string; withheld?: string; publishing?: Promise<void> }

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
 *
 * Only what the seed can prove it made is adopted or removed (its run token recorded, see
 * run-tokens.ts): any other entry with a reserved name is left alone and reported.
 */
export interface DirectoryMakerOptions {
  readonly tree: TargetTree;
  readonly listings: TargetListings;
  readonly dryRun: boolean;
  /** Make new directories under a staging name (a seed that owns its target). */
  readonly staging: boolean;
  /** Owner of made directories. @default the process's */
  readonly uid?: number;
  readonly gid?: number;
  /** Records a directory that could not be published. */
  readonly fail: (relative: string, err: unknown) => void;
  /** Told of each directory a seed made (this run, or an interrupted one under a staging name): only those are ever removed. */
  readonly made: (relative: string) => void;
  /** This run's token, in its staging names (recorded before the first is made). */
  readonly runToken: RunToken;
  /** What proves an entry with a reserved name a seed's (none for workers sharing a target: nothing is then removed). */
  readonly proof: MadeProof;
  /** Told of each entry with a reserved name left alone: the seed cannot prove it made it. */
  readonly leftAlone: (entry: NotProven) => void;
}

export class DirectoryMaker {
  private readonly making = new Map<string, Promise<void>>();
  private readonly modes = new Map<string, number>();
  private readonly existing = new Set<string>(['']);
  /** Directories no reader sees yet: the staged ones and everything below them. */
  private readonly hidden = new Map<string, Unpublished>();
  private readonly swept = new Map<string, Promise<void>>();
  /** Set when a leftover the seed made could not be removed: its token must stay recorded. */
  private leftoversRemain = false;

  private readonly tree: TargetTree;
  private readonly calls: FileSystemCalls;
  private readonly listings: TargetListings;
  private readonly dryRun: boolean;
  private readonly staging: boolean;

  constructor(private readonly options: DirectoryMakerOptions) {
    ({ tree: this.tree, listings: this.listings, dryRun: this.dryRun, staging: this.staging } = options);
    this.calls = this.tree.calls;
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

  /** Whether `relative` (made already) is not published yet: a file in it needs no temporary name. */
  unpublished(relative: string): boolean {
    return this.hidden.has(keyOf(relative));
  }

  /** After a failed write in place of `file` (its name `name`): a file still there (its removal failed too) keeps `directory` unpublished. */
  async withholdIfLeft(directory: string, file: string, name: string): Promise<void> {
    const key = keyOf(directory);
    const left = await this.tree.using(key, (dir) => this.calls.lstat(dir.at(name))).then(() => true, () => false);
    if (left) this.hidden.get(key)!.withheld = file;
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
   * removes, until `deadline`, what interrupted runs left in the directories listed that this run did
   * not adopt or sweep (the source no longer has them), where it can prove a seed made it.
   * @returns whether every such leftover is gone (else its token stays recorded)
   */
  async publish(deadline = Infinity): Promise<boolean> {
    const staged = [...new Set(this.hidden.values())];
    await Promise.all(staged.map((u) => {
      if (u.withheld) {
        this.options.fail(u.relative, new Error(`not published: ${u.withheld} failed and its partial file could not be removed; run the seed again`));
        return undefined;
      }
      return u.publishing ?? this.rename(u);
    }));
    const adopted = new Set(staged.map((u) => `${u.parent}/${u.staged}`));
    await this.listings.settled();
    const leftovers = this.listings.reserved.filter(([parent, name]) => !adopted.has(`${parent}/${name}`) && !(reservedName(name)?.kind === 'temporary' && this.swept.has(parent)));
    // Within the run's deadline: what is left then, the next run removes.
    await Promise.all(leftovers.map(async ([parent, name]) => {
      const made = await this.prove(parent, name);
      if (made === 'staging') await removeTree(this.tree, parent, name, deadline).catch(() => { this.leftoversRemain = true; });
      else if (made === 'temporary') await this.tree.using(parent, (dir) => this.calls.unlink(dir.at(name))).catch(() => { this.leftoversRemain = true; });
    }));
    return !this.leftoversRemain && Date.now() < deadline;
  }

  /** Whether a seed made `name` in `parent`: its kind if so; else it is reported as left alone. */
  private async prove(parent: string, name: string): Promise<ReservedKind | undefined> {
    const made = await proveMade(this.tree, parent, name, this.options.proof).catch((err: Error) => ({ path: `${parent}/${name}`, why: err.message }));
    if (typeof made === 'string') return made;
    this.options.leftAlone(made);
    return undefined;
  }

  private async rename(u: Unpublished): Promise<void> {
    // rename() replaces an empty directory made meanwhile; one with content stops it.
    await this.tree.using(u.parent, (dir) => this.tree.renaming(u.relative, u.final, () => this.calls.rename(dir.at(u.staged), dir.at(u.final)))).then(
      () => undefined,
      (err: NodeJS.ErrnoException) => this.options.fail(u.relative, ['ENOTEMPTY', 'EEXIST', 'ENOTDIR', 'EISDIR'].includes(err.code ?? '')
        ? new Error(`appeared on the target during the seed; the seed's copy is left in ${u.staged}, and the next run writes into it`)
        : err));
  }

  private remember(relative: string, promise: Promise<void>): Promise<void> {
    this.making.set(relative, promise);
    return promise;
  }

  private async create(relative: string): Promise<void> {
    const parent = keyOf(path.posix.dirname(relative));
    await this.make(parent);
    const name = path.posix.basename(relative);
    const parentHidden = this.hidden.get(parent);
    const stage = this.staging && !parentHidden;
    // A listing shares the parent's lock, while a mkdir holds it alone even when the directory exists:
    // on a re-run a mkdir each would queue them one by one.
    const listing = this.existing.has(parent) ? await this.listings.list(parent) : undefined;
    const dirent = listing?.get(name);
    if (dirent) {
      this.refuseUnlessDirectory(relative, dirent);
      await this.adopt(relative, parent, name);
      this.existing.add(relative);
      if (parentHidden) {
        // Inside a staging directory: an interrupted seed made it.
        this.hidden.set(relative, parentHidden);
        this.options.made(relative);
      }
      return;
    }
    const onDisk = stage ? stagingName(this.options.runToken.token, name) : name;
    const begun = stage && listing ? await this.adoptBegun(relative, parent, name) : undefined;
    if (begun) {
      // An interrupted run's staging directory, which a seed provably made: go on filling it.
      this.existing.add(relative);
      this.options.made(relative);
    } else if (this.dryRun) {
      return; // nothing below it exists either
    } else if (await (stage ? this.options.runToken.recorded() : Promise.resolve()).then(() => this.mkdir(relative, parent, onDisk))) {
      this.options.made(relative);
    } else if (stage) {
      // This run's token is new: whoever made that name did it to be adopted.
      throw new UnsafeEntryError(relative, `was not made: ${onDisk} appeared on the target under this run's own staging name, which the seed did not make; it is left alone, remove it and run the seed again`);
    }
    const unpublished = stage ? { relative, parent, staged: begun ?? onDisk, final: name } : parentHidden;
    // Only a directory made (or adopted) is ever published.
    if (unpublished) this.hidden.set(relative, unpublished);
  }

  /**
   * Adopts as `relative` the staging directory of `name` an interrupted run left in `parent`, where a
   * seed provably made it (its token recorded, its owner one the seed gives); its staging name, if so.
   */
  private async adoptBegun(relative: string, parent: string, name: string): Promise<string | undefined> {
    const { proof } = this.options;
    for (const staged of this.listings.staged.get(parent)?.get(stagedAs(this.options.runToken.token, name)) ?? []) {
      if (!proof.tokens.records(reservedName(staged)?.token, 'staging')) continue;
      await this.adopt(relative, parent, staged);
      const { uid } = await this.tree.using(relative, (dir) => this.calls.fstat(dir.fd));
      if (proof.owners.has(Number(uid))) return staged;
      this.tree.forget(relative);
    }
    return undefined;
  }

  /** Opens what is at `name` in `parent` as the directory `relative`: never through a link, never anything but a directory. */
  private async adopt(relative: string, parent: string, name: string): Promise<void> {
    await this.tree.adopt(relative, parent, name).catch((err) => refuseUnlessDirectoryOpened(relative, err));
  }

  /** Makes the directory and opens it; false where another writer made it meanwhile (Distributed Map workers share a target). */
  private async mkdir(relative: string, parent: string, name: string): Promise<boolean> {
    const mode = this.modes.get(relative) ?? DEFAULT_DIRECTORY_MODE;
    const made = await this.tree.make(relative, parent, name, mode).catch((err) => refuseUnlessDirectoryOpened(relative, err));
    if (!made) {
      this.existing.add(relative);
      return false;
    }
    if (this.options.uid !== undefined || this.options.gid !== undefined) {
      // Through the descriptor: whatever is at the name now, the directory made is the one changed.
      await this.tree.using(relative, (dir) => this.calls.fchown(dir.fd, this.options.uid ?? -1, this.options.gid ?? -1));
    }
    return true;
  }

  private refuseUnlessDirectory(relative: string, found: fs.Dirent): void {
    if (!found.isDirectory()) throw notADirectory(relative);
  }

  /** Removes the temporary files an interrupted run left in `relative`, where a seed provably made them. */
  private async sweep(relative: string): Promise<void> {
    const names = [...(await this.listings.list(relative)).keys()].filter((n) => reservedName(n)?.kind === 'temporary');
    await Promise.all(names.map(async (n) => {
      if (await this.prove(relative, n) !== 'temporary') return;
      await this.tree.using(relative, (dir) => this.calls.unlink(dir.at(n))).catch(() => { this.leftoversRemain = true; });
    }));
  }
}

const notADirectory = (relative: string) => new UnsafeEntryError(relative, 'exists on the target and is not a directory (a symlink is never followed)');

/** An open of `relative` that failed because something other than a directory is there (a link included) is refused as such. */
function refuseUnlessDirectoryOpened(relative: string, err: NodeJS.ErrnoException): never {
  throw err.code === 'ENOTDIR' || err.code === 'ELOOP' ? notADirectory(relative) : err;
}
