import * as fs from 'fs';
import * as path from 'path';
import { FileSystemCalls } from '../boundary/file-system-calls';
import { openStateFile } from '../boundary/state-file';
import { MadeDirectory, TargetTree } from '../boundary/target-tree';

/**
 * Left in a directory a seed made that its Delete found in use (another seed's place below it, say
 * /sites of /sites/a and /sites/b): the directory's inode, so that whichever Delete empties it last,
 * the maker's or another seed's, removes it. Written before the maker looks whether the directory is
 * empty, so that of two Deletes at once the one that looks last sees it.
 */
export const MADE_MARK = '.cdk-efs-kit-made-directory';

const CREATE_NEW = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;

/**
 * Removes, from `place` up towards the mount, the directories a seed made while they are empty and
 * still the one made: those in `made` (this seed's record) and those another seed marked as its own
 * (MADE_MARK). Stops at the first directory that is neither, is in use or is another one by now; a
 * parent of this seed's left in use is marked for the Delete that empties it. Returns the removed.
 */
export async function removeMadeDirectories(mountPath: string, place: string, made: MadeDirectory[]): Promise<string[]> {
  const mine = new Map(made.map((dir) => [dir.path, dir.ino]));
  const removed: string[] = [];
  for (let dir = place; dir !== '' && dir !== '.'; dir = path.posix.dirname(dir)) {
    const ino = mine.get(dir);
    const outcome = await removeIfEmpty(mountPath, dir, ino);
    if (outcome === 'removed') {
      removed.push(dir);
      continue;
    }
    // A parent in use (another seed's place may be below it): this seed's directories from here up are
    // marked, so that the last Delete to empty them removes them. The place itself in use holds what
    // someone else put there: it stays, unmarked.
    if (outcome === 'in use' && ino !== undefined && dir !== place) await markAndRetry(mountPath, dir, mine, removed);
    break;
  }
  return removed;
}

type Outcome = 'removed' | 'in use' | 'not ours';

/** `dir` removed when it is empty (but for a mark) and is the directory `ino` (this seed's), or one a mark says a seed made. */
async function removeIfEmpty(mountPath: string, dir: string, ino: string | undefined): Promise<Outcome> {
  const tree = await TargetTree.open(new FileSystemCalls(FileSystemCalls.TARGET), mountPath, dir, false).catch(() => undefined);
  if (!tree) return 'not ours';
  let own: string;
  let unmarked = false;
  try {
    own = String((await tree.calls.fstat(tree.root.fd)).ino);
    if ((ino ?? await readMark(tree)) !== own) return 'not ours';
    const names = (await tree.calls.readdir(tree.root.self)).map((entry) => entry.name);
    if (names.some((name) => name !== MADE_MARK)) return 'in use';
    unmarked = names.length > 0 && await tree.calls.unlink(tree.root.at(MADE_MARK)).then(() => true, () => false);
  } finally {
    await tree.close();
  }
  if (await rmdirIfSame(mountPath, dir, own)) return 'removed';
  // Something came in meanwhile: the mark goes back, for the Delete that empties it next.
  if (unmarked) await writeMark(mountPath, dir, own);
  return 'in use';
}

/** Marks `dir` and this seed's directories above it, then looks again: a Delete that emptied `dir` meanwhile did not see the mark. */
async function markAndRetry(mountPath: string, dir: string, mine: Map<string, string>, removed: string[]): Promise<void> {
  for (let up = dir; mine.has(up); up = path.posix.dirname(up)) await writeMark(mountPath, up, mine.get(up)!);
  for (let up = dir; up !== '' && up !== '.'; up = path.posix.dirname(up)) {
    if (await removeIfEmpty(mountPath, up, mine.get(up)) !== 'removed') return;
    removed.push(up);
  }
}

/**
 * The inode a mark names, or undefined where there is none or it is not one a seed could have left:
 * opened as the seed's state files are (no link, no waiting on a FIFO), a regular file of at most a
 * few bytes that belongs to the user this process writes as (a mark anyone else planted is not proof).
 */
async function readMark(tree: TargetTree): Promise<string | undefined> {
  const opened = await openStateFile(tree.calls, tree.root.at(MADE_MARK), MADE_MARK, process.geteuid?.()).catch(() => undefined);
  if (opened === undefined) return undefined;
  try {
    if (opened.stats.size > 256n) return undefined;
    const buffer = Buffer.alloc(256);
    const read = JSON.parse(buffer.toString('utf8', 0, await tree.calls.read(opened.fd, buffer, 0))) as { ino?: unknown };
    return typeof read?.ino === 'string' ? read.ino : undefined;
  } catch {
    return undefined;
  } finally {
    await tree.calls.close(opened.fd).catch(() => undefined);
  }
}

async function writeMark(mountPath: string, dir: string, ino: string): Promise<void> {
  const tree = await TargetTree.open(new FileSystemCalls(FileSystemCalls.TARGET), mountPath, dir, false).catch(() => undefined);
  if (!tree) return;
  try {
    if (String((await tree.calls.fstat(tree.root.fd)).ino) !== ino) return;
    const fd = await tree.calls.open(tree.root.at(MADE_MARK), CREATE_NEW, 0o644).catch(() => undefined); // one there already stays
    if (fd === undefined) return;
    try {
      await tree.calls.write(fd, Buffer.from(JSON.stringify({ ino })));
    } finally {
      await tree.calls.close(fd);
    }
  } finally {
    await tree.close();
  }
}

/** Removes `dir` (empty) through its parent while it is still the directory `ino`. */
async function rmdirIfSame(mountPath: string, dir: string, ino: string): Promise<boolean> {
  const parent = path.posix.dirname(dir);
  const tree = await TargetTree.open(new FileSystemCalls(FileSystemCalls.TARGET), mountPath, parent === '.' ? '' : parent, false).catch(() => undefined);
  if (!tree) return false;
  try {
    const at = tree.root.at(path.posix.basename(dir));
    const stats = await tree.calls.lstatExact(at).catch(() => undefined);
    if (!stats?.isDirectory() || String(stats.ino) !== ino) return false;
    return await tree.calls.rmdir(at).then(() => true, () => false);
  } finally {
    await tree.close();
  }
}
