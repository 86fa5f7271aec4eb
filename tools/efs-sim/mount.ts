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
  /** 'efs-gp' (default), 'efs-2016', 's3files' or 'local'. */
  readonly profile?: string;
  /**
   * Extra flags, e.g. ['--latency-create=20']; with 's3files' also the sync's, e.g.
   * ['--export-window=2', '--import-delay=1', '--s3-endpoint=http://127.0.0.1:PORT', '--bucket=b'].
   */
  readonly flags?: readonly string[];
}

/** Where the 's3files' profile's bucket is: its S3 endpoint on loopback, bucket, prefix, file system id. */
export interface EfsSimS3Files {
  readonly endpoint: string;
  readonly bucket: string;
  readonly prefix: string;
  readonly fsid: string;
  /** The directory, at the mount's root, where the mount's copy goes when the bucket wins a conflict. */
  readonly lostAndFound: string;
}

/** The 's3files' profile's sync counts since the last reset (pending counts are current). */
export interface EfsSimSyncStats {
  /** Objects written to the bucket: puts and a rename's copies. */
  readonly exports: number;
  readonly exportDeletes: number;
  readonly exportBatches: number;
  /** Entries whose metadata came from the bucket, and those whose data came too. */
  readonly imports: number;
  readonly importedData: number;
  /** Directories imported on first access. */
  readonly directoryImports: number;
  /** Changes on both sides: the bucket won, the mount's copy went to lost+found. */
  readonly conflicts: number;
  readonly pendingExports: number;
  readonly pendingImports: number;
  /** What S3 Files sends to S3 for the sync, by kind: put, get, copy, delete, list. */
  readonly s3Requests: Record<'put' | 'get' | 'copy' | 'delete' | 'list', number>;
  /** The emulator's own listings, polling for changes S3 Files learns from events: not costed. */
  readonly pollLists: number;
}

export interface EfsSimStats {
  /** Operations by kind since the last reset (getattr also counts lookups). */
  readonly ops: Record<string, number>;
  readonly bytesRead: number;
  readonly bytesWritten: number;
  /** Most operations in flight at once inside the daemon since the last reset. */
  readonly peakInFlight: number;
  /** With the 's3files' profile: the sync's counts (reads from S3 are ops.s3read). */
  readonly s3files?: EfsSimSyncStats;
}

export interface EfsSim {
  readonly mount: string;
  /** The tmpfs behind the mount: what was written, read without any latency. */
  readonly backing: string;
  /** With the 's3files' profile: its bucket. */
  readonly s3files?: EfsSimS3Files;
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

function mountNew(options: EfsSimOptions): { mount: string; backing: string; s3files?: EfsSimS3Files; stop: () => void } {
  const mount = fs.mkdtempSync(path.join(os.tmpdir(), 'efs-sim-'));
  try {
    run('start', mount, '--profile', options.profile ?? 'efs-gp', ...(options.flags ?? []));
  } catch (err) {
    // efs-sim undid its own part (the daemon, the sync agent, the backing store); the directory is ours.
    fs.rmSync(mount, { recursive: true, force: true });
    throw err;
  }
  return {
    mount,
    backing: run('backing', mount).trim(),
    s3files: options.profile === 's3files' ? JSON.parse(run('s3', mount)) : undefined,
    stop: () => {
      run('stop', mount);
      fs.rmSync(mount, { recursive: true, force: true });
    },
  };
}

export async function startEfsSim(options: EfsSimOptions = {}): Promise<EfsSim> {
  const { mount, backing, s3files, stop } = mountNew(options);
  return {
    mount,
    backing,
    s3files,
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
  const { mount, backing, stop } = mountNew(options);
  try {
    return fn(mount, backing);
  } finally {
    stop();
  }
}
