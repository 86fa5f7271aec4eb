import { randomBytes } from 'crypto';
import * as os from 'os';
import * as fs from 'fs';
import { ProcessIdentity, processIdentity } from '../boundary/process-identity';
import { openStateFile } from '../boundary/state-file';
import { Directory } from '../boundary/held-name';
import { TargetTree } from '../boundary/target-tree';

/**
 * One seed run per target at a time: a lock file in the target's state directory, created with
 * O_EXCL (atomic on a local disk and on NFSv4, so on EFS), holding who holds it, and kept alive by its
 * holder, which sets its modification time every HEARTBEAT_MS. A lock not kept alive for LEASE_MS
 * (its holder was killed, or its machine is gone) is stale: the next run takes it over, at once where
 * the holder was a process of the same machine that has ended. The Lambda seed and the CLI take the
 * same lock, so a deploy and a hand-run seed of one target never overlap.
 *
 * Node has no flock or fcntl locks, and EFS's NFSv4.1 byte-range locks would need native code: the
 * lease is the portable form. Another client sees a holder's heartbeat on its next open of the file
 * (NFS close-to-open consistency revalidates the attributes), and the lease compares client clocks,
 * which NTP keeps within milliseconds of each other on EC2 and Lambda.
 */
export const LOCK_NAME = 'lock';
/** How often a holder keeps its lock alive. */
export const HEARTBEAT_MS = 10_000;
/** A lock not kept alive for this long is stale. */
export const LEASE_MS = 60_000;
/** How often a waiting run looks again. */
const RETRY_MS = 500;

/** Who holds a lock, as its file says. */
export interface LockHolder {
  /** The same id from one request to its next invocation (a Lambda seed's CloudFormation request), else unique per run. */
  readonly holder: string;
  readonly pid: number;
  readonly host: string;
  /** ISO time the lock was taken. */
  readonly since: string;
  /** The holder's process as /proc knows it, so that a run on the same machine sees at once that it is gone. */
  readonly process?: ProcessIdentity;
}

const OWN_PROCESS = processIdentity('self');

/**
 * Whether the holder is a process of this machine, seen through the same /proc, that has ended
 * (killed, say): its lock is stale at once, not only after the lease. Anywhere else, only the lease tells.
 */
function holderGone(holder: Partial<LockHolder>): boolean {
  const theirs = holder.process;
  if (!OWN_PROCESS || !theirs || theirs.boot !== OWN_PROCESS.boot || theirs.proc !== OWN_PROCESS.proc || !Number.isSafeInteger(theirs.procPid) || theirs.procPid <= 0) return false;
  return processIdentity(theirs.procPid)?.start !== theirs.start;
}

/** Another run holds the target's lock, and did not let go within the wait: not bad input, a run that could not go on. */
export class LockBusyError extends Error {
  constructor(target: string, readonly holder: Partial<LockHolder>, waitedMs: number) {
    super(`another seed run holds ${target}'s lock (${describeHolder(holder)}) and did not finish within ${Math.round(waitedMs / 1000)} s; `
      + `wait for it to end (a lock not kept alive for ${LEASE_MS / 1000} s is taken over), then run the seed again`);
    this.name = 'LockBusyError';
  }
}

export const describeHolder = (h: Partial<LockHolder>) => `${h.holder ?? 'unknown'}, pid ${h.pid ?? '?'} on ${h.host ?? '?'}, since ${h.since ?? '?'}`;

/** A new run's holder id: its host, process and a random part. */
export const newHolderId = () => `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

export interface LockOptions {
  /** This run's id (see LockHolder.holder). */
  readonly holder: string;
  /** How long to wait for another holder to let go. */
  readonly waitMs: number;
  /** Told once when the lock is busy and the run starts to wait. */
  readonly onWait?: (holder: Partial<LockHolder>) => void;
}

export class TargetLock {
  /**
   * Takes the lock in the state directory `stateKey` of `tree`: at once when it is free, stale, or
   * held by the same holder id (an earlier invocation of the same request, which is over); otherwise
   * waits up to `waitMs` for it to be let go, then fails with a LockBusyError.
   */
  static async acquire(tree: TargetTree, stateKey: string, options: LockOptions): Promise<TargetLock> {
    const started = Date.now();
    let told = false;
    const mine: LockHolder = { holder: options.holder, pid: process.pid, host: os.hostname(), since: new Date().toISOString(), process: OWN_PROCESS };
    for (;;) {
      const taken = await tree.using(stateKey, async (state) => {
        const lock = await create(tree, state, mine);
        return lock && { lock, state: await tree.calls.fstat(state.fd) };
      });
      if (taken) return new TargetLock(tree, stateKey, taken.lock, taken.state);
      const held = await tree.using(stateKey, (state) => readLock(tree, state));
      if (held === undefined) continue; // let go meanwhile
      if (held.holder.holder === options.holder || Date.now() - held.mtimeMs > LEASE_MS || holderGone(held.holder)) {
        await tree.using(stateKey, (state) => takeOver(tree, state, held.ino));
        continue;
      }
      if (Date.now() - started >= options.waitMs) throw new LockBusyError(tree.where, held.holder, Date.now() - started);
      if (!told) options.onWait?.(held.holder);
      told = true;
      await new Promise((resolve) => setTimeout(resolve, Math.min(RETRY_MS, options.waitMs)));
    }
  }

  /** The owner of files this process creates in the target (a Lambda access point may force another than the process's). */
  readonly uid: number;
  private readonly ino: bigint;
  /** The state directory's identity when the lock was taken. */
  private readonly stateDir: { readonly dev: bigint; readonly ino: bigint };
  private released = false;

  /**
   * The lock file is not kept open (a file unlinked while open is renamed aside instead by NFS
   * clients and FUSE): each heartbeat and the release first check that the name is still this lock.
   */
  private constructor(private readonly tree: TargetTree, private readonly stateKey: string, stats: fs.BigIntStats, stateDir: fs.BigIntStats) {
    this.uid = Number(stats.uid);
    this.ino = stats.ino;
    this.stateDir = { dev: stateDir.dev, ino: stateDir.ino };
  }

  /**
   * Keeps the lock alive; false when it is not this run's any more: taken over as stale, or its state
   * directory moved away from the target's `.cdk-efs-kit` (another run would then make a new one and
   * lock that). The run must stop writing.
   */
  async heartbeat(): Promise<boolean> {
    if (!await this.stillHeld()) return false;
    await this.tree.using(this.stateKey, (state) => this.tree.calls.utimes(state.at(LOCK_NAME), new Date())).catch(() => undefined);
    return true;
  }

  /** Whether the lock is still this run's, in the target's state directory (heartbeat's check, without keeping it alive). */
  async stillHeld(): Promise<boolean> {
    return !this.released && await this.held() && await this.stateInPlace();
  }

  /** Lets the lock go (only while it is still this run's). */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    if (await this.held()) await this.tree.using(this.stateKey, (state) => this.tree.calls.unlink(state.at(LOCK_NAME))).catch(() => undefined);
  }

  /** Whether the target's entry of the state directory's name is still the directory this lock was taken in. */
  private async stateInPlace(): Promise<boolean> {
    const named = await this.tree.calls.lstatExact(this.tree.root.at(this.stateKey)).catch(() => undefined);
    return named?.dev === this.stateDir.dev && named.ino === this.stateDir.ino;
  }

  private async held(): Promise<boolean> {
    const now = await this.tree.using(this.stateKey, (state) => this.tree.calls.lstatExact(state.at(LOCK_NAME))).catch(() => undefined);
    return now?.ino === this.ino;
  }
}

/** The lock file, made new with this holder in it (its attributes); undefined when one exists. */
async function create(tree: TargetTree, state: Directory, holder: LockHolder): Promise<fs.BigIntStats | undefined> {
  const { calls } = tree;
  const at = state.at(LOCK_NAME);
  const fd = await calls.open(at, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EEXIST') return undefined;
    throw err;
  });
  if (fd === undefined) return undefined;
  try {
    try {
      // Who holds it only informs the others (a lock whose holder cannot be read is judged by its age):
      // a failed write does not fail the run.
      await calls.writeAll(fd, Buffer.from(JSON.stringify(holder)), 4096)
        .then(() => calls.fsync(fd)) // before anyone else reads who holds it
        .catch(() => undefined);
      return await calls.fstat(fd);
    } finally {
      await calls.close(fd);
    }
  } catch (err) {
    await calls.unlink(at).catch(() => undefined);
    throw err;
  }
}

/** Who holds the lock and when it was last kept alive; undefined when there is none. */
async function readLock(tree: TargetTree, state: Directory): Promise<{ holder: Partial<LockHolder>; mtimeMs: number; ino: bigint } | undefined> {
  const { calls } = tree;
  // Opened, not only stat'ed: an NFS client revalidates the attributes on open. The lock must be a
  // regular file of the state directory's owner: a FIFO there would block the open (and the whole run).
  const opened = await openStateFile(calls, state.at(LOCK_NAME), `${tree.where}'s seed lock`, Number((await calls.fstat(state.fd)).uid)).catch((err: NodeJS.ErrnoException) => {
    throw err.code === 'ELOOP' ? new Error(`${tree.where}'s seed lock is a symlink, which a seed never makes; remove it and run the seed again`) : err;
  });
  if (opened === undefined) return undefined;
  const { fd, stats } = opened;
  try {
    const buffer = Buffer.alloc(4096);
    const n = await calls.read(fd, buffer, 0);
    let holder: Partial<LockHolder> = {};
    try {
      const parsed = JSON.parse(buffer.subarray(0, n).toString('utf8'));
      if (parsed !== null && typeof parsed === 'object') holder = parsed;
    } catch {
      // Being written (its holder fsyncs before it counts), or not a seed's: judged by its age alone.
    }
    return { holder, mtimeMs: Number(stats.mtimeNs / 1_000_000n), ino: stats.ino };
  } finally {
    await calls.close(fd).catch(() => undefined);
  }
}

/**
 * Removes the stale lock `ino`: moved aside first, so that only the one judged stale goes; had another
 * run taken it over meanwhile (its fresh lock moved instead), that one is put back. A holder that loses
 * its lock all the same sees it at its next heartbeat and stops.
 */
async function takeOver(tree: TargetTree, state: Directory, ino: bigint): Promise<void> {
  const { calls } = tree;
  const aside = state.at(`${LOCK_NAME}.stale-${randomBytes(6).toString('hex')}`);
  const moved = await calls.rename(state.at(LOCK_NAME), aside).then(() => true, () => false);
  if (!moved) return;
  const stats = await calls.lstatExact(aside).catch(() => undefined);
  if (stats && stats.ino !== ino) await calls.link(aside, state.at(LOCK_NAME)).catch(() => undefined);
  // One that cannot be removed now is tidied away at the end of a run.
  await calls.unlink(aside).catch(() => undefined);
}
