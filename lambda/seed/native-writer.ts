import * as fs from 'fs';
import * as path from 'path';
import { getSystemErrorMap, getSystemErrorName } from 'util';
import { unlink } from '../shared/fs-calls';
import { besideSeedBundle } from './seed-bundle';

/** What the addon resolves with: [0, bytes, ino, size, mtime s, mtime ns], or [errno, failed call]. */
type Outcome = number[];

interface Addon {
  writeNewFile(dirFd: number, name: string, mode: number, content: Buffer | string, uid: number, gid: number): Promise<Outcome>;
}

/** The calls write-new-file.c names a failure by, by number (the first makes the file; the last opens the source). */
const CALLS = ['', 'open', 'read', 'write', 'fchown', 'fstat', 'close', 'open'];
const OPEN_TARGET = 1;
const OPEN_SOURCE = 7;

/** undefined until first asked for; null where there is none. */
let shared: NativeWriter | null | undefined;

/** A directory the seed holds open (target-tree's Directory): its descriptor, and a name's path through it. */
interface HeldDirectory {
  readonly fd: number;
  at(name: string): string;
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
  /** Where the addon is: bundled beside the seed handler (the CLI uses the package's copy). */
  static readonly DIRECTORIES = besideSeedBundle('native');

  /** This thread's writer, loaded once (null where there is none, or CDK_EFS_KIT_NATIVE=0). */
  static shared(): NativeWriter | null {
    if (shared === undefined) {
      try {
        shared = process.env.CDK_EFS_KIT_NATIVE === '0' ? null : NativeWriter.load(NativeWriter.DIRECTORIES);
      } catch (err) {
        // A build the runtime cannot load (a C library older than glibc 2.28, say): slower, not wrong.
        console.warn(`cdk-efs-kit: the native writer did not load (${(err as Error).message.split('\n')[0]}); small files are written through Node's calls`);
        shared = null;
      }
    }
    return shared;
  }

  /** The addon for this platform from the first of `directories` that has it, or null. */
  static load(directories: string[]): NativeWriter | null {
    const file = `${process.platform}-${process.arch}.node`;
    const addon = directories.map((dir) => path.join(dir, file)).find((candidate) => fs.existsSync(candidate));
    if (!addon) return null;
    const module = { exports: {} as Addon };
    process.dlopen(module, addon);
    return new NativeWriter(module.exports);
  }

  private constructor(private readonly addon: Addon) {}

  /**
   * Creates `name` (a new file only: O_EXCL|O_NOFOLLOW) in the directory `dir` holds, with `content`
   * (a buffer, or the path of a local file to copy), owned by uid/gid (-1 keeps the writer's). On
   * failure the file is removed and the error is Node's, with the failed call's name.
   */
  async writeNewFile(dir: HeldDirectory, name: string, mode: number, content: Buffer | string, uid = -1, gid = -1): Promise<NewFile> {
    const outcome = await this.addon.writeNewFile(dir.fd, name, mode, content, uid, gid);
    if (outcome[0] !== 0) {
      const [errno, call] = outcome;
      if (call !== OPEN_TARGET) await unlink(dir.at(name)).catch(() => undefined);
      // As Node names them: the path for an open, none for a call on a descriptor.
      throw systemError(errno, CALLS[call], call === OPEN_TARGET ? dir.at(name) : call === OPEN_SOURCE ? content as string : undefined);
    }
    const [, bytes, ino, size, seconds, nanoseconds] = outcome;
    // As Node computes Stats.mtimeMs, so that writtenIdentity reads the same from either.
    return { bytes, ino, size, mtimeMs: seconds * 1e3 + nanoseconds / 1e6 };
  }
}

/** An error as Node's fs calls make them: `ENOENT: no such file or directory, open 'x'` (or `ENOSPC: ..., write`), with errno, code, syscall and any path. */
function systemError(errno: number, syscall: string, file?: string): NodeJS.ErrnoException {
  const code = getSystemErrorName(-errno);
  const description = getSystemErrorMap().get(-errno)?.[1] ?? 'unknown error';
  const message = `${code}: ${description}, ${syscall}${file === undefined ? '' : ` '${file}'`}`;
  return Object.assign(new Error(message), { errno: -errno, code, syscall }, file === undefined ? {} : { path: file });
}
