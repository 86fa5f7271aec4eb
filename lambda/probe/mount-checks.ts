import * as fs from 'fs';
import { CheckResult, pass, skip, warn } from '../shared/mount-checks/check-result';
import { isNfs, MountEntry, mountContaining, MOUNTINFO, nfsServerOf, parseMountInfo } from '../shared/mount-checks/mountinfo';
import { judgeNfsOptions, MOUNT_OPTIONS_CHECK } from '../shared/mount-checks/nfs-mount-options';
import { compareWithAccessPoint, IDENTITY_CHECK, PosixIdentity, processIdentity } from '../shared/mount-checks/posix-identity';

/**
 * The doctor's checks that apply where the probe runs (a Lambda, or any client through the CLI),
 * on the directory it probes: the mount it lies in and its type, the NFS options against EFS's
 * recommendation, and this process's identity against the access point's enforced user. Nothing
 * here needs amazon-efs-utils or AWS credentials. They inform; they never change the run's status:
 * Lambda mounts NFS itself, and the CLI may probe a local directory on purpose, to compare.
 */
export interface ProbeMountContext {
  readonly target: string;
  readonly fileSystemId?: string;
  /** The access point the target is mounted through, when the probe is told it (the construct tells its function). */
  readonly accessPoint?: ProbeAccessPoint;
  /** @default reads /proc/self/mountinfo */
  readonly mountinfo?: () => string;
  /** @default this process's effective ids */
  readonly identity?: PosixIdentity;
  /**
   * Whether this runs in a Lambda function, which mounts the access point itself: its process's uid
   * (Lambda's own) never reaches EFS, whose access point replaces it on every request.
   * @default false
   */
  readonly insideLambda?: boolean;
}

export interface ProbeAccessPoint {
  readonly id: string;
  /** The POSIX user it enforces, if any. */
  readonly posixUser?: PosixIdentity;
}

export const MOUNT_CHECK = 'mount';

export function probeMountChecks(context: ProbeMountContext): CheckResult[] {
  let entry: MountEntry | undefined;
  let dir = context.target;
  let unreadable: string | undefined;
  try {
    dir = fs.realpathSync(context.target);
    entry = mountContaining(parseMountInfo((context.mountinfo ?? (() => fs.readFileSync(MOUNTINFO, 'utf8')))()), dir);
  } catch (err) {
    unreadable = (err as Error).message;
  }
  const nfs = entry && isNfs(entry) ? entry : undefined;
  return [
    mountCheck(context, dir, entry, unreadable),
    nfs ? judgeNfsOptions(nfs) : skip(MOUNT_OPTIONS_CHECK, `mount options: skipped, ${context.target} is not on an NFS mount`),
    identityCheck(context),
  ];
}

/** `dir` is the target with links resolved, as mountinfo lists mount points. */
function mountCheck(context: ProbeMountContext, dir: string, entry: MountEntry | undefined, unreadable: string | undefined): CheckResult {
  const { target, fileSystemId } = context;
  if (unreadable) return skip(MOUNT_CHECK, `the mount of ${target}: skipped, ${unreadable}`);
  if (!entry) return skip(MOUNT_CHECK, `the mount of ${target}: skipped, no mount in ${MOUNTINFO} contains it`);
  const where = entry.mountPoint === dir ? target : `${target} (in the mount at ${entry.mountPoint})`;
  if (!isNfs(entry)) {
    return warn(MOUNT_CHECK, `${where} is not an NFS mount (it is ${entry.fsType}, ${entry.source}): these figures are not EFS's`,
      'probe a directory on an EFS mount to measure EFS; a local directory is fine as a baseline to compare with');
  }
  const named = /(?:^|\.)(fs-[0-9a-f]{8,40})\.efs\./.exec(nfsServerOf(entry.source))?.[1];
  if (fileSystemId && named && named !== fileSystemId) {
    return warn(MOUNT_CHECK, `${where} mounts ${named} (${entry.source}), not ${fileSystemId}: these figures are of ${named}`, `probe a directory on ${fileSystemId}`);
  }
  const readOnly = entry.mountOptions.includes('ro') ? ', read-only' : '';
  return pass(MOUNT_CHECK, `${where} is an NFS mount (${entry.fsType} from ${entry.source}${readOnly})`);
}

function identityCheck(context: ProbeMountContext): CheckResult {
  if (!context.accessPoint) return skip(IDENTITY_CHECK, 'POSIX identity: skipped, the probe was not told the access point it writes through');
  const { id, posixUser } = context.accessPoint;
  if (context.insideLambda && posixUser) {
    return pass(IDENTITY_CHECK, `the access point ${id} sets uid ${posixUser.uid} gid ${posixUser.gid} for every client: `
      + `files this function creates belong to ${posixUser.uid}:${posixUser.gid}, whatever uid Lambda runs it as`);
  }
  return compareWithAccessPoint(context.identity ?? processIdentity(), id, posixUser);
}

/** `1000:1000` (PROBE_ACCESS_POINT_POSIX_USER) as an identity; undefined when absent or malformed. */
export function parsePosixUser(value: string | undefined): PosixIdentity | undefined {
  const match = /^(\d+):(\d+)((?:,\d+)*)$/.exec(value ?? '');
  if (!match) return undefined;
  return { uid: Number(match[1]), gid: Number(match[2]), secondaryGids: match[3].split(',').filter(Boolean).map(Number) };
}
