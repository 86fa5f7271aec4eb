import * as fs from 'fs';
import * as path from 'path';
import { FileSystemCalls } from './file-system-calls';
import { Directory, FD_DIRECTORY } from './held-name';
import { open as openPath } from '../../shared/fs-calls';
import { UnsafeEntryError } from '../../../lib/seed/contract/entry-path';
import { DEFAULT_CONCURRENCY } from '../../../lib/seed/contract/limits';

/**
 * The target as the seed holds it: each directory opened once, relative to its parent's descriptor,
 * never through a link; and every create, write, rename, link, unlink and rmdir in a directory
 * addressed as a HeldName (its descriptor and one name), which FileSystemCalls makes with the native
 * addon on the descriptor itself (held-name-calls.ts), and otherwise through Node, which has no
 * openat, on /proc/self/fd/<fd>/<name>: Linux resolves that path inside the directory the descriptor
 * holds, whatever has been renamed or swapped for a link since. Once the seed holds a directory, no change to the path that led to it
 * can send the seed anywhere else.
 *
 * Descriptors are kept in a bounded cache: a directory no call is using may be closed, and is opened
 * again the same way when it is needed, and refused if what is at its name is no longer the directory
 * it was (another device and inode, read from the descriptor before it is closed: a directory whose
 * descriptor is never closed costs no fstat). A descriptor is pinned while a call uses it: a closed
 * number could be reused by the next open, and a path through it would then lead elsewhere.
 */

/** Opens a directory, never through a link at its last component (the rest is a descriptor of ours). */
export const OPEN_DIRECTORY = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW;


/** What a path below the root is, as far as acting through it goes. */
export type DirectoryState = 'real' | 'missing' | 'not a directory';

/** A directory's identity: what a reopened descriptor must still hold. */
interface Identity { readonly dev: bigint; readonly ino: bigint }

interface Node {
  readonly key: string;
  readonly parent?: Node;
  /** Its name in the parent on disk now (a staging name until it is published). */
  name: string;
  fd?: number;
  /** `fd` as a Directory, made once per descriptor (every copy pins its directory). */
  dir?: Directory;
  pins: number;
  /** What its first descriptor held, read before that descriptor is closed (undefined where fstat failed): what one opened again must hold. */
  identity?: Promise<Identity | undefined>;
  /** Whether it was still at its name under the root, as the check of round `round` found. */
  checked?: { readonly round: number; readonly inPlace: Promise<boolean>; found?: boolean };
  /** Found moved out of the target: nothing more is written there. */
  movedOut?: boolean;
}

/** A directory the run holds was moved out of the target (renamed away by whoever can write its parent). */
export class MovedOutError extends Error {
  constructor(readonly key: string) {
    super(`the directory ${JSON.stringify(key)} was moved out of the target during the run; nothing more written there`);
    this.name = 'MovedOutError';
  }
}

/**
 * Directories kept open that no call uses, at most, for `concurrency` copies at a time under a limit
 * of `openFiles` descriptors: each copy holds up to three (its source, its file, a directory pinned)
 * and 256 stay for the runtime; at most half the limit. Lambda's limit, 1,024, gives 512, which keep
 * an app's tree of 1,100 directories from being opened again and again (a third of the opens a copy
 * of it made with 128); a higher limit (the CLI's, often) up to 4,096, so that none is opened twice.
 */
export function idleDescriptorsFor(concurrency: number, openFiles = openFileLimit()): number {
  return Math.max(Math.min(64, Math.floor(openFiles / 4)), Math.min(4096, openFiles / 2, openFiles - 256 - 3 * concurrency));
}

/**
 * The copies a run can have in flight under a limit of `openFiles` descriptors: each holds up to
 * three, beside Node's own (about 20), each worker thread's (4), the run's own files and the
 * directories kept open (see idleDescriptorsFor). Fewer than `requested` where the limit is low
 * (`ulimit -n 64`), so that files wait for a slot rather than fail with EMFILE.
 */
export function concurrencyFor(requested: number, workers: number, openFiles = openFileLimit()): number {
  const reserved = 40 + 4 * workers + Math.min(64, Math.floor(openFiles / 4));
  return Math.max(1, Math.min(requested, Math.floor((openFiles - reserved) / 3)));
}

/** This process's limit on open descriptors (`ulimit -n`), as /proc tells it; Lambda's where it cannot be read. */
export function openFileLimit(): number {
  try {
    const soft = /^Max open files\s+(\d+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
    return soft ? Number(soft[1]) : LAMBDA_OPEN_FILES;
  } catch {
    return LAMBDA_OPEN_FILES;
  }
}

const LAMBDA_OPEN_FILES = 1024;

/** The target root is the key ''. Keys are relative paths, '/'-separated. */
export class TargetTree {
  /**
   * Opens `root`, a directory the caller names and trusts (it may be reached through links, as
   * /mnt/efs often is), and then `below` part by part, each opened without following a link and
   * made where missing with `create`: the untrusted part of where the seed writes (a sub-path of a
   * Lambda mount, say). Undefined when `create` is false and a part is missing.
   */
  static async open(calls: FileSystemCalls, root: string, below = '', create = false, maxIdle = idleDescriptorsFor(DEFAULT_CONCURRENCY, LAMBDA_OPEN_FILES)): Promise<TargetTree | undefined> {
    // The one path resolved here: the root as the caller names it (through links, as cp would).
    let fd = await openPath(root, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' && !create) return -1;
      throw err.code === 'ENOTDIR' ? new Error(`the target ${root} is not a directory`) : err;
    });
    if (fd < 0) return undefined;
    try {
      if (!calls.byDescriptor) await checkProcFd(calls, fd);
      const made: MadeDirectory[] = [];
      const parts = below.split('/').filter(Boolean);
      for (const [i, part] of parts.entries()) {
        const parent = new Directory(fd);
        const child = await openOrMake(calls, parent, part, create, async (opened) => {
          made.push({ path: parts.slice(0, i + 1).join('/'), ino: String((await calls.fstat(opened)).ino) });
        }).catch((err: NodeJS.ErrnoException) => {
          throw err.code === 'ENOTDIR' || err.code === 'ELOOP'
            ? new UnsafeEntryError(below, `${part} exists on the file system and is not a directory (a symlink is never followed)`) : err;
        });
        await calls.close(fd);
        fd = -1;
        if (child === undefined) return undefined;
        fd = child;
      }
      const tree = new TargetTree(calls, fd, await calls.fstat(fd), below ? path.join(root, below) : root, maxIdle);
      tree.made.push(...made);
      return tree;
    } catch (err) {
      if (fd >= 0) await calls.close(fd).catch(() => undefined);
      throw err;
    }
  }

  /** The directories of the path below the root that this open made (mkdir -p's), outermost first. */
  readonly made: MadeDirectory[] = [];
  private readonly nodes = new Map<string, Node>();
  private readonly finding = new Map<string, Promise<DirectoryState>>();
  /** Open descriptors no call uses, least recently used first. */
  private readonly idle = new Set<Node>();
  readonly root: Directory;
  /** The root's device: a rename from the seed's scratch directories cannot cross to another. */
  readonly device: bigint;
  /** The round of `stillInPlace` checks: each directory is looked at once per round. */
  private round = 0;
  /** The seed's own renames of directories it holds, in flight: a check that raced one looks again. */
  private readonly renames = new Set<Promise<unknown>>();
  private renamesDone = 0;

  /**
   * @param where the target as the caller named it, for messages
   * @param maxIdle descriptors kept open that no call uses, at most
   */
  private constructor(readonly calls: FileSystemCalls, rootFd: number, stats: fs.BigIntStats, readonly where: string, private readonly maxIdle: number) {
    this.root = new Directory(rootFd);
    this.device = stats.dev;
    this.nodes.set('', { key: '', name: '', fd: rootFd, pins: 1 });
  }

  /** Whether the tree knows `key` as a directory (opened, or made, by this run). */
  has(key: string): boolean {
    return this.nodes.has(key);
  }

  /**
   * Opens the directory `name` in the known directory `parentKey` and knows it as `key` from now on
   * (a staged directory is known by its final key under its staging name). Throws ENOTDIR for
   * anything but a real directory (a link included), ENOENT where nothing is there.
   */
  async adopt(key: string, parentKey: string, name: string): Promise<void> {
    if (this.nodes.has(key)) return;
    await this.using(parentKey, (parent) => this.adoptIn(key, parentKey, parent, name));
  }

  /**
   * Makes the directory `name` (with `mode`) in the known directory `parentKey` and adopts it, the
   * parent held once for both; false where something was at the name already (another writer made
   * it meanwhile), which is adopted, or refused, as `adopt` does.
   */
  make(key: string, parentKey: string, name: string, mode: number): Promise<boolean> {
    return this.using(parentKey, async (parent) => {
      const made = await this.calls.mkdir(parent.at(name), mode).then(() => true, (err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
        return false;
      });
      if (!this.nodes.has(key)) await this.adoptIn(key, parentKey, parent, name);
      return made;
    });
  }

  private async adoptIn(key: string, parentKey: string, parent: Directory, name: string): Promise<void> {
    const fd = await this.calls.open(parent.at(name), OPEN_DIRECTORY);
    if (this.nodes.has(key)) {
      await this.calls.close(fd); // adopted meanwhile by another caller
      return;
    }
    const node: Node = { key, parent: this.nodes.get(parentKey)!, name, fd, pins: 0 };
    // Opened just now by its name in its parent: looked at in this round as far as its own name goes
    // (no lstat of it again before its first write); whether its parent is in place is the parent's check.
    this.record(node, this.inPlace(node.parent!));
    this.nodes.set(key, node);
    this.rest(node);
  }

  /**
   * Whether `key` is a real directory below the root, every part of its path one too (each opened
   * without following a link, and known from then on): 'missing' where a part is not there, 'not a
   * directory' where a part is anything else (a symlink included).
   */
  find(key: string): Promise<DirectoryState> {
    if (this.nodes.has(key)) return Promise.resolve('real');
    let found = this.finding.get(key);
    if (!found) {
      const slash = key.lastIndexOf('/');
      const parent = slash < 0 ? '' : key.slice(0, slash);
      found = this.find(parent).then(async (state): Promise<DirectoryState> => {
        if (state !== 'real') return state;
        return this.adopt(key, parent, key.slice(slash + 1)).then((): DirectoryState => 'real', (err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return 'missing';
          if (err.code === 'ENOTDIR' || err.code === 'ELOOP') return 'not a directory';
          throw err;
        });
      });
      this.finding.set(key, found);
      void found.finally(() => this.finding.delete(key)).catch(() => undefined);
    }
    return found;
  }

  /** Runs `rename`, the seed's own rename of the directory `key` to `name` in its parent, and knows it by that name once done. */
  async renaming(key: string, name: string, rename: () => Promise<void>): Promise<void> {
    const done = rename().then(() => { this.nodes.get(key)!.name = name; });
    this.renames.add(done);
    try {
      await done;
    } finally {
      this.renames.delete(done);
      this.renamesDone++;
    }
  }

  /** Starts a new round of `stillInPlace` checks (at each checkpoint of the run): each directory is looked at again, once. */
  newCheckRound(): void {
    this.round++;
  }

  /**
   * Whether the directory `key` is still at its name under the root, every directory on its path too,
   * looked at once per round: from the root down, one name at a time (lstat, which never follows the
   * last name, and each name above was found to be the directory held), each compared by device and
   * inode with what the seed holds; a directory opened in this round (by its name in its parent) was
   * looked at by that open, and only the directories above it are. One found moved out stays so:
   * `pin` refuses it, and below it.
   */
  stillInPlace(key: string): Promise<boolean> {
    const node = this.nodes.get(key);
    return node ? this.inPlace(node) : Promise.resolve(true);
  }

  /**
   * Whether this round's check already found `key` in place (so `stillInPlace` answers true, and every
   * directory above it was found in place in this round too): what a file's copy asks before it waits.
   */
  knownInPlace(key: string): boolean {
    const node = this.nodes.get(key);
    return !node?.parent || (node.checked?.round === this.round && node.checked.found === true);
  }

  /** Throws MovedOutError, naming the outermost, where `key` or a directory above it was found moved out. */
  refuseMovedOut(key: string): void {
    const moved = movedOutAbove(this.nodes.get(key));
    if (moved) throw new MovedOutError(moved.key);
  }

  private inPlace(node: Node): Promise<boolean> {
    if (!node.parent) return Promise.resolve(true);
    if (node.movedOut) return Promise.resolve(false);
    if (node.checked?.round !== this.round) {
      this.record(node, this.inPlace(node.parent).then(async (above) => above && this.atItsName(node)));
    }
    return node.checked!.inPlace;
  }

  /** `inPlace` as `node`'s check of this round; one found moved out stays so. */
  private record(node: Node, inPlace: Promise<boolean>): void {
    const checked: Node['checked'] = { round: this.round, inPlace };
    node.checked = checked;
    void inPlace.then((found) => {
      checked!.found = found;
      if (!found) node.movedOut = true;
    }, () => undefined);
  }

  /** Whether `node`'s name in its parent (found in place) is the directory held; looked at again after a rename of the seed's own that raced it. */
  private async atItsName(node: Node): Promise<boolean> {
    // The first look goes at the same time as the read of what is held (one round trip, not two).
    const firstRenamesBefore = this.renamesDone;
    const first = this.calls.lstatBeneath(this.root.fd, pathOf(node)).catch(() => undefined);
    const held = await this.identityOf(node);
    if (!held) return true; // nothing to compare: openAgain refuses such a directory anyway
    for (let attempt = 0; ; attempt++) {
      const renamesBefore = attempt === 0 ? firstRenamesBefore : this.renamesDone;
      const seen = attempt === 0 ? await first : await this.calls.lstatBeneath(this.root.fd, pathOf(node)).catch(() => undefined);
      if (seen?.isDirectory() && seen.dev === held.dev && seen.ino === held.ino) return true;
      if (attempt >= 3 || (this.renames.size === 0 && this.renamesDone === renamesBefore)) return false;
      await Promise.allSettled([...this.renames]);
    }
  }

  /** What `node` holds: read from its descriptor the first time (held open for the read), else what was read before it was closed. */
  private identityOf(node: Node): Promise<Identity | undefined> {
    if (!node.identity && node.fd !== undefined) {
      this.hold(node);
      node.identity = this.calls.fstat(node.fd).then(({ dev, ino }) => ({ dev, ino }), () => undefined).finally(() => this.release(node));
    }
    return node.identity ?? Promise.resolve(undefined);
  }

  /**
   * Runs `use` with the directory `key` held open (opened again if its descriptor was closed, and
   * refused if what is at its name is no longer the same directory).
   */
  async using<T>(key: string, use: (dir: Directory) => T | Promise<T>): Promise<T> {
    const dir = await this.pin(key);
    try {
      return await use(dir);
    } finally {
      this.unpin(key);
    }
  }

  /** Holds `key`'s descriptor open until `unpin`: for a call that outlives `using`'s scope (a worker thread's). */
  async pin(key: string): Promise<Directory> {
    const node = this.nodes.get(key);
    if (!node) throw new Error(`internal: the directory "${key}" is not known to the target tree`);
    this.refuseMovedOut(key);
    this.hold(node);
    try {
      if (node.fd === undefined) await this.reopen(node);
    } catch (err) {
      this.release(node);
      throw err;
    }
    return this.directoryOf(node);
  }

  private directoryOf(node: Node): Directory {
    if (node.dir?.fd !== node.fd) node.dir = new Directory(node.fd!);
    return node.dir!;
  }

  /** `pin` with nothing to wait for: `key`'s directory held, if its descriptor is open; else undefined (nothing held). */
  pinIfOpen(key: string): Directory | undefined {
    const node = this.nodes.get(key);
    if (node?.fd === undefined || movedOutAbove(node)) return undefined; // `pin` refuses it
    this.hold(node);
    return this.directoryOf(node);
  }

  unpin(key: string): void {
    this.release(this.nodes.get(key)!);
  }

  /** Forgets `key` (removed from the target: what was below it is forgotten first), closing its descriptor. */
  forget(key: string): void {
    const node = this.nodes.get(key);
    if (!node) return;
    this.nodes.delete(key);
    this.idle.delete(node);
    if (node.fd !== undefined && node.pins === 0) void this.calls.close(node.fd).catch(() => undefined);
  }

  /** Closes every descriptor: the tree is not used again. */
  async close(): Promise<void> {
    const fds = [...this.nodes.values()].map((n) => n.fd).filter((fd): fd is number => fd !== undefined);
    this.nodes.clear();
    this.idle.clear();
    await Promise.all(fds.map((fd) => this.calls.close(fd).catch(() => undefined)));
  }

  private hold(node: Node): void {
    node.pins++;
    this.idle.delete(node);
  }

  private release(node: Node): void {
    if (--node.pins === 0) this.rest(node);
  }

  /** An open descriptor no call uses is kept for the next, up to the bound; beyond it the oldest is closed. */
  private rest(node: Node): void {
    if (node.pins > 0 || node.fd === undefined || !this.nodes.has(node.key)) return;
    this.idle.add(node);
    if (this.idle.size <= this.maxIdle) return;
    for (const oldest of this.idle) {
      if (this.idle.size <= this.maxIdle) break;
      this.idle.delete(oldest);
      this.retire(oldest);
    }
  }

  /** Closes `node`'s descriptor, the first time once its identity is read from it. */
  private retire(node: Node): void {
    const fd = node.fd!;
    node.fd = undefined;
    const close = () => this.calls.close(fd).catch(() => undefined);
    if (node.identity) {
      void close();
      return;
    }
    node.identity = this.calls.fstat(fd).then(({ dev, ino }) => ({ dev, ino }), () => undefined);
    void node.identity.then(close);
  }

  /**
   * Opens `node` again: from its nearest ancestor still open, down one directory at a time, each
   * checked to be the directory it was (two descriptors held at a time, however deep).
   */
  private async reopen(node: Node): Promise<void> {
    const chain: Node[] = [node];
    let current = node.parent!;
    while (current.fd === undefined) {
      chain.unshift(current);
      current = current.parent!;
    }
    this.hold(current);
    try {
      for (const next of chain) {
        if (next.fd === undefined) next.fd = await this.openAgain(new Directory(current.fd!), next);
        if (next !== node) this.hold(next); // `node` is held by the caller
        this.release(current);
        current = next;
      }
    } catch (err) {
      if (current !== node) this.release(current);
      throw err;
    }
  }

  private async openAgain(parent: Directory, node: Node): Promise<number> {
    const was = await node.identity;
    if (!was) throw new UnsafeEntryError(node.key, 'could not be opened again: its first descriptor could not be read (fstat) before it was closed');
    const fd = await this.calls.open(parent.at(node.name), OPEN_DIRECTORY).catch((err: NodeJS.ErrnoException) => {
      throw new UnsafeEntryError(node.key, `is no longer a directory on the target (${err.code}): it was replaced during the seed`);
    });
    const stats = await this.calls.fstat(fd).catch(async (err) => {
      await this.calls.close(fd).catch(() => undefined);
      throw err;
    });
    if (stats.dev !== was.dev || stats.ino !== was.ino) {
      await this.calls.close(fd).catch(() => undefined);
      throw new UnsafeEntryError(node.key, 'was replaced by another directory during the seed; run the seed again');
    }
    return fd;
  }
}

/** The outermost directory found moved out, of `node` and those above it. */
function movedOutAbove(node: Node | undefined): Node | undefined {
  let moved: Node | undefined;
  for (let at = node; at; at = at.parent) if (at.movedOut) moved = at;
  return moved;
}

/** `node`'s path below the root, by the names it has on disk now. */
function pathOf(node: Node): string {
  const names: string[] = [];
  for (let at: Node | undefined = node; at?.parent; at = at.parent) names.unshift(at.name);
  return names.join('/');
}

/** Opens `name` in `parent` as a directory, making it first with `create`; undefined where it is missing and not made. */
async function openOrMake(calls: FileSystemCalls, parent: Directory, name: string, create: boolean, onMade: (fd: number) => Promise<void>): Promise<number | undefined> {
  try {
    return await calls.open(parent.at(name), OPEN_DIRECTORY);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    if (!create) return undefined;
  }
  const made = await calls.mkdir(parent.at(name), 0o755).then(() => true, (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
    return false;
  });
  const fd = await calls.open(parent.at(name), OPEN_DIRECTORY);
  if (made) await onMade(fd).catch(async (err) => {
    await calls.close(fd).catch(() => undefined);
    throw err;
  });
  return fd;
}

/** A directory the seed made on the way to its place: its path below the mount, and its inode (that it is still the one made). */
export interface MadeDirectory {
  readonly path: string;
  readonly ino: string;
}

let procFdChecked = false;

/**
 * The seed needs Linux's /proc/self/fd to be this process's table: without it no operation could be
 * tied to a directory it holds. Checked once per process, on the first root it opens (the source's
 * or the target's): its path through
 * /proc/self/fd must lead to what fstat says the descriptor holds.
 */
export async function checkProcFd(calls: FileSystemCalls, fd: number): Promise<void> {
  if (procFdChecked) return;
  const held = await calls.fstat(fd);
  let seen: fs.BigIntStats | undefined;
  try {
    seen = fs.statSync(new Directory(fd).path, { bigint: true });
  } catch {
    // Missing, or another process's table (EACCES): refused below.
  }
  if (seen?.dev !== held.dev || seen.ino !== held.ino) {
    throw new Error(`the seed needs Linux's /proc/self/fd to show its own descriptors (it writes relative to directories it holds open, through ${FD_DIRECTORY}), `
      + 'and here it does not: /proc is missing or belongs to another pid namespace; run it with /proc mounted for its own (unshare --mount-proc, say)');
  }
  procFdChecked = true;
}
