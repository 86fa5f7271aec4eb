import * as fs from 'fs';
import * as path from 'path';
import { STATE_DIR } from '../state/state-directory';

/**
 * The target root: the directory the seed fills. The caller names it and may name it through a
 * symlink (/mnt/efs -> ...), as with cp; below it, nothing is ever followed.
 */

/** Kernel file systems (statfs f_type) whose files are not data: writing there hangs or changes the system. */
const PSEUDO_FILE_SYSTEMS = new Map<number, string>([
  [0x9fa0, 'proc'], [0x62656572, 'sysfs'], [0x64626720, 'debugfs'], [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'], [0x27e0eb, 'cgroup'], [0x63677270, 'cgroup2'], [0x1cd1, 'devpts'],
  [0xcafe4a11, 'bpf'], [0x62656570, 'configfs'], [0x6165676c, 'pstore'], [0xde5e81e4, 'efivarfs'],
]);

/** The nearest existing directory at or above `target`, resolved, and the part below it still to be made. */
function existingAncestor(target: string): { real: string; rest: string } {
  let dir = path.resolve(target);
  const rest: string[] = [];
  for (;;) {
    try {
      return { real: fs.realpathSync(dir), rest: rest.reverse().join('/') };
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return { real: dir, rest: rest.reverse().join('/') };
      rest.push(path.basename(dir));
      dir = parent;
    }
  }
}

/** Where `target` is, with every link on the way resolved (parts not made yet appended as they are). */
function realTarget(target: string): string {
  const { real, rest } = existingAncestor(target);
  return rest ? path.join(real, rest) : real;
}

const inside = (child: string, parent: string) => child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);

/**
 * Refuses a target on a kernel file system (/proc, /sys, /dev: writes there hang or reconfigure the
 * machine) and, for a local directory source, a target that is the source or overlaps it (each run
 * would copy the last one's copy, one level deeper).
 */
export function checkTarget(target: string, localSource?: string): void {
  const real = realTarget(target);
  if (inside(real, '/dev') && !inside(real, '/dev/shm')) throw new Error(`the target ${target} is under /dev, not a place for files; choose a directory on a real file system`);
  const { real: existing } = existingAncestor(target);
  const type = PSEUDO_FILE_SYSTEMS.get(Number(fs.statfsSync(existing).type));
  if (type) throw new Error(`the target ${target} is on a ${type} file system, not a place for files; choose a directory on a real file system`);
  if (localSource === undefined) return;
  const source = realTarget(localSource);
  if (inside(real, source) || inside(source, real)) {
    throw new Error(`the source ${localSource} and the target ${target} overlap (${real === source ? 'they are the same directory' : inside(real, source) ? 'the target is inside the source' : 'the source is inside the target'}); copy into a directory outside the source`);
  }
}

/**
 * Whether a directory above `target` holds a seed's state directory: another seed's place (the old
 * place of a seed moved from /a to /a/b, say), which may have written files under this one.
 */
export function placeAbove(target: string): boolean {
  for (let dir = path.dirname(path.resolve(target)); ; dir = path.dirname(dir)) {
    if (fs.lstatSync(path.join(dir, STATE_DIR), { throwIfNoEntry: false })?.isDirectory()) return true;
    if (path.dirname(dir) === dir) return false;
  }
}

/** Makes the target root as `mkdir -p` would: the caller's own path (below it, each part is opened without following a link). */
export async function makeTargetRoot(root: string): Promise<void> {
  await fs.promises.mkdir(root, { recursive: true });
}
