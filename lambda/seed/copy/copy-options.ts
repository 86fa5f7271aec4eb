import type { SeedProgress } from './seed-summary';
import type { LockHolder } from '../state/target-lock';

/** How a copy runs (see seed() in copy.ts). */
export interface CopyOptions {
  /** Files written at once. @default 64 */
  readonly concurrency?: number;
  /** Delete files an earlier seed wrote that the source no longer has (then the directories it emptied that the source no longer has). @default false */
  readonly prune?: boolean;
  /** Report what would be written, write nothing. @default false */
  readonly dryRun?: boolean;
  /** Owner of written files and directories. @default the process's */
  readonly uid?: number;
  readonly gid?: number;
  /** Epoch ms after which no new file is started; the summary then says complete: false. */
  readonly deadline?: number;
  /** Bytes of archive members held in memory while waiting for a writer or a check. @default 64 MiB */
  readonly maxQueuedBytes?: number;
  /**
   * Keep a manifest in the target (default). Without one, as when many Distributed Map workers
   * write into one target at once, a file counts as unchanged when its size and modification time
   * match the source's, and written files get the source's modification time.
   * @default true
   */
  readonly manifest?: boolean;
  /** Called after each entry is done. */
  readonly onProgress?: (progress: SeedProgress) => void;
  /**
   * Worker threads that write files, so that a copy bound by the CPU uses more than one vCPU (the
   * CLI and the handler give one per vCPU beyond the first from 3 vCPUs up); 0 writes on this thread.
   * @default 0
   */
  readonly workers?: number;
  /**
   * A directory below `target` to fill, named by someone the seed does not trust (a custom
   * resource's property): each part is opened without following a link, and made where missing.
   * `target` itself is the caller's (it may be reached through links, as /mnt/efs often is).
   * @default '' - the target itself
   */
  readonly targetSubPath?: string;
  /**
   * The deploy request this run is for (a FileSystemSeed custom resource's), where there is one:
   * its id holds the lock (so the request's next invocation takes over what an earlier one left),
   * its resource is recorded as the place's owner, and a run stops as soon as its request is no
   * longer current (a newer request claimed the place), saving what it did. What an unfinished
   * earlier request added that this run's source does not have is removed once this run is complete.
   * @default - a run of its own (the CLI)
   */
  readonly request?: SeedRequest;
  /** How long to wait for another run to let go of the target's lock. @default 60 s */
  readonly lockWaitMs?: number;
  /** Told once when the run starts waiting for another run's lock. */
  readonly onLockWait?: (holder: Partial<LockHolder>) => void;
}

/** A deploy request a run is for (see CopyOptions.request). */
export interface SeedRequest {
  /** CloudFormation's RequestId. */
  readonly id: string;
  /** The resource (its physical id) whose place the target is. */
  readonly resource: string;
  /** Whether the place is still claimed for this request; asked at every heartbeat. */
  readonly current: () => Promise<boolean>;
  /** The source this request copies (its Fingerprint), and for an Update the source before it. */
  readonly source?: { readonly to: string; readonly from?: string };
}
