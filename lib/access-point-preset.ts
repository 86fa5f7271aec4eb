import * as efs from 'aws-cdk-lib/aws-efs';

/** Options for {@link AccessPointPreset.applicationUser}. */
export interface ApplicationUserOptions {
  /**
   * POSIX user id every request through the access point runs as.
   * @default 1000
   */
  readonly uid?: number;
  /**
   * POSIX group id every request through the access point runs as.
   * @default 1000
   */
  readonly gid?: number;
  /**
   * Mode the access point's root directory is created with.
   * @default '750' - owner read/write, group read, others nothing
   */
  readonly permissions?: string;
}

/** Ready-made access point settings for common cases. */
export class AccessPointPreset {
  /**
   * A directory owned by one application user: every client acts as uid/gid 1000 there, and the
   * directory is created with mode 750 on first use, so containers never need root on the share.
   */
  public static applicationUser(path: string, options: ApplicationUserOptions = {}): efs.AccessPointOptions {
    const uid = String(options.uid ?? 1000);
    const gid = String(options.gid ?? 1000);
    return {
      path,
      posixUser: { uid, gid },
      createAcl: { ownerUid: uid, ownerGid: gid, permissions: options.permissions ?? '750' },
    };
  }
}
