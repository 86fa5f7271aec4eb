import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

/**
 * Defence in depth for the seed run as root: on a target that another user owns or can write, root
 * would create and delete files where that user can plant things. The seed acts only relative to
 * directories it holds open, so nothing planted can lead it outside the target; still, by default it
 * refuses, and says how to go on: as the target's owner (`--as-owner`: the whole run, source reads
 * included, as that user; the files then belong to it, as they would had the owner seeded it), or as
 * root all the same (`--allow-root`).
 */
export interface RootChoice {
  readonly asOwner: boolean;
  readonly allowRoot: boolean;
}

/** Who else could act on `target` (the nearest existing directory at or above it), if anyone. */
export function foreignTarget(target: string): { readonly uid: number; readonly gid: number; readonly why: string; readonly ownedByOther: boolean } | undefined {
  let dir = path.resolve(target);
  let stats = fs.statSync(dir, { throwIfNoEntry: false });
  while (!stats && path.dirname(dir) !== dir) {
    dir = path.dirname(dir);
    stats = fs.statSync(dir, { throwIfNoEntry: false });
  }
  if (!stats) return undefined;
  const { uid, gid, mode } = stats;
  const where = dir === path.resolve(target) ? target : `${dir} (where ${target} would be made)`;
  if (uid !== 0) return { uid, gid, ownedByOther: true, why: `${where} belongs to ${nameOf('passwd', uid)}` };
  if (mode & 0o002) return { uid, gid, ownedByOther: false, why: `every user can write ${where}` };
  if ((mode & 0o020) && gid !== 0) return { uid, gid, ownedByOther: false, why: `group ${nameOf('group', gid)} can write ${where}` };
  return undefined;
}

/**
 * Before anything is read or written: as root on a foreign target, either becomes its owner
 * (`--as-owner`), goes on (`--allow-root`), or refuses with one line naming the owner and the flags.
 */
export function settleRootRun(target: string, choice: RootChoice): void {
  if (process.geteuid?.() !== 0 || choice.allowRoot) return;
  const foreign = foreignTarget(target);
  if (!foreign) return;
  if (choice.asOwner && foreign.ownedByOther) {
    becomeUser(foreign.uid);
    return;
  }
  const asOwner = foreign.ownedByOther ? `run it as that user, or pass --as-owner to copy as uid ${foreign.uid} (the files then belong to it), or ` : 'make it writable by root alone, or pass ';
  throw new Error(`refusing to seed as root: ${foreign.why}, who could change it while root writes there; ${asOwner}--allow-root to copy as root all the same`);
}

/**
 * Becomes the user `uid` as a login would: its uid, its primary group and its supplementary groups
 * from the passwd and group databases (never the target directory's group, which may be root's).
 * A uid with no passwd entry has no groups to take: refused, rather than guessed.
 */
function becomeUser(uid: number): void {
  const entry = passwdEntry(uid);
  if (!entry) {
    throw new Error(`refusing --as-owner: uid ${uid}, who owns the target, has no passwd entry, so its groups are unknown; `
      + `run the seed as that user (setpriv --reuid=${uid} --regid=<its group> --clear-groups), or pass --allow-root`);
  }
  // Node's process.initgroups (getgrouplist + setgroups), which @types/node does not declare.
  (process as unknown as { initgroups(user: string, extraGroup: number): void }).initgroups(entry.name, entry.gid);
  process.setgid!(entry.gid);
  process.setuid!(uid);
}

/** The passwd database's entry of `uid` (as getent reads it: files, LDAP, ...), if any. */
function passwdEntry(uid: number): { readonly name: string; readonly gid: number } | undefined {
  const fields = getent('passwd', uid);
  const gid = Number(fields?.[3]);
  return fields?.[0] && Number.isSafeInteger(gid) ? { name: fields[0], gid } : undefined;
}

/** The fields of `id`'s entry in a name-service database, or undefined where it has none. */
function getent(database: 'passwd' | 'group', id: number): string[] | undefined {
  try {
    return execFileSync('getent', [database, String(id)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split(':');
  } catch {
    return undefined;
  }
}

/** A user or group by name and id ('www-data (uid 33)'), or by id where it has no name. */
function nameOf(database: 'passwd' | 'group', id: number): string {
  const kind = database === 'passwd' ? 'uid' : 'gid';
  const name = getent(database, id)?.[0];
  return name ? `${name} (${kind} ${id})` : `${kind} ${id}`;
}
