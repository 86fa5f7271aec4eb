import { execFileSync } from 'child_process';

/** The fields of `id`'s entry in a name-service database (files, LDAP, ... as getent reads them), or undefined where it has none. */
function getent(database: 'passwd' | 'group', id: number): string[] | undefined {
  try {
    return execFileSync('getent', [database, String(id)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split(':');
  } catch {
    return undefined;
  }
}

/** A user as a login takes her: her name and her primary group, from the passwd database. */
export interface PasswdEntry {
  readonly uid: number;
  readonly name: string;
  readonly gid: number;
}

/** The passwd database's entry of `uid`, if any. */
export function passwdEntry(uid: number): PasswdEntry | undefined {
  const fields = getent('passwd', uid);
  const gid = Number(fields?.[3]);
  return fields?.[0] && Number.isSafeInteger(gid) ? { uid, name: fields[0], gid } : undefined;
}

/** The members the group database lists for `gid` (not those whose primary group it is), or undefined where it has no entry. */
export function groupMembers(gid: number): string[] | undefined {
  const fields = getent('group', gid);
  return fields ? (fields[3] ?? '').split(',').filter(Boolean) : undefined;
}

/** A user or group by name and id ('www-data (uid 33)'), or by id where it has no name. */
export function nameOf(database: 'passwd' | 'group', id: number): string {
  const kind = database === 'passwd' ? 'uid' : 'gid';
  const name = getent(database, id)?.[0];
  return name ? `${name} (${kind} ${id})` : `${kind} ${id}`;
}
