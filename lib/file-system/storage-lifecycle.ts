import * as efs from 'aws-cdk-lib/aws-efs';

/** Options for [StorageLifecycle.infrequentAccess](#cdk-efs-kit.StorageLifecycle.infrequentAccess). */
export interface InfrequentAccessOptions {
  /**
   * Move a file to Infrequent Access after it has not been read or written for this long.
   * @default efs.LifecyclePolicy.AFTER_30_DAYS
   */
  readonly after?: efs.LifecyclePolicy;
  /**
   * Move a file back to Standard on its first access, so a file that becomes hot again is not
   * billed IA's per-GiB access charge and latency on every read.
   * @default true
   */
  readonly backOnFirstAccess?: boolean;
  /**
   * Move a file on to Archive after this long without access (Elastic throughput only).
   * @default - never archived
   */
  readonly archiveAfter?: efs.LifecyclePolicy;
}

/** When files move between EFS storage classes. */
export class StorageLifecycle {
  /**
   * Tier cold files to Infrequent Access (the default: 30 days, back to Standard on first access).
   *
   * @example
   * new SharedFileSystem(this, 'Archive', {
   *   vpc,
   *   lifecycle: StorageLifecycle.infrequentAccess({ after: efs.LifecyclePolicy.AFTER_7_DAYS, archiveAfter: efs.LifecyclePolicy.AFTER_90_DAYS }),
   * });
   */
  public static infrequentAccess(options: InfrequentAccessOptions = {}): StorageLifecycle {
    return new StorageLifecycle(
      options.after ?? efs.LifecyclePolicy.AFTER_30_DAYS,
      options.backOnFirstAccess ?? true ? efs.OutOfInfrequentAccessPolicy.AFTER_1_ACCESS : undefined,
      options.archiveAfter,
    );
  }

  /** Keep every file in Standard storage. */
  public static none(): StorageLifecycle {
    return new StorageLifecycle(undefined, undefined, undefined);
  }

  private constructor(
    /** When a file moves to Infrequent Access (none: never). */
    public readonly toInfrequentAccess: efs.LifecyclePolicy | undefined,
    /** When a file moves back to Standard (none: it stays). */
    public readonly backToStandard: efs.OutOfInfrequentAccessPolicy | undefined,
    /** When a file moves to Archive (none: never). */
    public readonly toArchive: efs.LifecyclePolicy | undefined,
  ) {}
}
