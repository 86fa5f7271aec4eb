import * as fs from 'fs';
import { HeldName } from './held-name';
import { NameBigIntStats, NameStats } from './name-stats';
import { AtOp as Op, AtOutcome, NativeAddon, sharedNativeAddon, systemError } from './native-writer';

const SYSCALLS = ['mkdir', 'unlink', 'rmdir', 'rename', 'link', 'symlink', 'readlink', 'utime', 'scandir', 'close', 'lstat'];


const DirentOf = fs.Dirent as unknown as new (name: string, type: number) => fs.Dirent;

let shared: HeldNameCalls | null | undefined;

/**
 * The calls on a name in a directory the seed holds (the target's, and a source directory's
 * listing), made by the native addon on the directory's descriptor: an open or create by openat2 with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS (by openat with O_NOFOLLOW where
 * openat2 is refused: see open-beneath.ts), the rest by mkdirat, unlinkat, renameat, linkat,
 * symlinkat, readlinkat, utimensat, statx (lstat: AT_SYMLINK_NOFOLLOW, no descriptor) and a listing
 * of the descriptor (native/at-calls.c). No path through /proc/self/fd is resolved: FileSystemCalls
 * makes Node's calls on those paths only where the addon is not there. A descriptor the addon opened is closed by it
 * (Node, in a worker thread, warns of a close of one its own calls did not open).
 */
export class HeldNameCalls {
  /** This thread's, or null where the addon is not built or does not load. */
  static shared(): HeldNameCalls | null {
    if (shared === undefined) {
      const addon = sharedNativeAddon();
      shared = addon && new HeldNameCalls(addon);
    }
    return shared;
  }

  /** Descriptors the addon opened in this thread and not yet closed. */
  private readonly opened = new Set<number>();
  /** What lstatSync's calls fill (see NameStats). */
  private readonly numbers = new Float64Array(NameStats.FIELDS);
  private readonly bigints = new BigInt64Array(NameBigIntStats.FIELDS);

  constructor(private readonly addon: NativeAddon) {}

  /** Whether `fd` is one this opened (and so one it closes). */
  owns(fd: number): boolean {
    return this.opened.has(fd);
  }

  openSync(at: HeldName, flags: number, mode = 0o666): number {
    return this.adopt(at, this.addon.openBeneathSync(at.dirFd, at.name, flags, mode));
  }

  async open(at: HeldName, flags: number, mode = 0o666): Promise<number> {
    return this.adopt(at, await this.addon.openBeneath(at.dirFd, at.name, flags, mode));
  }

  closeSync(fd: number): void {
    this.opened.delete(fd);
    // The addon's plain close: no job to make for it, as atCallSync would.
    this.outcome(this.addon.closeBeneath(fd), Op.CLOSE);
  }

  /** On the thread pool: a close on NFS sends what is still unwritten. */
  async close(fd: number): Promise<void> {
    this.opened.delete(fd);
    this.outcome(await this.addon.atCall(Op.CLOSE, fd, '', -1, '', 0), Op.CLOSE);
  }

  mkdirSync(at: HeldName, mode: number): void {
    this.callSync(Op.MKDIR, at, undefined, mode);
  }

  async mkdir(at: HeldName, mode: number): Promise<void> {
    await this.call(Op.MKDIR, at, undefined, mode);
  }

  unlinkSync(at: HeldName): void {
    this.callSync(Op.UNLINK, at);
  }

  async unlink(at: HeldName): Promise<void> {
    await this.call(Op.UNLINK, at);
  }

  rmdirSync(at: HeldName): void {
    this.callSync(Op.RMDIR, at);
  }

  async rmdir(at: HeldName): Promise<void> {
    await this.call(Op.RMDIR, at);
  }

  renameSync(from: HeldName, to: HeldName): void {
    this.callSync(Op.RENAME, from, to);
  }

  async rename(from: HeldName, to: HeldName): Promise<void> {
    await this.call(Op.RENAME, from, to);
  }

  linkSync(existing: HeldName, at: HeldName): void {
    this.callSync(Op.LINK, existing, at);
  }

  async link(existing: HeldName, at: HeldName): Promise<void> {
    await this.call(Op.LINK, existing, at);
  }

  symlinkSync(linkTarget: string, at: HeldName): void {
    this.callSync(Op.SYMLINK, at, linkTarget);
  }

  async symlink(linkTarget: string, at: HeldName): Promise<void> {
    await this.call(Op.SYMLINK, at, linkTarget);
  }

  readlinkSync(at: HeldName): string {
    return this.callSync(Op.READLINK, at) as string;
  }

  async readlink(at: HeldName): Promise<string> {
    return await this.call(Op.READLINK, at) as string;
  }

  /** Sets a name's times, never a link's target's (utimensat with AT_SYMLINK_NOFOLLOW). */
  utimesSync(at: HeldName, time: Date): void {
    this.callSync(Op.UTIMES, at, undefined, time.getTime());
  }

  async utimes(at: HeldName, time: Date): Promise<void> {
    await this.call(Op.UTIMES, at, undefined, time.getTime());
  }

  /** The entries of the directory `dir` (a held name with no name) holds. */
  readdirSync(dir: HeldName): fs.Dirent[] {
    return direntsOf(this.callSync(Op.READDIR, dir) as Array<string | number>);
  }

  async readdir(dir: HeldName): Promise<fs.Dirent[]> {
    return direntsOf(await this.call(Op.READDIR, dir) as Array<string | number>);
  }

  /** lstat: statx of the name itself in its directory (AT_SYMLINK_NOFOLLOW): one call, no descriptor. */
  lstatSync(at: HeldName): fs.Stats;
  lstatSync(at: HeldName, options: { bigint: true }): fs.BigIntStats;
  lstatSync(at: HeldName, options?: { bigint: true }): fs.Stats | fs.BigIntStats {
    // Filled in place, as Node's lstatSync fills one array: no allocation per call but the stats.
    const into = options?.bigint ? this.bigints : this.numbers;
    this.outcome(this.addon.atCallSync(Op.LSTAT, at.dirFd, at.name, -1, into, options?.bigint ? 1 : 0), Op.LSTAT, at);
    return statsOf(into, options);
  }

  async lstat(at: HeldName): Promise<fs.Stats>;
  async lstat(at: HeldName, options: { bigint: true }): Promise<fs.BigIntStats>;
  async lstat(at: HeldName, options?: { bigint: true }): Promise<fs.Stats | fs.BigIntStats> {
    return statsOf(await this.call(Op.LSTAT, at, undefined, options?.bigint ? 1 : 0), options);
  }

  private adopt(at: HeldName, fd: number): number {
    if (fd < 0) throw systemError(-fd, 'open', at.path);
    this.opened.add(fd);
    return fd;
  }

  private callSync(op: Op, at: HeldName, other?: HeldName | string, value = 0): AtOutcome {
    return this.outcome(this.addon.atCallSync(op, at.dirFd, at.name, otherFd(other), otherName(other), value), op, at, other);
  }

  private async call(op: Op, at: HeldName, other?: HeldName | string, value = 0): Promise<AtOutcome> {
    return this.outcome(await this.addon.atCall(op, at.dirFd, at.name, otherFd(other), otherName(other), value), op, at, other);
  }

  /** The outcome, or Node's own error for it: `EEXIST: file already exists, mkdir '<path>'` (rename and link name both paths). */
  private outcome(outcome: AtOutcome, op: Op, at?: HeldName, other?: HeldName | string): AtOutcome {
    if (typeof outcome !== 'number' || outcome >= 0) return outcome;
    const error = systemError(-outcome, SYSCALLS[op], at?.path);
    if (typeof other === 'object') Object.assign(error, { dest: other.path, message: `${error.message} -> '${other.path}'` });
    throw error;
  }
}

const otherFd = (other?: HeldName | string) => typeof other === 'object' ? other.dirFd : -1;
const otherName = (other?: HeldName | string) => typeof other === 'object' ? other.name : other ?? '';

function direntsOf(flat: Array<string | number>): fs.Dirent[] {
  const dirents: fs.Dirent[] = [];
  for (let i = 0; i < flat.length; i += 2) dirents.push(new DirentOf(flat[i] as string, flat[i + 1] as number));
  return dirents;
}

function statsOf(raw: AtOutcome, options?: { bigint: true }): fs.Stats | fs.BigIntStats {
  return options?.bigint ? new NameBigIntStats(raw as BigInt64Array) : new NameStats(raw as Float64Array);
}
