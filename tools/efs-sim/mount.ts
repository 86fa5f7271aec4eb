import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/**
 * efs-sim mounts from TypeScript (tests, benchmarks, the demo), started and stopped through the
 * same script users call, each on a fresh temporary directory removed afterwards.
 */
const SCRIPT = path.join(__dirname, 'efs-sim');

export interface EfsSimOptions {
  /** 'efs-gp' (default), 'efs-2016' or 'local'. */
  readonly profile?: string;
  /** Extra daemon flags, e.g. ['--latency-create=20']. */
  readonly flags?: readonly string[];
}

export interface EfsSimStats {
  /** Operations by kind since the last reset (getattr also counts lookups). */
  readonly ops: Record<string, number>;
  readonly bytesRead: number;
  readonly bytesWritten: number;
  /** Most operations in flight at once inside the daemon since the last reset. */
  readonly peakInFlight: number;
}

export interface EfsSim {
  readonly mount: string;
  stats(): Promise<EfsSimStats>;
  resetStats(): Promise<void>;
  stop(): Promise<void>;
}

/** Whether this machine can mount efs-sim: /dev/fuse usable, and root. */
export function efsSimUsable(): boolean {
  try {
    fs.accessSync('/dev/fuse', fs.constants.R_OK | fs.constants.W_OK);
    return process.getuid?.() === 0;
  } catch {
    return false;
  }
}

/** What keeps efs-sim from running here: its kind, and the reason in a few words. */
export interface EfsSimBlocker {
  /** 'no-fuse': no /dev/fuse; 'not-root': mounting needs root; 'build': the daemon does not build (`bash tools/setup.sh efs-sim` installs what it needs). */
  readonly kind: 'no-fuse' | 'not-root' | 'build';
  readonly reason: string;
}

/** Why efs-sim cannot run on this machine, or undefined when it can: /dev/fuse, root, and the daemon built (this builds it). */
export function efsSimBlocker(): EfsSimBlocker | undefined {
  if (!fs.existsSync('/dev/fuse')) return { kind: 'no-fuse', reason: 'this machine has no /dev/fuse' };
  if (!efsSimUsable()) return { kind: 'not-root', reason: 'mounting a FUSE file system needs root' };
  try {
    run('build');
    return undefined;
  } catch (err: any) {
    // efs-sim says "efs-sim: libfuse3 is missing: apt-get install ..."; the reason is the middle part.
    const said = String(err.stderr || err.message).trim().split('\n').pop()!;
    return { kind: 'build', reason: said.replace(/^efs-sim: /, '').replace(/: apt-get install .*$/, '') };
  }
}

function run(...args: string[]): string {
  return execFileSync(SCRIPT, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function mountNew(options: EfsSimOptions): { mount: string; stop: () => void } {
  const mount = fs.mkdtempSync(path.join(os.tmpdir(), 'efs-sim-'));
  run('start', mount, '--profile', options.profile ?? 'efs-gp', ...(options.flags ?? []));
  return {
    mount,
    stop: () => {
      run('stop', mount);
      fs.rmSync(mount, { recursive: true, force: true });
    },
  };
}

export async function startEfsSim(options: EfsSimOptions = {}): Promise<EfsSim> {
  const { mount, stop } = mountNew(options);
  return {
    mount,
    stats: async () => JSON.parse(run('stats', mount)),
    resetStats: async () => { run('reset', mount); },
    stop: async () => stop(),
  };
}

/** Runs `fn` on a fresh mount and stops it once `fn` has settled. */
export async function onEfsSim<T>(options: EfsSimOptions, fn: (sim: EfsSim) => Promise<T>): Promise<T> {
  const sim = await startEfsSim(options);
  try {
    return await fn(sim);
  } finally {
    await sim.stop();
  }
}

/**
 * Runs `fn` on a fresh mount and stops it afterwards, for synchronous callers; `backing` is the tmpfs
 * behind the mount: what was written, read without any latency.
 */
export function withEfsSim<T>(options: EfsSimOptions, fn: (mount: string, backing: string) => T): T {
  const { mount, stop } = mountNew(options);
  try {
    return fn(mount, run('backing', mount).trim());
  } finally {
    stop();
  }
}
