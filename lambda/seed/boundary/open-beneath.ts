import * as fs from 'fs';
import { constants as os } from 'os';
import { open as openPath, close as closeFd } from '../../shared/fs-calls';
import { HeldName } from './held-name';
import { NameStats } from './name-stats';
import { NativeAddon, sharedNativeAddon, systemError } from './native-writer';

/**
 * How the seed opens a path beneath a directory it holds (its source root, a target directory):
 * - 'openat2': the kernel resolves the whole path with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 *   RESOLVE_NO_MAGICLINKS (Linux 5.6+, through the native addon): a symlink at any component, a
 *   '..' or an absolute path, a /proc magic link, is refused (ELOOP, EXDEV) however the tree
 *   changes during the call;
 * - 'descriptor walk': where openat2 is refused (ENOSYS on an older kernel, ENOSYS or EPERM from a
 *   seccomp filter) or the addon is not there, one component at a time, each opened with O_NOFOLLOW
 *   relative to the descriptor of the last (by the addon's openat, else by Node through
 *   /proc/self/fd/<fd>/<name>): the same refusals, made by the seed.
 * Decided once per process, on first use; the run's summary and first log line name it.
 */
export type Resolution = 'openat2' | 'descriptor walk';

/** A file opened by openStatSync: its descriptor, and its fstat's mode (type and permission bits) and size. */
export interface OpenedFile {
  readonly fd: number;
  readonly mode: number;
  readonly size: number;
}

export interface BeneathResolution {
  readonly kind: Resolution;
  /** Why openat2 is not in use (for the walk). */
  readonly reason?: string;
}

const WALK_DIRECTORY = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW;

let shared: BeneathOpener | undefined;

export class BeneathOpener {
  /** This process's opener (each thread loads the addon, which decides once for the process). */
  static shared(): BeneathOpener {
    shared ??= new BeneathOpener(sharedNativeAddon());
    return shared;
  }

  readonly resolution: BeneathResolution;
  /** What openStatSync's call fills (see NameStats): no allocation per open but its result. */
  private readonly numbers = new Float64Array(NameStats.FIELDS);

  constructor(private readonly addon: NativeAddon | null) {
    this.resolution = resolutionOf(addon);
  }

  /**
   * Opens `relative` ('a/b/c', no '.', '..' or empty part) beneath the directory `dirFd` holds,
   * with `flags` (O_NOFOLLOW is implied); throws as Node's open would, naming `relative`.
   */
  openSync(dirFd: number, relative: string, flags: number, mode = 0o666): number {
    checkRelative(relative);
    if (this.addon) return this.outcome(this.addon.openBeneathSync(dirFd, relative, flags, mode), relative);
    return walkSync(dirFd, relative, flags, mode);
  }

  /**
   * openSync of what is there (no O_CREAT), and an fstat of the descriptor it gave: with the addon in
   * one call. The descriptor, and what that fstat says of it: its type and permission bits, its size.
   */
  openStatSync(dirFd: number, relative: string, flags: number): OpenedFile {
    checkRelative(relative);
    if (!this.addon) {
      const fd = walkSync(dirFd, relative, flags, 0);
      try {
        const { mode, size } = fs.fstatSync(fd);
        return { fd, mode, size };
      } catch (err) {
        fs.closeSync(fd);
        throw err;
      }
    }
    const { numbers } = this;
    const fd = this.outcome(this.addon.openBeneathStatSync(dirFd, relative, flags, numbers), relative);
    return { fd, mode: numbers[NameStats.MODE], size: numbers[NameStats.SIZE] };
  }

  /** openSync on libuv's thread pool. */
  async open(dirFd: number, relative: string, flags: number, mode = 0o666): Promise<number> {
    checkRelative(relative);
    if (this.addon) return this.outcome(await this.addon.openBeneath(dirFd, relative, flags, mode), relative);
    return walk(dirFd, relative, flags, mode);
  }

  /**
   * Closes a descriptor this opener gave (at once: a file opened to be read has nothing to flush).
   * The addon's are closed by the addon: Node, in a worker thread, warns of a close of a descriptor
   * its own calls did not open.
   */
  close(fd: number): void {
    if (!this.addon) return fs.closeSync(fd);
    const outcome = this.addon.closeBeneath(fd);
    if (outcome < 0) throw systemError(-outcome, 'close');
  }

  private outcome(fd: number, relative: string): number {
    if (fd < 0) throw systemError(-fd, 'open', relative);
    return fd;
  }
}

/** This process's resolution as the summary and the log say it: 'openat2', or 'descriptor walk (<why>)'. */
export function describeResolution(): string {
  const { kind, reason } = BeneathOpener.shared().resolution;
  return reason ? `${kind} (${reason})` : kind;
}

function resolutionOf(addon: NativeAddon | null): BeneathResolution {
  if (!addon) return { kind: 'descriptor walk', reason: 'the native addon is not built for this platform' };
  const refusal = addon.beneathResolution();
  if (refusal === 0) return { kind: 'openat2' };
  const reason = refusal === os.errno.ENOSYS ? 'openat2 is not in this kernel or its seccomp filter (ENOSYS)'
    : refusal === os.errno.EPERM ? 'a seccomp filter refuses openat2 (EPERM)'
    : refusal === os.errno.ENOTSUP ? 'turned off by CDK_EFS_KIT_OPENAT2=0' : `openat2 refused (errno ${refusal})`;
  return { kind: 'descriptor walk', reason };
}

/** A relative path of plain parts: what openat2's RESOLVE_BENEATH would refuse, refused alike before any call. */
function checkRelative(relative: string): void {
  const parts = relative.split('/');
  if (relative.startsWith('/') || relative.includes('\0') || parts.some((part) => part === '' || part === '.' || part === '..')) {
    throw Object.assign(new Error(`EXDEV: the path ${JSON.stringify(relative)} would leave the directory it is opened beneath, open`), { code: 'EXDEV', syscall: 'open', path: relative });
  }
}

const through = (fd: number, name: string) => new HeldName(fd, name).path;

/** A link on the way fails O_DIRECTORY first (ENOTDIR): said as openat2 says it (ELOOP). */
function asOpenat2(err: NodeJS.ErrnoException, at: number, part: string): NodeJS.ErrnoException {
  if (err.code !== 'ENOTDIR' || !fs.lstatSync(through(at, part), { throwIfNoEntry: false })?.isSymbolicLink()) return err;
  return Object.assign(new Error(`ELOOP: too many symbolic links encountered, open '${through(at, part)}'`), { code: 'ELOOP', errno: -os.errno.ELOOP, syscall: 'open', path: through(at, part) });
}

/** The walk by Node's calls, synchronously: each part opened in the last with O_NOFOLLOW. */
function walkSync(dirFd: number, relative: string, flags: number, mode: number): number {
  const parts = relative.split('/');
  let at = dirFd;
  try {
    for (let i = 0; i < parts.length - 1; i++) {
      let next: number;
      try {
        next = fs.openSync(through(at, parts[i]), WALK_DIRECTORY);
      } catch (err) {
        throw asOpenat2(err as NodeJS.ErrnoException, at, parts[i]);
      }
      if (at !== dirFd) fs.closeSync(at);
      at = next;
    }
    return fs.openSync(through(at, parts[parts.length - 1]), flags | fs.constants.O_NOFOLLOW, mode);
  } finally {
    if (at !== dirFd) fs.closeSync(at);
  }
}

/** walkSync with Node's asynchronous calls. */
async function walk(dirFd: number, relative: string, flags: number, mode: number): Promise<number> {
  const parts = relative.split('/');
  let at = dirFd;
  try {
    for (let i = 0; i < parts.length - 1; i++) {
      const here = at;
      const next = await openPath(through(at, parts[i]), WALK_DIRECTORY).catch((err) => { throw asOpenat2(err, here, parts[i]); });
      if (at !== dirFd) await closeFd(at);
      at = next;
    }
    return await openPath(through(at, parts[parts.length - 1]), flags | fs.constants.O_NOFOLLOW, mode);
  } finally {
    if (at !== dirFd) await closeFd(at).catch(() => undefined);
  }
}
