import * as fs from 'fs';
import { performance } from 'perf_hooks';
import { close, fchmod, fchown, fstat, fsync, futimes, link, lutimes, lstat, mkdir, open, read, readdir, readlink, rename, rmdir, symlink, unlink, write } from '../shared/fs-calls';
import { HeldName, HeldNameCalls, heldNameOf } from './held-name-calls';
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
   * @param held what makes a call on a name in a directory the seed holds (a path
   *   /proc/self/fd/<fd>/<name>, as target-tree's Directory makes them) on that directory's
   *   descriptor, so that no /proc path is resolved (null where the addon is not built: Node's calls
   *   on the path, which Linux resolves inside the directory as well)
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


  open(file: string, flags: number, mode?: number): Promise<number> {
    const at = this.held && this.nameIn(file);
    if (at) return this.call(() => this.held!.openSync(at, flags, mode), () => this.held!.open(at, flags, mode));
    return this.call(() => fs.openSync(file, flags, mode), () => open(file, flags, mode));
  }

  /** open, now: for a caller that saw `fast`. */
  openSync(file: string, flags: number, mode?: number): number {
    const at = this.held && this.nameIn(file);
    return this.now(() => at ? this.held!.openSync(at, flags, mode) : fs.openSync(file, flags, mode));
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

  rename(from: string, to: string): Promise<void> {
    const [a, b] = this.held ? [this.nameIn(from), this.nameIn(to)] : [];
    if (a && b) return this.call(() => this.held!.renameSync(a, b), () => this.held!.rename(a, b));
    return this.call(() => fs.renameSync(from, to), () => rename(from, to));
  }

  unlink(file: string): Promise<void> {
    const at = this.held && this.nameIn(file);
    if (at) return this.call(() => this.held!.unlinkSync(at), () => this.held!.unlink(at));
    return this.call(() => fs.unlinkSync(file), () => unlink(file));
  }

  unlinkSync(file: string): void {
    const at = this.held && this.nameIn(file);
    this.now(() => at ? this.held!.unlinkSync(at) : fs.unlinkSync(file));
  }

  symlink(linkTarget: string, file: string): Promise<void> {
    const at = this.held && this.nameIn(file);
    if (at) return this.call(() => this.held!.symlinkSync(linkTarget, at), () => this.held!.symlink(linkTarget, at));
    return this.call(() => fs.symlinkSync(linkTarget, file), () => symlink(linkTarget, file));
  }

  mkdir(dir: string, mode: number): Promise<void> {
    const at = this.held && this.nameIn(dir);
    if (at) return this.call(() => this.held!.mkdirSync(at, mode), () => this.held!.mkdir(at, mode));
    return this.call(() => { fs.mkdirSync(dir, mode); }, async () => { await mkdir(dir, mode); });
  }

  lstat(file: string): Promise<fs.Stats> {
    const at = this.held && this.nameIn(file);
    if (at) return this.call(() => this.held!.lstatSync(at), () => this.held!.lstat(at));
    return this.call(() => fs.lstatSync(file), () => lstat(file));
  }

  /** lstat with 64-bit inode numbers and nanosecond times: what identifies a file the seed wrote. */
  lstatExact(file: string): Promise<fs.BigIntStats> {
    const at = this.held && this.nameIn(file);
    if (at) return this.call(() => this.held!.lstatSync(at, { bigint: true }), () => this.held!.lstat(at, { bigint: true }));
    return this.call(() => fs.lstatSync(file, { bigint: true }), () => lstat(file, { bigint: true }) as Promise<fs.BigIntStats>);
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

  link(existing: string, file: string): Promise<void> {
    const [a, b] = this.held ? [this.nameIn(existing), this.nameIn(file)] : [];
    if (a && b) return this.call(() => this.held!.linkSync(a, b), () => this.held!.link(a, b));
    return this.call(() => fs.linkSync(existing, file), () => link(existing, file));
  }

  fchmod(fd: number, mode: number): Promise<void> {
    return this.call(() => fs.fchmodSync(fd, mode), () => fchmod(fd, mode));
  }

  /** Sets a name's times, a link's own if it is one (never what a link planted there points to). */
  utimes(file: string, time: Date): Promise<void> {
    const at = this.held && this.nameIn(file);
    if (at) return this.call(() => this.held!.utimesSync(at, time), () => this.held!.utimes(at, time));
    return this.call(() => fs.lutimesSync(file, time, time), () => lutimes(file, time, time));
  }

  rmdir(dir: string): Promise<void> {
    const at = this.held && this.nameIn(dir);
    if (at) return this.call(() => this.held!.rmdirSync(at), () => this.held!.rmdir(at));
    return this.call(() => fs.rmdirSync(dir), () => rmdir(dir));
  }

  readdir(dir: string): Promise<fs.Dirent[]> {
    const held = this.held && heldNameOf(dir);
    if (held && held.name === '') return this.call(() => this.held!.readdirSync(held), () => this.held!.readdir(held));
    return this.call(() => fs.readdirSync(dir, { withFileTypes: true }), () => readdir(dir, { withFileTypes: true }));
  }

  /** Writes all of `buffer` in requests of at most `requestBytes` (EFS clients send up to 1 MiB); its length. */
  async writeAll(fd: number, buffer: Buffer, requestBytes: number): Promise<number> {
    let offset = 0;
    while (offset < buffer.length) offset += await this.write(fd, buffer, offset, Math.min(requestBytes, buffer.length - offset));
    return offset;
  }

  readlink(file: string): Promise<string> {
    const at = this.held && this.nameIn(file);
    if (at) return this.call(() => this.held!.readlinkSync(at), () => this.held!.readlink(at));
    return this.call(() => fs.readlinkSync(file), () => readlink(file));
  }

  /** `file` as a name in a held directory, for the addon's calls on its descriptor. */
  private nameIn(file: string): HeldName | undefined {
    const at = heldNameOf(file);
    return at?.name ? at : undefined;
  }
}

/**
 * Whether `value` is a promise: told by its `then`, not by `instanceof Promise`, which fails for a
 * promise of another realm (node's own fs promises seen from a jest sandbox, say).
 */
export function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function';
}
