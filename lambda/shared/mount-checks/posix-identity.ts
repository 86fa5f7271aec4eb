import { CheckResult, fail, pass, warn } from './check-result';

/**
 * Who writes, and whether they may. Through an access point with a POSIX user, EFS replaces the
 * client's uid, gid and groups with the access point's on every request, whatever the client
 * runs as; so the files a process creates belong to the access point's user, and only that user's
 * permissions on the access point's root directory decide what it may write.
 */

export interface PosixIdentity {
  readonly uid: number;
  readonly gid: number;
  readonly secondaryGids: number[];
}

/** The owner and mode of a directory. */
export interface DirectoryOwner {
  readonly uid: number;
  readonly gid: number;
  /** Permission bits, e.g. 0o755. */
  readonly mode: number;
}

export const IDENTITY_CHECK = 'posix-identity';
export const ROOT_DIRECTORY_CHECK = 'access-point-root';

/** The identity this process acts as (effective ids). */
export function processIdentity(): PosixIdentity {
  return { uid: process.geteuid!(), gid: process.getegid!(), secondaryGids: process.getgroups!().filter((g) => g !== process.getegid!()) };
}

const idOf = (who: PosixIdentity) => `${who.uid}:${who.gid}`;

/** The client's identity against the access point's: equal passes, different warns with both ids. */
export function compareWithAccessPoint(client: PosixIdentity, accessPointId: string, enforced: PosixIdentity | undefined): CheckResult {
  if (!enforced) {
    return pass(IDENTITY_CHECK, `${accessPointId} enforces no POSIX user: requests carry this client's uid:gid ${idOf(client)}`);
  }
  if (client.uid === enforced.uid && client.gid === enforced.gid) {
    return pass(IDENTITY_CHECK, `this client runs as ${idOf(client)}, the POSIX user ${accessPointId} enforces`);
  }
  return warn(IDENTITY_CHECK,
    `this client runs as ${idOf(client)} but ${accessPointId} makes every request ${idOf(enforced)}: files it creates belong to ${idOf(enforced)}, and programs that check owners (sshd, PostgreSQL, git's safe.directory) may refuse them`,
    `run the client as ${idOf(enforced)} (ECS: the container's user "${idOf(enforced)}"), or use an access point whose PosixUser is ${idOf(client)}`);
}

/** Whether `who` may create files in a directory of that owner and mode (write and search permission). */
export function canWrite(who: PosixIdentity, dir: DirectoryOwner): boolean {
  if (who.uid === 0) return true; // root, unless squashed (see the file system policy check)
  const bits = who.uid === dir.uid ? (dir.mode >> 6) : (who.gid === dir.gid || who.secondaryGids.includes(dir.gid)) ? (dir.mode >> 3) : dir.mode;
  return (bits & 0o3) === 0o3;
}

/** The access point's enforced user against the owner of its root directory. */
export function judgeRootDirectory(accessPointId: string, rootPath: string, writer: PosixIdentity, dir: DirectoryOwner, source: string): CheckResult {
  const described = `${rootPath} (owner ${dir.uid}:${dir.gid}, mode ${dir.mode.toString(8).padStart(3, '0')}, ${source})`;
  if (canWrite(writer, dir)) return pass(ROOT_DIRECTORY_CHECK, `${idOf(writer)} may write the root directory of ${accessPointId}, ${described}`);
  return fail(ROOT_DIRECTORY_CHECK,
    `${idOf(writer)} may not write the root directory of ${accessPointId}, ${described}: every create there fails with Permission denied`,
    `give the directory to ${idOf(writer)} (chown from a mount that may, or recreate the access point with CreationInfo OwnerUid/OwnerGid ${writer.uid}/${writer.gid}), or make it group-writable for gid ${writer.gid}`);
}
