import * as efs from 'aws-cdk-lib/aws-efs';

/** Options for [AccessPointPreset.applicationUser](#cdk-efs-kit.AccessPointPreset.applicationUser). */
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

/**
 * The settings of an access point, for [SharedFileSystem.addAccessPoint](#cdk-efs-kit.SharedFileSystem.addAccessPoint): a ready-made one, or
 * your own. A class rather than a struct, so every language passes it as one argument.
 */
export class AccessPointPreset {
  /**
   * A directory owned by one application user: every client acts as uid/gid 1000 there, and the
   * directory is created with mode 750 on first use, so containers never need root on the share.
   *
   * @example
   * files.addAccessPoint('Uploads', AccessPointPreset.applicationUser('/uploads', { uid: 33, gid: 33, permissions: '770' }));
   */
  public static applicationUser(path: string, options: ApplicationUserOptions = {}): AccessPointPreset {
    const uid = String(options.uid ?? 1000);
    const gid = String(options.gid ?? 1000);
    return new AccessPointPreset({
      path,
      posixUser: { uid, gid },
      createAcl: { ownerUid: uid, ownerGid: gid, permissions: options.permissions ?? '750' },
    });
  }

  /**
   * Access point settings of your own (path, POSIX user, creation ACL), as aws-cdk takes them.
   *
   * @example
   * files.addAccessPoint('Shared', AccessPointPreset.custom({
   *   path: '/shared',
   *   posixUser: { uid: '2000', gid: '2000' },
   *   createAcl: { ownerUid: '2000', ownerGid: '2000', permissions: '755' },
   * }));
   */
  public static custom(options: efs.AccessPointOptions): AccessPointPreset {
    return new AccessPointPreset(options);
  }

  /** The settings, as `efs.AccessPoint` takes them. */
  public readonly options: efs.AccessPointOptions;

  private constructor(options: efs.AccessPointOptions) {
    this.options = options;
  }
}
