import * as fs from 'fs';
import { LocalFileContent } from './entry';
import { BeneathOpener } from '../boundary/open-beneath';
import type { SourceRefusal } from '../boundary/native-writer';

/**
 * A local source file as the copy reads it: opened beneath the held source root (never through a
 * link: a directory on its path swapped for one since the walk fails it), then fstat'ed. What the copy
 * takes from it (a regular file, its size, its mode) is what that fstat says of the descriptor it
 * reads, and the copy stops at that size.
 */
export interface OpenedSourceFile {
  readonly fd: number;
  readonly size: number;
  /** Permission bits (and setuid/setgid/sticky, which the writer drops). */
  readonly mode: number;
}

/** O_NONBLOCK: a FIFO swapped in for the file since the walk is opened and refused, not waited on. */
const OPEN_SOURCE = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/** Opens `content`'s file, synchronously (the source answers from memory): opened and fstat'ed in one call. */
export function openSourceFileNow(content: LocalFileContent): OpenedSourceFile {
  const opened = content.calls.now(() => opening(content, () => BeneathOpener.shared().openStatSync(content.root, content.path, OPEN_SOURCE)));
  return checked(content, opened.fd, opened, () => closeSourceFile(content, opened.fd));
}

/** Opens `content`'s file with its source's calls (on the thread pool once the source is slow). */
export async function openSourceFile(content: LocalFileContent): Promise<OpenedSourceFile> {
  const opener = BeneathOpener.shared();
  const fd = await content.calls.call(
    () => opening(content, () => opener.openSync(content.root, content.path, OPEN_SOURCE)),
    () => opener.open(content.root, content.path, OPEN_SOURCE).catch((err) => { throw explained(content, err); }),
  );
  let stats: fs.Stats;
  try {
    stats = await content.calls.fstatPlain(fd);
  } catch (err) {
    closeSourceFile(content, fd);
    throw err;
  }
  return checked(content, fd, stats, () => closeSourceFile(content, fd));
}

/** Closes a source file opened here (by the opener that opened it; see BeneathOpener.close). A read-only descriptor's close has nothing to report. */
export function closeSourceFile(content: LocalFileContent, fd: number): void {
  try {
    content.calls.now(() => BeneathOpener.shared().close(fd));
  } catch {
    // nothing was written through it
  }
}

function opening<T>(content: LocalFileContent, open: () => T): T {
  try {
    return open();
  } catch (err) {
    throw explained(content, err as NodeJS.ErrnoException);
  }
}

/** A refusal of the beneath-opener, said as what happened to the source. */
function explained(content: LocalFileContent, err: NodeJS.ErrnoException): Error {
  if (err.code !== 'ELOOP' && err.code !== 'EXDEV') return err;
  return Object.assign(new Error(`${err.code}: the source's ${content.path} is reached through a symlink (a directory on its path was replaced by one since the walk, or it is one itself); nothing outside the source is read`), { code: err.code });
}

/** The opened file, if what its fstat said (`stats`) is a regular file's; else it is closed and refused. */
function checked(content: LocalFileContent, fd: number, stats: { readonly mode: number; readonly size: number }, close: () => void): OpenedSourceFile {
  if ((stats.mode & fs.constants.S_IFMT) !== fs.constants.S_IFREG) {
    close();
    throw notRegular(content);
  }
  return { fd, size: stats.size, mode: stats.mode & 0o7777 };
}

const notRegular = (content: LocalFileContent) => Object.assign(
  new Error(`the source's ${content.path} is no longer a regular file (it was replaced during the seed); nothing is copied from it`), { code: 'EINVAL' });

/**
 * What the native writer's job found on opening `content`'s file itself (NativeWriter.writeNewFileBeneath),
 * said as openSourceFile says it: a refused open, a failed fstat, not a regular file. (One larger than
 * the job's limit is not a failure: the caller copies it call by call.)
 */
export function refusedSource(content: LocalFileContent, refusal: SourceRefusal): Error {
  if (refusal.call === 'open') return explained(content, refusal.error);
  if (refusal.call === 'fstat') return refusal.error;
  if (refusal.call === 'not a regular file') return notRegular(content);
  return new Error(`internal: the source's ${content.path} was refused as ${refusal.call}`);
}
