import * as path from 'path';
import { getSystemErrorMap, getSystemErrorName } from 'util';
import { Directory } from './held-name';
import { besideSeedBundle, firstExisting } from './seed-bundle';

/** What the addon resolves with: [0, bytes, ino, size, mtime s, mtime ns], or [errno, failed call]. */
type Outcome = number[];

/** The operations native/at-calls.c makes on a name in a held directory, by number. */
/** -errno, or an operation's result: a link's target, a listing (name, type, ...), lstat's fields, 0. */
export type AtOutcome = number | string | Array<string | number> | Float64Array | BigInt64Array;

export enum AtOp { MKDIR, UNLINK, RMDIR, RENAME, LINK, SYMLINK, READLINK, UTIMES, READDIR, CLOSE, LSTAT }

/** What native/*.c export: the writer (write-new-file.c) and the beneath-opener (open-beneath.c). */
export interface NativeAddon {
  /** `content` a buffer, or an open source file's descriptor read from its start, `sourceBytes` at most. */
  writeNewFile(dirFd: number, name: string, mode: number, content: Buffer | number, uid: number, gid: number, sourceBytes: number): Promise<Outcome>;
  /** writeNewFile of the source file at `sourcePath` beneath `sourceRoot`, opened and fstat'ed by the job; nothing made where it is larger than `limit`. */
  writeNewFileBeneath(dirFd: number, name: string, sourceRoot: number, sourcePath: string, uid: number, gid: number, limit: number): Promise<Outcome>;
  /** 0 where openat2 is in use, else the errno that refused it (the descriptor walk is in use). */
  beneathResolution(): number;
  /** A descriptor, or -errno. */
  openBeneathSync(dirFd: number, path: string, flags: number, mode: number): number;
  openBeneath(dirFd: number, path: string, flags: number, mode: number): Promise<number>;
  /** openBeneathSync (nothing created) and an fstat of what it opened, into `into` (14 numbers, as lstat's): a descriptor, or -errno. */
  openBeneathStatSync(dirFd: number, path: string, flags: number, into: Float64Array): number;
  /** 0, or -errno. */
  closeBeneath(fd: number): number;
  /**
   * One of at-calls.c's operations on `name` in `dirFd`: -errno, a
   * link's target (readlink), [name, type, ...] (a listing), else 0.
   */
  /** For LSTAT, `other` may be the typed array to fill (0 is returned then). */
  atCallSync(op: number, dirFd: number, name: string, otherFd: number, other: string | Float64Array | BigInt64Array, value: number): AtOutcome;
  atCall(op: number, dirFd: number, name: string, otherFd: number, other: string, value: number): Promise<AtOutcome>;
}

/** The calls write-new-file.c names a failure by, by number (the first makes the file). */
const CALLS = ['', 'open', 'read', 'write', 'fchown', 'fstat', 'close'];
const OPEN_TARGET = 1;
/** writeNewFileBeneath's failures before the target file is made: the source's open, its fstat, what that fstat said. */
const OPEN_SOURCE = 7;
const FSTAT_SOURCE = 8;
const SOURCE_NOT_REGULAR = 9;
const SOURCE_TOO_LARGE = 10;

/**
 * Why writeNewFileBeneath made nothing, on the source's side: its open beneath the root failed (Node's
 * error, naming the path), its fstat failed, it is not a regular file, or it is larger than the limit.
 */
export type SourceRefusal = { readonly call: 'open' | 'fstat'; readonly error: NodeJS.ErrnoException } | { readonly call: 'not a regular file' | 'too large' };

/** undefined until first asked for; null where there is none. */
let shared: NativeWriter | null | undefined;
let sharedAddon: NativeAddon | null | undefined;

/** Where the addon is: bundled beside the seed handler (the CLI uses the package's copy). */
const ADDON_DIRECTORIES = besideSeedBundle('native');

/**
 * This thread's addon, loaded once, whatever CDK_EFS_KIT_NATIVE says (which turns off the writer,
 * not the beneath-opener); null where there is none, or it does not load.
 */
export function sharedNativeAddon(): NativeAddon | null {
  if (sharedAddon === undefined) {
    try {
      sharedAddon = loadNativeAddon(ADDON_DIRECTORIES);
    } catch (err) {
      // A build the runtime cannot load (a C library older than glibc 2.28, say): slower, not wrong.
      console.warn(`cdk-efs-kit: the native addon did not load (${(err as Error).message.split('\n')[0]}); the seed makes its calls through Node`);
      sharedAddon = null;
    }
  }
  return sharedAddon;
}

/** The addon for this platform from the first of `directories` that has it, or null. */
export function loadNativeAddon(directories: string[]): NativeAddon | null {
  const file = `${process.platform}-${process.arch}.node`;
  const addon = firstExisting(directories.map((dir) => path.join(dir, file)));
  if (!addon) return null;
  const module = { exports: {} as NativeAddon };
  process.dlopen(module, addon);
  return module.exports;
}

/** A new file as written: its length and what fs.fstat says of it (the numbers writtenIdentity reads). */
export interface NewFile {
  readonly bytes: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
}

/**
 * The seed's small-file write as one job on libuv's thread pool (native/write-new-file.c): openat,
 * write, fchown, fstat and close of a new file, relative to a directory descriptor the seed holds.
 * On a slow file system each of those is otherwise a hop of its own between the JS thread and the
 * pool. Built for Linux on x64 and arm64 (scripts/build-native.mjs) and bundled beside the seed's
 * handler; where it is not there (another platform, a build without a C compiler) the seed makes
 * the same calls through Node. CDK_EFS_KIT_NATIVE=0 turns it off.
 */
export class NativeWriter {
  /** This thread's writer, loaded once (null where there is none, or CDK_EFS_KIT_NATIVE=0). */
  static shared(): NativeWriter | null {
    if (shared === undefined) {
      const addon = process.env.CDK_EFS_KIT_NATIVE === '0' ? null : sharedNativeAddon();
      shared = addon && new NativeWriter(addon);
    }
    return shared;
  }

  /** The writer of the addon in the first of `directories` that has it, or null. */
  static load(directories: string[]): NativeWriter | null {
    const addon = loadNativeAddon(directories);
    return addon && new NativeWriter(addon);
  }

  private constructor(private readonly addon: NativeAddon) {}

  /**
   * Creates `name` (a new file only: O_EXCL|O_NOFOLLOW) in the directory `dir` holds, with `content`
   * (a buffer, or an open source file's descriptor: `sourceBytes` of it at most, from its start),
   * owned by uid/gid (-1 keeps the writer's). On failure the file is removed and the error is
   * Node's, with the failed call's name.
   */
  async writeNewFile(dir: Directory, name: string, mode: number, content: Buffer | number, uid = -1, gid = -1, sourceBytes = 0): Promise<NewFile> {
    const outcome = await this.addon.writeNewFile(dir.fd, name, mode, content, uid, gid, sourceBytes);
    if (outcome[0] !== 0) {
      const [errno, call] = outcome;
      // Removed by the addon too: unlinkat on the directory's descriptor, no path through /proc.
      if (call !== OPEN_TARGET) await this.addon.atCall(AtOp.UNLINK, dir.fd, name, -1, '', 0);
      // As Node names them: the path for an open, none for a call on a descriptor.
      throw systemError(errno, CALLS[call], call === OPEN_TARGET ? dir.at(name).path : undefined);
    }
    return newFile(outcome);
  }

  /**
   * writeNewFile of a local source file in the same job: opened beneath the directory `sourceRoot`
   * holds (`sourcePath`: 'a/b', as BeneathOpener opens it: openat2, or the walk; never through a link),
   * fstat'ed, and copied up to the size that fstat gave, the new file taking its permission bits. One
   * job instead of an open and an fstat on the JS thread and a close after. What the source refused
   * (nothing is made then) is returned, for the caller to say; a failure on the target is thrown as
   * writeNewFile throws it.
   */
  async writeNewFileBeneath(dir: Directory, name: string, sourceRoot: number, sourcePath: string, uid = -1, gid = -1, limit = Infinity): Promise<NewFile | SourceRefusal> {
    const outcome = await this.addon.writeNewFileBeneath(dir.fd, name, sourceRoot, sourcePath, uid, gid, Math.min(limit, Number.MAX_VALUE));
    if (outcome[0] === 0) return newFile(outcome);
    const [errno, call] = outcome;
    if (call === OPEN_SOURCE) return { call: 'open', error: systemError(errno, 'open', sourcePath) };
    if (call === FSTAT_SOURCE) return { call: 'fstat', error: systemError(errno, 'fstat') };
    if (call === SOURCE_NOT_REGULAR) return { call: 'not a regular file' };
    if (call === SOURCE_TOO_LARGE) return { call: 'too large' };
    if (call !== OPEN_TARGET) await this.addon.atCall(AtOp.UNLINK, dir.fd, name, -1, '', 0);
    throw systemError(errno, CALLS[call], call === OPEN_TARGET ? dir.at(name).path : undefined);
  }
}

/** The numbers the addon resolves a written file with, read by index (destructuring walks the array's iterator, per file). */
function newFile(outcome: Outcome): NewFile {
  // As Node computes Stats.mtimeMs, so that writtenIdentity reads the same from either.
  return { bytes: outcome[1], ino: outcome[2], size: outcome[3], mtimeMs: outcome[4] * 1e3 + outcome[5] / 1e6 };
}

/** An error as Node's fs calls make them: `ENOENT: no such file or directory, open 'x'` (or `ENOSPC: ..., write`), with errno, code, syscall and any path. */
export function systemError(errno: number, syscall: string, file?: string): NodeJS.ErrnoException {
  const code = getSystemErrorName(-errno);
  const description = getSystemErrorMap().get(-errno)?.[1] ?? 'unknown error';
  const message = `${code}: ${description}, ${syscall}${file === undefined ? '' : ` '${file}'`}`;
  return Object.assign(new Error(message), { errno: -errno, code, syscall }, file === undefined ? {} : { path: file });
}
