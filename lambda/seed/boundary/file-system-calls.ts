import * as fs from 'fs';
import { performance } from 'perf_hooks';
import { close, fchmod, fchown, fstat, fsync, futimes, link, lutimes, lstat, mkdir, open, read, readdir, readlink, rename, rmdir, symlink, unlink, write } from '../../shared/fs-calls';
import { HeldName } from './held-name';
import { HeldNameCalls } from './held-name-calls';
import { BeneathOpener } from './open-beneath';
import { NativeWriter } from './native-writer';

/**
 * This many slow calls, once they are more than one call in a hundred, mean the file system is slow.
 * Fewer are not evidence: a run's first calls (the lock, the state directory, functions not yet
 * compiled) and a garbage collection inside a call's JavaScript each take a few hundred microseconds
 * on tmpfs, and a switch on them doubled a small-file copy's CPU in most runs (2.5 CPU-s instead of
 * 1.2 for 11,000 files). On EFS every call is slow: eight round trips are a few milliseconds.
 */
const SLOW_CALLS = 8;
const SLOW_SHARE = 0.01;

/** O_PATH (Linux, the same on x64 and arm64; Node does not export it): a name opened itself, for fstat. */
const O_PATH = 0o10000000;

/**
 * A run's first calls are all timed, so a file system slow from the start (EFS) is found within its
 * first few calls. After them, one call in TIMED_EVERY is: timing every call cost a small-file copy
 * on tmpfs about 2% of its CPU. A prime, so that no fixed cycle of calls per file (open, write, fstat,
 * close) has the same one of them timed every time.
 */
const TIMED_FIRST = 2048;
const TIMED_EVERY = 61;

/**
 * One file system's calls, as the seed makes them (it keeps one for its source and one for its
 * target): synchronous while they take microseconds (the page cache, tmpfs), because handing each to
 * libuv's thread pool costs the JS thread 10-25 us (a queue lock and a thread woken), more than the
 * call itself, and that thread is what limits a small-file copy. Once slow calls are not rare (a cold
 * disk; a network mount such as EFS, where a write to the page cache still takes microseconds
 * between an open and a close that take milliseconds), every later call goes to the thread pool,
 * where many run at once and hide the round trips: a slow file system stalls the copy for a few
 * milliseconds at most, and a page fault or the scheduler now and then changes nothing.
 * CDK_EFS_KIT_SYNC_CALLS=0 sends every call to the thread pool from the start.
 */
export class FileSystemCalls {
  /** A source's call slower than this did not come from memory (a cold disk, the network). */
  static readonly SOURCE = 1000;
  /**
   * A target's call slower than this is better made on the thread pool, beside others, than waited
   * for: it costs the JS thread a hop (10-25 us) either way, and a FUSE or network round trip hides
   * behind other calls there.
   */
  static readonly TARGET = 100;

  private readonly slowCallMs: number;
  private calls = 0;
  private timedCalls = 0;
  private slow = 0;
  private async = process.env.CDK_EFS_KIT_SYNC_CALLS === '0';

  /**
   * @param slowCallMicros a call slower than this counts as slow (FileSystemCalls.SOURCE or .TARGET)
   * @param native what writes a small new file in one trip to the thread pool once calls go there
   *   (null where the addon is not built, or to make the calls one by one)
   * @param held what makes a call on a name in a directory the seed holds on that directory's
   *   descriptor, so that no /proc path is resolved (null where the addon is not built: Node's calls
   *   on the name's path through /proc/self/fd, which Linux resolves inside the directory as well)
   */
  constructor(slowCallMicros: number, readonly native: NativeWriter | null = NativeWriter.shared(), private readonly held: HeldNameCalls | null = HeldNameCalls.shared()) {
    this.slowCallMs = slowCallMicros / 1000;
  }

  /** Whether a call on a name in a held directory is made on its descriptor (the addon), not on a path through /proc/self/fd. */
  get byDescriptor(): boolean {
    return this.held !== null;
  }

  /** Whether calls still run synchronously. */
  get fast(): boolean {
    return !this.async;
  }

  /** The synchronous call's value while calls are fast (no promise to settle), else the asynchronous call's promise. */
  run<T>(syncCall: () => T, asyncCall: () => Promise<T>): T | Promise<T> {
    return this.async ? asyncCall() : this.now(syncCall);
  }

  /**
   * The synchronous call, timed and counted as `run`'s are: for a caller that saw `fast` and makes a
   * few calls in a row with nothing to wait for between them.
   */
  now<T>(syncCall: () => T): T {
    return ++this.calls <= TIMED_FIRST || this.calls % TIMED_EVERY === 0 ? this.timed(syncCall) : syncCall();
  }

  private timed<T>(syncCall: () => T): T {
    const started = performance.now();
    try {
      return syncCall();
    } finally {
      this.timedCalls++;
      if (performance.now() - started > this.slowCallMs && ++this.slow >= SLOW_CALLS && this.slow > this.timedCalls * SLOW_SHARE) this.async = true;
    }
  }

  /** `run`, always as a promise (a synchronous failure becomes a rejection). */
  call<T>(syncCall: () => T, asyncCall: () => Promise<T>): Promise<T> {
    try {
      const value = this.run(syncCall, asyncCall);
      return isPromise(value) ? value : Promise.resolve(value);
    } catch (err) {
      return Promise.reject(err);
    }
  }


  open(at: HeldName, flags: number, mode?: number): Promise<number> {
    if (this.held) return this.call(() => this.held!.openSync(at, flags, mode), () => this.held!.open(at, flags, mode));
    return this.call(() => fs.openSync(at.path, flags, mode), () => open(at.path, flags, mode));
  }

  /** open, now: for a caller that saw `fast`. */
  openSync(at: HeldName, flags: number, mode?: number): number {
    return this.now(() => this.held ? this.held.openSync(at, flags, mode) : fs.openSync(at.path, flags, mode));
  }

  close(fd: number): Promise<void> {
    if (this.held?.owns(fd)) return this.call(() => this.held!.closeSync(fd), () => this.held!.close(fd));
    return this.call(() => fs.closeSync(fd), () => close(fd));
  }

  closeSync(fd: number): void {
    this.now(() => this.held?.owns(fd) ? this.held.closeSync(fd) : fs.closeSync(fd));
  }

  write(fd: number, buffer: Buffer, offset = 0, length = buffer.length): Promise<number> {
    return this.call(() => fs.writeSync(fd, buffer, offset, length, null), () => write(fd, buffer, offset, length));
  }

  read(fd: number, buffer: Buffer, position: number): Promise<number> {
    return this.call(() => fs.readSync(fd, buffer, 0, buffer.length, position), () => read(fd, buffer, position));
  }

  fchown(fd: number, uid: number, gid: number): Promise<void> {
    return this.call(() => fs.fchownSync(fd, uid, gid), () => fchown(fd, uid, gid));
  }

  futimes(fd: number, time: Date): Promise<void> {
    return this.call(() => fs.futimesSync(fd, time, time), () => futimes(fd, time, time));
  }

  rename(from: HeldName, to: HeldName): Promise<void> {
    if (this.held) return this.call(() => this.held!.renameSync(from, to), () => this.held!.rename(from, to));
    return this.call(() => fs.renameSync(from.path, to.path), () => rename(from.path, to.path));
  }

  unlink(at: HeldName): Promise<void> {
    if (this.held) return this.call(() => this.held!.unlinkSync(at), () => this.held!.unlink(at));
    return this.call(() => fs.unlinkSync(at.path), () => unlink(at.path));
  }

  unlinkSync(at: HeldName): void {
    this.now(() => this.held ? this.held.unlinkSync(at) : fs.unlinkSync(at.path));
  }

  symlink(linkTarget: string, at: HeldName): Promise<void> {
    if (this.held) return this.call(() => this.held!.symlinkSync(linkTarget, at), () => this.held!.symlink(linkTarget, at));
    return this.call(() => fs.symlinkSync(linkTarget, at.path), () => symlink(linkTarget, at.path));
  }

  mkdir(at: HeldName, mode: number): Promise<void> {
    if (this.held) return this.call(() => this.held!.mkdirSync(at, mode), () => this.held!.mkdir(at, mode));
    return this.call(() => { fs.mkdirSync(at.path, mode); }, async () => { await mkdir(at.path, mode); });
  }

  lstat(at: HeldName): Promise<fs.Stats> {
    return this.call(() => this.lstatSync(at), () => this.lstatAsync(at));
  }

  /** lstat as `run` makes it: no promise while calls are fast. */
  lstatRun(at: HeldName): fs.Stats | Promise<fs.Stats> {
    return this.run(() => this.lstatSync(at), () => this.lstatAsync(at));
  }

  /**
   * lstat of `relative` ('a/b/c') beneath the directory `dirFd` holds, resolved as BeneathOpener
   * resolves it (no link at any component, nothing above `dirFd`): the name itself opened (O_PATH |
   * O_NOFOLLOW) and fstat'ed.
   */
  lstatBeneath(dirFd: number, relative: string): Promise<fs.BigIntStats> {
    const opener = BeneathOpener.shared();
    const statNow = (fd: number) => {
      try {
        return fs.fstatSync(fd, { bigint: true });
      } finally {
        opener.close(fd);
      }
    };
    // On the thread pool, the fstat too: on a slow file system it is a round trip.
    const statLater = async (fd: number) => (fstat(fd, { bigint: true }) as Promise<fs.BigIntStats>).finally(() => opener.close(fd));
    return this.call(() => statNow(opener.openSync(dirFd, relative, O_PATH)), async () => statLater(await opener.open(dirFd, relative, O_PATH)));
  }

  /** lstat with 64-bit inode numbers and nanosecond times: what identifies a file the seed wrote. */
  lstatExact(at: HeldName): Promise<fs.BigIntStats> {
    if (this.held) return this.call(() => this.held!.lstatSync(at, { bigint: true }), () => this.held!.lstat(at, { bigint: true }));
    return this.call(() => fs.lstatSync(at.path, { bigint: true }), () => lstat(at.path, { bigint: true }) as Promise<fs.BigIntStats>);
  }

  /** fstat with numbers (not 64-bit): cheaper, for what a double holds exactly enough. */
  fstatPlain(fd: number): Promise<fs.Stats> {
    return this.call(() => fs.fstatSync(fd), () => fstat(fd) as Promise<fs.Stats>);
  }

  fstat(fd: number): Promise<fs.BigIntStats> {
    return this.call(() => fs.fstatSync(fd, { bigint: true }), () => fstat(fd, { bigint: true }) as Promise<fs.BigIntStats>);
  }

  fsync(fd: number): Promise<void> {
    return this.call(() => fs.fsyncSync(fd), () => fsync(fd));
  }

  link(existing: HeldName, at: HeldName): Promise<void> {
    if (this.held) return this.call(() => this.held!.linkSync(existing, at), () => this.held!.link(existing, at));
    return this.call(() => fs.linkSync(existing.path, at.path), () => link(existing.path, at.path));
  }

  fchmod(fd: number, mode: number): Promise<void> {
    return this.call(() => fs.fchmodSync(fd, mode), () => fchmod(fd, mode));
  }

  /** Sets a name's times, a link's own if it is one (never what a link planted there points to). */
  utimes(at: HeldName, time: Date): Promise<void> {
    if (this.held) return this.call(() => this.held!.utimesSync(at, time), () => this.held!.utimes(at, time));
    return this.call(() => fs.lutimesSync(at.path, time, time), () => lutimes(at.path, time, time));
  }

  rmdir(at: HeldName): Promise<void> {
    if (this.held) return this.call(() => this.held!.rmdirSync(at), () => this.held!.rmdir(at));
    return this.call(() => fs.rmdirSync(at.path), () => rmdir(at.path));
  }

  /** The entries of the directory `dir` (its `self`) holds. */
  readdir(dir: HeldName): Promise<fs.Dirent[]> {
    return this.call(() => this.readdirSync(dir), () => this.readdirAsync(dir));
  }

  /** readdir as `run` makes it: no promise while calls are fast. */
  readdirRun(dir: HeldName): fs.Dirent[] | Promise<fs.Dirent[]> {
    return this.run(() => this.readdirSync(dir), () => this.readdirAsync(dir));
  }

  /** Writes all of `buffer` in requests of at most `requestBytes` (EFS clients send up to 1 MiB); its length. */
  async writeAll(fd: number, buffer: Buffer, requestBytes: number): Promise<number> {
    let offset = 0;
    while (offset < buffer.length) offset += await this.write(fd, buffer, offset, Math.min(requestBytes, buffer.length - offset));
    return offset;
  }

  readlink(at: HeldName): Promise<string> {
    if (this.held) return this.call(() => this.held!.readlinkSync(at), () => this.held!.readlink(at));
    return this.call(() => fs.readlinkSync(at.path), () => readlink(at.path));
  }

  private lstatSync(at: HeldName): fs.Stats {
    return this.held ? this.held.lstatSync(at) : fs.lstatSync(at.path);
  }

  private lstatAsync(at: HeldName): Promise<fs.Stats> {
    return this.held ? this.held.lstat(at) : lstat(at.path);
  }

  private readdirSync(dir: HeldName): fs.Dirent[] {
    return this.held ? this.held.readdirSync(dir) : fs.readdirSync(dir.path, { withFileTypes: true });
  }

  private readdirAsync(dir: HeldName): Promise<fs.Dirent[]> {
    return this.held ? this.held.readdir(dir) : readdir(dir.path, { withFileTypes: true });
  }
}

/**
 * Whether `value` is a promise: told by its `then`, not by `instanceof Promise`, which fails for a
 * promise of another realm (node's own fs promises seen from a jest sandbox, say).
 */
export function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function';
}
