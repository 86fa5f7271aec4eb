import * as fs from 'fs';
import { Readable } from 'stream';
import { MiB } from '../../shared/sizes';
import { FileContent, LocalFileContent } from '../sources/entry';
import { FileSystemCalls } from '../boundary/file-system-calls';
import { NativeWriter, NewFile } from '../boundary/native-writer';
import { closeSourceFile, openSourceFile, openSourceFileNow, OpenedSourceFile, refusedSource } from '../sources/source-file';
import { temporaryName } from '../state/reserved-names';
import { Directory, HeldName } from '../boundary/held-name';

/** Large files go out in writes of this size: EFS clients move up to 1 MiB per request. */
export const WRITE_CHUNK_BYTES = MiB;

export interface WriteOptions {
  readonly mode: number;
  /** Refuse (before the rename) content whose length differs: an archive that lies about a size. */
  readonly expectedSize?: number;
  readonly uid?: number;
  readonly gid?: number;
  /** Give the file this modification time (one more round trip); otherwise it gets the write time. */
  readonly mtimeMs?: number;
}

/** A write through a temporary name, which carries the run's token (see reserved-names.ts). */
export interface AtomicWriteOptions extends WriteOptions {
  readonly runToken: string;
}

/** What the seed records of each file it writes, to recognise it later as still the one it wrote. */
export interface WrittenFile {
  readonly bytes: number;
  /** Its inode, size and modification time (see writtenIdentity). */
  readonly identity: string;
}

/**
 * A file's identity as the seed wrote it: inode, size and modification time (to a fraction of a
 * microsecond). Prune, removal and link replacement delete a name only while it still has this
 * identity: a file someone rewrote since, or put there in its place, is kept. From plain stats, not
 * 64-bit ones (which cost a file's copy a tenth more CPU): an inode number past 2^53 loses its last
 * bits, and two files that differ only there, of the same size, modified in the same instant, are
 * not a case that arises.
 */
export const writtenIdentity = (stats: Pick<fs.Stats, 'ino' | 'size' | 'mtimeMs'>) => `${stats.ino}:${stats.size}:${stats.mtimeMs}`;

/**
 * Writes `content` to `name` in `dir` so that no reader and no interrupted run ever sees a partial
 * file: a temporary file in the same directory (or in `tempDir`, on the same file system), then
 * renamed over the final name. On failure the temporary file is removed.
 */
export async function writeFileAtomically(calls: FileSystemCalls, dir: Directory, name: string, content: FileContent, options: AtomicWriteOptions, tempDir = dir): Promise<WrittenFile> {
  const tmp = temporaryName(options.runToken);
  const written = await writeUnseenFile(calls, tempDir, tmp, content, options, false).catch((err) => refuseTaken(tmp, err));
  await renameIntoPlace(calls, tempDir.at(tmp), dir.at(name));
  return written;
}

/** Makes a symlink at `name` in `dir` the same way: under a temporary name, then renamed over it. */
export async function writeSymlinkAtomically(calls: FileSystemCalls, linkTarget: string, dir: Directory, name: string, runToken: string): Promise<void> {
  const tmpName = temporaryName(runToken);
  const tmp = dir.at(tmpName);
  await calls.symlink(linkTarget, tmp).catch((err) => refuseTaken(tmpName, err));
  await renameIntoPlace(calls, tmp, dir.at(name));
}

/** A temporary name of this run's found taken: someone made it to be written through or renamed, and it is left alone. */
function refuseTaken(name: string, err: NodeJS.ErrnoException): never {
  if (err.code !== 'EEXIST') throw err;
  throw Object.assign(new Error(`${name}, this run's temporary name for it, is taken by an entry the seed did not make: it is left alone; remove it and run the seed again`), { code: 'EEXIST' });
}

async function renameIntoPlace(calls: FileSystemCalls, tmp: HeldName, finalPath: HeldName): Promise<void> {
  await calls.rename(tmp, finalPath).catch(async (err) => {
    await calls.unlink(tmp).catch(() => undefined);
    throw err;
  });
}

/** A new file only: O_EXCL refuses any name that exists, a symlink (even a dangling one) included. */
const CREATE_NEW = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;

/**
 * Creates `name` in `dir`, a name no reader looks at (a temporary name, or a file in a directory not
 * yet published), and writes `content` with open/write/close: no copyFile, which costs extra setattr
 * round trips. Always a new inode, never an existing one opened and truncated: a name in the target
 * may be a symlink or a hard link someone planted to lead the write elsewhere. With `replace`,
 * whatever is at the name (what an interrupted run left there) is unlinked first: an unlink removes a
 * name, never what a link points to. On failure the file is removed.
 */
export async function writeUnseenFile(calls: FileSystemCalls, dir: Directory, name: string, content: FileContent, options: WriteOptions, replace: boolean): Promise<WrittenFile> {
  if (content instanceof LocalFileContent) return writeSourceFile(calls, dir, name, content, options, replace);
  if (calls.native && !calls.fast && options.mtimeMs === undefined) {
    const whole = await wholeContent(content, options);
    if (whole !== undefined) return writeSmallFileNatively(calls, calls.native, dir, name, whole, 0, options, replace);
  }
  return writeNewFile(calls, dir.at(name), options, replace, (fd) => Buffer.isBuffer(content) ? calls.writeAll(fd, content, WRITE_CHUNK_BYTES) : writeStream(calls, fd, content));
}

/**
 * writeUnseenFile of a local source file: opened beneath the source root and fstat'ed first, and
 * written with the mode that fstat gave (permission bits only) and no more than the size it gave.
 */
async function writeSourceFile(calls: FileSystemCalls, dir: Directory, name: string, content: LocalFileContent, options: WriteOptions, replace: boolean): Promise<WrittenFile> {
  if (calls.native && !calls.fast && options.mtimeMs === undefined && content.size <= WRITE_CHUNK_BYTES) {
    const written = await writeSourceFileNatively(calls, calls.native, dir, name, content, options, replace);
    if (written) return written;
  }
  const now = content.calls.fast;
  const source = now ? openSourceFileNow(content) : await openSourceFile(content);
  const sourceOptions = { ...options, mode: source.mode & 0o777 };
  try {
    if (source.size < SMALL_COPY_BYTES && calls.fast && now) return writeSmallFileNow(calls, dir.at(name), content.calls, source, sourceOptions, replace);
    if (calls.native && !calls.fast && options.mtimeMs === undefined && source.size <= WRITE_CHUNK_BYTES) {
      return await writeSmallFileNatively(calls, calls.native, dir, name, source.fd, source.size, sourceOptions, replace);
    }
    return await writeNewFile(calls, dir.at(name), sourceOptions, replace, (fd) => copyLocalFile(calls, fd, content.calls, source));
  } finally {
    closeSourceFile(content, source.fd);
  }
}

/** Creates `file` (see writeUnseenFile), fills it with `fill`, and gives it the owner and time asked for; on failure it is removed. */
async function writeNewFile(calls: FileSystemCalls, file: HeldName, options: WriteOptions, replace: boolean, fill: (fd: number) => Promise<number>): Promise<WrittenFile> {
  const fd = await createNew(() => calls.open(file, CREATE_NEW, options.mode), replace, () => calls.unlink(file));
  try {
    let written: WrittenFile;
    try {
      const bytes = await fill(fd);
      checkDelivered(bytes, options);
      if (options.uid !== undefined || options.gid !== undefined) await calls.fchown(fd, options.uid ?? -1, options.gid ?? -1);
      if (options.mtimeMs !== undefined) await calls.futimes(fd, new Date(options.mtimeMs));
      // Once its content is written (an NFS client sends the writes now rather than at close, and
      // has the attributes back with them): what a later run checks before deleting it.
      written = { bytes, identity: writtenIdentity(await calls.fstatPlain(fd)) };
    } finally {
      await calls.close(fd);
    }
    return written;
  } catch (err) {
    await calls.unlink(file).catch(() => undefined);
    throw err;
  }
}

/**
 * `create` of a new file; with `replace`, whatever is at its name (EEXIST: what an interrupted run left
 * there, a link someone planted) is removed first and the create tried once more.
 */
async function createNew<T>(create: () => Promise<T>, replace: boolean, removeExisting: () => Promise<void>): Promise<T> {
  return create().catch(async (err: NodeJS.ErrnoException) => {
    if (!replace || err.code !== 'EEXIST') throw err;
    await removeExisting();
    return create();
  });
}

/**
 * A file's content as the native writer takes it, whole: a buffer; undefined for one larger than a
 * write request (1 MiB), which the calls copy. A stream is read to its end first, keeping no more
 * than it declared: one that delivers more or less is refused before any file is made.
 */
async function wholeContent(content: Buffer | Readable, options: WriteOptions): Promise<Buffer | undefined> {
  if (Buffer.isBuffer(content)) return content.length <= WRITE_CHUNK_BYTES ? content : undefined;
  if (options.expectedSize === undefined || options.expectedSize > WRITE_CHUNK_BYTES) return undefined;
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of content) {
    bytes += (chunk as Buffer).length;
    if (bytes <= options.expectedSize) chunks.push(chunk as Buffer);
  }
  checkDelivered(bytes, options);
  return Buffer.concat(chunks, bytes);
}

/**
 * writeUnseenFile's calls on a slow file system, made by the native writer in one trip to the
 * thread pool instead of one trip each (open, write, fchown, fstat, close), of a buffer or of an open
 * source file (`sourceBytes` of it at most); the file is removed on failure.
 */
async function writeSmallFileNatively(calls: FileSystemCalls, native: NativeWriter, dir: Directory, name: string, content: Buffer | number, sourceBytes: number, options: WriteOptions, replace: boolean): Promise<WrittenFile> {
  const file = await createNew(() => native.writeNewFile(dir, name, options.mode, content, options.uid, options.gid, sourceBytes), replace, () => calls.unlink(dir.at(name)));
  return nativelyWritten(calls, dir, name, file, options);
}

/**
 * writeSourceFile on a slow file system through the native writer, the source's open (beneath its
 * root) and fstat made by its job too: one trip to the thread pool per file, and nothing on the JS
 * thread but the call. The same checks, in C: a regular file by that fstat, its permission bits, no
 * more than the size it gave; undefined (nothing made) where that size is above a write request (the
 * file grew since the walk), for the calls to copy.
 */
async function writeSourceFileNatively(calls: FileSystemCalls, native: NativeWriter, dir: Directory, name: string, content: LocalFileContent, options: WriteOptions, replace: boolean): Promise<WrittenFile | undefined> {
  const file = await createNew(() => native.writeNewFileBeneath(dir, name, content.root, content.path, options.uid, options.gid, WRITE_CHUNK_BYTES), replace, () => calls.unlink(dir.at(name)));
  if (!('ino' in file)) {
    if (file.call === 'too large') return undefined;
    throw refusedSource(content, file);
  }
  return nativelyWritten(calls, dir, name, file, options);
}

/** A file the native writer made, once it holds the size the source declared; removed where it does not. */
async function nativelyWritten(calls: FileSystemCalls, dir: Directory, name: string, file: NewFile, options: WriteOptions): Promise<WrittenFile> {
  try {
    checkDelivered(file.bytes, options);
  } catch (err) {
    await calls.unlink(dir.at(name)).catch(() => undefined);
    throw err;
  }
  return { bytes: file.bytes, identity: writtenIdentity(file) };
}

/**
 * writeUnseenFile for a small local file while both file systems answer in microseconds (tmpfs, the
 * page cache): the same calls, made one after another with no promise to settle between them, which
 * on tmpfs cost a small file's copy a twentieth of its CPU.
 */
function writeSmallFileNow(calls: FileSystemCalls, file: HeldName, sourceCalls: FileSystemCalls, source: OpenedSourceFile, options: WriteOptions, replace: boolean): WrittenFile {
  let fd: number;
  try {
    fd = calls.openSync(file, CREATE_NEW, options.mode);
  } catch (err) {
    if (!replace || (err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    calls.unlinkSync(file);
    fd = calls.openSync(file, CREATE_NEW, options.mode);
  }
  try {
    let written: WrittenFile;
    try {
      const bytes = copySmallFileNow(calls, fd, sourceCalls, source);
      checkDelivered(bytes, options);
      if (options.uid !== undefined || options.gid !== undefined) calls.now(() => fs.fchownSync(fd, options.uid ?? -1, options.gid ?? -1));
      if (options.mtimeMs !== undefined) calls.now(() => fs.futimesSync(fd, options.mtimeMs! / 1000, options.mtimeMs! / 1000));
      written = { bytes, identity: writtenIdentity(calls.now(() => fs.fstatSync(fd))) };
    } finally {
      calls.closeSync(fd);
    }
    return written;
  } catch (err) {
    try {
      calls.unlinkSync(file);
    } catch {
      // already gone
    }
    throw err;
  }
}

/** copyLocalFile for a file below SMALL_COPY_BYTES, made with synchronous calls (see writeSmallFileNow). */
function copySmallFileNow(calls: FileSystemCalls, fd: number, sourceCalls: FileSystemCalls, source: OpenedSourceFile): number {
  const spares = spareBuffers.get(SMALL_COPY_BYTES)!;
  const buffer = spares.pop() ?? Buffer.allocUnsafeSlow(SMALL_COPY_BYTES);
  try {
    let total = 0;
    for (let n = -1; total < source.size && n !== 0; total += n) {
      n = sourceCalls.now(() => fs.readSync(source.fd, buffer, 0, Math.min(buffer.length, source.size - total), total));
      for (let offset = 0; offset < n;) offset += calls.now(() => fs.writeSync(fd, buffer, offset, n - offset, null));
    }
    return total;
  } finally {
    spares.push(buffer);
  }
}

/** Refuses content whose length is not the one the source declared (an archive that lies about a size). */
function checkDelivered(bytes: number, options: WriteOptions): void {
  if (options.expectedSize !== undefined && bytes !== options.expectedSize) {
    throw new Error(`the source said ${options.expectedSize} bytes but delivered ${bytes}`);
  }
}

/** Files up to this size are copied through a small buffer: many are in flight at once. */
const SMALL_COPY_BYTES = 64 * 1024;
/** Buffers for copyLocalFile by size, one per copy in flight at most, kept for the next ones. */
const spareBuffers = new Map<number, Buffer[]>([[SMALL_COPY_BYTES, []], [WRITE_CHUNK_BYTES, []]]);

/**
 * Copies the opened source file to `fd` (written with `calls`) through a reused buffer, up to the size
 * its fstat gave (a file that grew since is cut there; one that shrank is caught by the size check);
 * its length.
 */
async function copyLocalFile(calls: FileSystemCalls, fd: number, sourceCalls: FileSystemCalls, source: OpenedSourceFile): Promise<number> {
  const size = source.size < SMALL_COPY_BYTES ? SMALL_COPY_BYTES : WRITE_CHUNK_BYTES;
  const spares = spareBuffers.get(size)!;
  const buffer = spares.pop() ?? Buffer.allocUnsafeSlow(size);
  try {
    let total = 0;
    while (total < source.size) {
      const n = await sourceCalls.read(source.fd, buffer.subarray(0, Math.min(buffer.length, source.size - total)), total);
      if (n === 0) break;
      total += await calls.writeAll(fd, buffer.subarray(0, n), WRITE_CHUNK_BYTES);
    }
    return total;
  } finally {
    spares.push(buffer);
  }
}

/** Gathers the stream into 1 MiB writes: sources hand out small chunks (64 KiB from S3, 16 KiB from tar). */
async function writeStream(calls: FileSystemCalls, fd: number, stream: Readable): Promise<number> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let total = 0;
  const flush = async () => {
    if (pendingBytes === 0) return;
    total += await calls.writeAll(fd, Buffer.concat(pending, pendingBytes), WRITE_CHUNK_BYTES);
    pending = [];
    pendingBytes = 0;
  };
  for await (const chunk of stream) {
    pending.push(chunk as Buffer);
    pendingBytes += (chunk as Buffer).length;
    if (pendingBytes >= WRITE_CHUNK_BYTES) await flush();
  }
  await flush();
  return total;
}
