import * as fs from 'fs';

/**
 * A process, told apart from any other: its kernel's boot, the /proc it is seen through (its device:
 * each pid namespace's /proc is a mount of its own), its pid there and its start time. The pid is the
 * one /proc numbers it with, not process.pid: under `unshare --pid` without a /proc of its own, /proc
 * is the parent namespace's, and /proc/<process.pid> another process.
 */
export interface ProcessIdentity {
  readonly boot: string;
  readonly proc: string;
  readonly procPid: number;
  readonly start: string;
}

/** A process's identity, read through /proc (undefined where /proc does not tell). */
export function processIdentity(procPid: number | 'self'): ProcessIdentity | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${procPid}/stat`, 'utf8');
    // The fields after the command name (which may hold spaces and parentheses); the start time is field 22.
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    return {
      boot: fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(), proc: String(fs.statSync('/proc').dev),
      procPid: procPid === 'self' ? Number(fs.readlinkSync('/proc/self')) : procPid, start,
    };
  } catch {
    return undefined;
  }
}
