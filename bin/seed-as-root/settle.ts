import { Controller, controlOf } from './path-control';
import { groupMembers, nameOf, PasswdEntry, passwdEntry } from './name-service';

/**
 * Least privilege for the seed run as root. Root creates and deletes where it is told, so by default
 * the run takes no more than the target needs: on a target another user owns, the whole run (source
 * reads included) becomes that user, as a login would; on a target only root can change, it stays
 * root. Whoever else can change the target, a directory on the way to it (a link planted in a user's
 * directory is hers to aim), or the source (its entries could be swapped for links to what only the
 * run's user can read) makes it refuse, in one line naming the place, the user and the flag:
 * `--allow-root` runs as root all the same. The seed acts only relative to directories it holds open,
 * so nothing planted can lead it outside the target: this is defence in depth.
 */
export interface RootChoice {
  readonly allowRoot: boolean;
}

/**
 * Before anything is read or written: as root, becomes the target's owner, stays root, or refuses.
 * `source` is a local path (a directory or an archive), undefined for S3.
 */
export function settleRootRun(source: string | undefined, target: string, choice: RootChoice): void {
  if (process.geteuid?.() !== 0 || choice.allowRoot) return;
  const onTarget = controlOf(target);
  const runAs = onTarget.owner === 0 ? undefined : ownerEntry(onTarget.owner, target);
  const actor = runAs ? nameOf('passwd', runAs.uid) : 'root';
  const label = (where: string, control: typeof onTarget, named: string) =>
    where !== control.existing ? `${where}, on the way to ${named},` : control.complete ? named : `${where} (where ${named} would be made)`;

  const stranger = onTarget.controllers.find((c) => !isRunAs(c, runAs));
  if (stranger) {
    throw new Error(`refusing to seed as root: ${describe(stranger, label(stranger.where, onTarget, target))}, who could change it while ${actor} writes there; `
      + `${remedy(stranger, actor)}, or pass --allow-root to copy as root all the same`);
  }
  if (source !== undefined) {
    const onSource = controlOf(source);
    const swapper = onSource.controllers.find((c) => !isRunAs(c, runAs));
    if (swapper) {
      throw new Error(`refusing to seed as root: ${describe(swapper, label(swapper.where, onSource, `the source ${source}`))}, who could swap what it holds while the seed reads it as ${actor}; `
        + `${remedy(swapper, actor)}, or pass --allow-root to read it as root all the same`);
    }
  }
  if (runAs) becomeUser(runAs);
}

/** The target owner's passwd entry: a uid without one has no groups to take, so it is refused rather than guessed. */
function ownerEntry(uid: number, target: string): PasswdEntry {
  const entry = passwdEntry(uid);
  if (!entry) {
    throw new Error(`refusing to seed as root: ${target} belongs to uid ${uid}, which has no passwd entry, so the groups to seed with are unknown; `
      + `run the seed as that user (setpriv --reuid=${uid} --regid=<its group> --clear-groups), or pass --allow-root to copy as root all the same`);
  }
  return entry;
}

/** Whether `c` is the user the run works as: herself, or her own group with no other member the group database lists. */
function isRunAs(c: Controller, runAs: PasswdEntry | undefined): boolean {
  if (!runAs) return false;
  if (c.kind === 'user') return c.id === runAs.uid;
  if (c.kind === 'group' && c.id === runAs.gid) return (groupMembers(c.id) ?? []).every((member) => member === runAs.name);
  return false;
}

/** 'X belongs to alice (uid 1000)', 'every user can write X', 'bob (uid 1001) can write X (its ACL says so)'. */
function describe(c: Controller, place: string): string {
  const acl = c.by === 'acl' ? ' (its ACL says so)' : '';
  if (c.kind === 'others') return `every user can write ${place}`;
  if (c.kind === 'group') return `group ${nameOf('group', c.id)} can write ${place}${acl}`;
  return c.by === 'owner' ? `${place} belongs to ${nameOf('passwd', c.id)}` : `${nameOf('passwd', c.id)} can write ${place}${acl}`;
}

/** What the administrator can do instead: seed as the user who owns it, or take the others' write away. */
function remedy(c: Controller, actor: string): string {
  return c.kind === 'user' && c.by === 'owner' ? `run the seed as ${nameOf('passwd', c.id).replace(/ \(uid \d+\)$/, '')}` : `make it writable by ${actor} alone`;
}

/**
 * Becomes `user` as a login would: her uid, her primary group and her supplementary groups from the
 * passwd and group databases (never the target directory's group, which may be root's).
 */
function becomeUser(user: PasswdEntry): void {
  // Node's process.initgroups (getgrouplist + setgroups), which @types/node does not declare.
  (process as unknown as { initgroups(user: string, extraGroup: number): void }).initgroups(user.name, user.gid);
  process.setgid!(user.gid);
  process.setuid!(user.uid);
}
