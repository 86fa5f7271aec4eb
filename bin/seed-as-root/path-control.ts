import * as fs from 'fs';
import * as path from 'path';
import { aclWriters } from './acl';

/** Links followed on the way to a path at most, as the kernel allows. */
const MAX_LINKS = 40;

/** Someone other than root who can change a directory on the way to a path, or the path itself. */
export interface Controller {
  readonly kind: 'user' | 'group' | 'others';
  /** A uid or gid (0 for others). */
  readonly id: number;
  /** How: by owning it, by the mode's bits, or by an entry of its POSIX ACL. */
  readonly by: 'owner' | 'mode' | 'acl';
  /** The directory (or file) it can change. */
  readonly where: string;
}

/** Who can change what a path names, as found walking to it. */
export interface PathControl {
  /** The path itself, or the nearest directory on the way to it where the rest does not exist yet. */
  readonly existing: string;
  /** Whether the whole path exists (otherwise the rest would be made under `existing`). */
  readonly complete: boolean;
  /** The owner of `existing`. */
  readonly owner: number;
  /** Everyone but root who can change `existing` or any directory passed on the way to it. */
  readonly controllers: Controller[];
}

/**
 * Walks to `named` from `/` one component at a time as the kernel would, with lstat only, and notes
 * who could change each directory passed (and so swap what comes next: a link planted in a user's
 * directory is hers to aim, whatever it points at) and the path itself. A link is followed only
 * to find where the path leads; the directory holding it stays on the list, so a link a user could
 * plant never makes a path look root's.
 */
export function controlOf(named: string): PathControl {
  const pending = components(path.isAbsolute(named) ? named : `${process.cwd()}/${named}`);
  let current = '/';
  let stats = fs.lstatSync(current);
  const controllers: Controller[] = [];
  let links = 0;
  let complete = true;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === '..') {
      current = path.dirname(current);
      stats = fs.lstatSync(current);
      continue;
    }
    const next = path.join(current, part);
    const entry = fs.lstatSync(next, { throwIfNoEntry: false });
    if (!entry) {
      complete = false;
      break;
    }
    controllers.push(...writersOf(current, stats, { path: next, uid: entry.uid }));
    if (entry.isSymbolicLink()) {
      if (++links > MAX_LINKS) throw new Error(`refusing to seed: more than ${MAX_LINKS} links on the way to ${named}`);
      const to = fs.readlinkSync(next);
      pending.unshift(...components(to));
      if (path.isAbsolute(to)) {
        current = '/';
        stats = fs.lstatSync(current);
      }
      continue;
    }
    current = next;
    stats = entry;
    if (!entry.isDirectory()) {
      complete = pending.length === 0;
      break;
    }
  }
  controllers.push(...writersOf(current, stats));
  return { existing: current, complete, owner: stats.uid, controllers };
}

const components = (p: string) => p.split('/').filter((part) => part !== '' && part !== '.');

/**
 * Everyone but root who can change `where`: its owner (who can always chmod it), the group and others
 * where the mode lets them write, and the users and groups its ACL lets write. On the way to a path
 * (`entry` given, the one taken from it), a sticky directory such as /tmp lets
 * others rename or remove only what they own: there the entry's owner counts, not every writer.
 */
function writersOf(where: string, stats: fs.Stats, entry?: { readonly path: string; readonly uid: number }): Controller[] {
  const found: Controller[] = [];
  const add = (kind: Controller['kind'], id: number, by: Controller['by'], at = where) => {
    if (kind === 'others' || id !== 0) found.push({ kind, id, by, where: at });
  };
  add('user', stats.uid, 'owner');
  if (entry && (stats.mode & 0o1000) !== 0) {
    add('user', entry.uid, 'owner', entry.path);
    return found;
  }
  if ((stats.mode & 0o002) !== 0) add('others', 0, 'mode');
  if ((stats.mode & 0o020) !== 0) {
    const acl = aclWriters(where);
    if (!acl || acl.owningGroup) add('group', stats.gid, 'mode');
    for (const uid of acl?.users ?? []) add('user', uid, 'acl');
    for (const gid of acl?.groups ?? []) add('group', gid, 'acl');
  }
  return found;
}
