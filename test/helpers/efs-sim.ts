import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/** Starts and stops tools/efs-sim mounts for tests, through the same script users call. */

const SCRIPT = path.join(__dirname, '..', '..', 'tools', 'efs-sim', 'efs-sim');

export interface EfsSimOptions {
  /** 'efs-gp' (default), 'efs-2016' or 'local'. */
  readonly profile?: string;
  /** Extra daemon flags, e.g. ['--latency-create=20']. */
  readonly flags?: string[];
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

/** Whether this machine can mount FUSE file systems. */
export function fuseAvailable(): boolean {
  try {
    fs.accessSync('/dev/fuse', fs.constants.R_OK | fs.constants.W_OK);
    return process.getuid?.() === 0;
  } catch {
    return false;
  }
}

function run(...args: string[]): string {
  return execFileSync(SCRIPT, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export async function startEfsSim(options: EfsSimOptions = {}): Promise<EfsSim> {
  const mount = fs.mkdtempSync(path.join(os.tmpdir(), 'efs-sim-'));
  run('start', mount, '--profile', options.profile ?? 'efs-gp', ...(options.flags ?? []));
  return {
    mount,
    stats: async () => JSON.parse(run('stats', mount)),
    resetStats: async () => { run('reset', mount); },
    stop: async () => {
      run('stop', mount);
      fs.rmSync(mount, { recursive: true, force: true });
    },
  };
}

if (!fuseAvailable()) {
  console.warn('efs-sim tests are skipped: /dev/fuse is missing or not usable by this user (they need root and /dev/fuse).');
}

/** `describe` where FUSE works, `describe.skip` (with the message above) where it does not. */
export const describeWithFuse: jest.Describe = fuseAvailable() ? describe : describe.skip;
