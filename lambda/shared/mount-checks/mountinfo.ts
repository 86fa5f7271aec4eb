import * as path from 'node:path';

/**
 * /proc/self/mountinfo, parsed (proc(5)): one line per mount,
 * `id parent major:minor root mount-point mount-options [optional...] - fstype source super-options`,
 * with spaces, tabs, newlines and backslashes in paths escaped as \040, \011, \012, \134.
 * NFS shows its options (vers, rsize, hard, timeo, addr, ...) among the super options.
 */
export interface MountEntry {
  readonly mountPoint: string;
  /** The directory of the file system mounted there ('/' unless a bind mount or an NFS sub-path). */
  readonly root: string;
  readonly fsType: string;
  /** `host:/path` for NFS; the device or a name for others. */
  readonly source: string;
  /** Per-mount options: rw/ro, relatime, ... */
  readonly mountOptions: string[];
  /** The file system's own options. */
  readonly superOptions: string[];
}

export const MOUNTINFO = '/proc/self/mountinfo';

export function parseMountInfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const fields = line.split(' ');
    const separator = fields.indexOf('-', 6);
    if (separator === -1 || fields.length < separator + 4) continue; // not a mountinfo line
    entries.push({
      root: unescape(fields[3]),
      mountPoint: unescape(fields[4]),
      mountOptions: fields[5].split(','),
      fsType: fields[separator + 1],
      source: unescape(fields[separator + 2]),
      superOptions: fields[separator + 3].split(','),
    });
  }
  return entries;
}

function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/** Options as a map: `name=value` to value, a bare `name` to ''. The last of a name wins, as with mount(8). */
export function optionMap(options: string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const option of options) {
    const at = option.indexOf('=');
    map.set(at === -1 ? option : option.slice(0, at), at === -1 ? '' : option.slice(at + 1));
  }
  return map;
}

export const isNfs = (entry: MountEntry) => entry.fsType === 'nfs' || entry.fsType === 'nfs4';

/**
 * The mount a path lies in: the entry with the longest mount point that contains it, the last one
 * listed when several share it (a later mount hides an earlier one on the same directory).
 */
export function mountContaining(entries: MountEntry[], target: string): MountEntry | undefined {
  let best: MountEntry | undefined;
  for (const entry of entries) {
    const inside = target === entry.mountPoint || entry.mountPoint === '/' || target.startsWith(entry.mountPoint + path.sep);
    if (inside && (!best || entry.mountPoint.length >= best.mountPoint.length)) best = entry;
  }
  return best;
}

/** The server part of an NFS source: `fs-1.efs.us-east-1.amazonaws.com:/` -> the name, `[2600::1]:/x` -> `2600::1`. */
export function nfsServerOf(source: string): string {
  const bracketed = /^\[([^\]]+)\]:/.exec(source);
  if (bracketed) return bracketed[1];
  const colon = source.indexOf(':');
  return colon === -1 ? source : source.slice(0, colon);
}
