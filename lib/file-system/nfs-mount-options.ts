import { RECOMMENDED_NFS_OPTIONS } from './contract/recommended-nfs-options';
import { ValidationError } from '../core/validation-error';

/**
 * NFS mount options as data: the set Amazon EFS recommends, rendered to an fstab line or a
 * mount command, with a check that refuses the options EFS advises against.
 */

/** Options that defeat client caching or are unsupported on EFS, and why. */
const DISCOURAGED: Record<string, string> = {
  'noac': 'disables attribute caching, so every stat pays a round trip to EFS',
  'actimeo=0': 'disables attribute caching, so every stat pays a round trip to EFS',
  'lookupcache=none': 'disables the lookup cache, so every path walk pays a round trip to EFS',
  'fsc': 'FS-Cache (cachefilesd) is not supported on EFS and can serve stale data',
};

/** The file system type of a mount: amazon-efs-utils' helper, or the kernel's NFS client. */
export enum MountType {
  /** `mount -t efs`: amazon-efs-utils, with TLS and IAM. */
  EFS = 'efs',
  /** `mount -t nfs4`: the kernel's NFS client, without TLS or IAM. */
  NFS4 = 'nfs4',
}

/**
 * The options of an NFS mount (`mount -o`, an fstab line), amazon-efs-utils' included, checked
 * against the ones EFS advises against. Not to be confused with what a mountOn* helper takes
 * (MountOnLambdaOptions, MountOnEcsOptions, MountOnEc2Options).
 */
export class NfsMountOptions {
  /**
   * The NFS options EFS recommends: NFSv4.1, 1 MiB I/O, hard mounts with 60 s timeouts, no reserved ports.
   *
   * @example
   * const fstab = NfsMountOptions.recommendedNfs().toFstabLine('fs-0123456789abcdef0.efs.us-east-1.amazonaws.com:/', '/mnt/efs', MountType.NFS4);
   * // fs-0123456789abcdef0.efs.us-east-1.amazonaws.com:/ /mnt/efs nfs4 nfsvers=4.1,rsize=1048576,...,_netdev,nofail 0 0
   */
  public static recommendedNfs(): NfsMountOptions {
    return new NfsMountOptions([...RECOMMENDED_NFS_OPTIONS]);
  }

  /**
   * amazon-efs-utils options (`mount -t efs`): TLS and IAM authorization, optionally through an access point.
   * Encryption in transit and IAM are what a SharedFileSystem's policy requires.
   *
   * @example
   * host.userData.addCommands(
   *   'mkdir -p /mnt/web',
   *   NfsMountOptions.efsUtils({ accessPointId: web.accessPointId }).toMountCommand(`${files.fileSystemId}:/`, '/mnt/web', MountType.EFS),
   * );
   */
  public static efsUtils(options: EfsUtilsMountOptions = {}): NfsMountOptions {
    const list = ['tls', 'iam'];
    if (options.accessPointId) list.push(`accesspoint=${options.accessPointId}`);
    return new NfsMountOptions(list);
  }

  /** Options that make a boot-time fstab entry safe: wait for the network, and never block boot if EFS is unreachable. */
  public static readonly FSTAB_BOOT: string[] = ['_netdev', 'nofail'];

  /** The options, in order, each `name` or `name=value`. */
  public readonly options: string[];

  /** @param options each `name` or `name=value`; throws on options EFS advises against. */
  constructor(options: string[]) {
    for (const option of options) {
      if (!/^[A-Za-z0-9_.-]+(=[^\s,]+)?$/.test(option)) {
        throw new ValidationError(`NfsMountOptions: '${option}' is not a mount option (expected name or name=value, no spaces or commas).`);
      }
      const reason = DISCOURAGED[option];
      if (reason) throw new ValidationError(`NfsMountOptions: '${option}' is advised against on Amazon EFS: it ${reason}.`);
    }
    this.options = [...options];
  }

  /** A copy with `extra` added, replacing options of the same name (`timeo=300` replaces `timeo=600`). */
  public withOverrides(...extra: string[]): NfsMountOptions {
    const name = (o: string) => o.split('=')[0];
    const replaced = new Set(extra.map(name));
    return new NfsMountOptions([...this.options.filter((o) => !replaced.has(name(o))), ...extra]);
  }

  /** Comma-separated, as `-o` and fstab take them. */
  public toString(): string {
    return this.options.join(',');
  }

  /** An /etc/fstab line that mounts at boot without blocking it (`_netdev,nofail` added). */
  public toFstabLine(device: string, mountPoint: string, mountType: MountType): string {
    return `${device} ${mountPoint} ${mountType} ${this.withOverrides(...NfsMountOptions.FSTAB_BOOT)} 0 0`;
  }

  /** A `mount` command line. */
  public toMountCommand(device: string, mountPoint: string, mountType: MountType): string {
    return `mount -t ${mountType} -o ${this} ${device} ${mountPoint}`;
  }
}

/** Options for [NfsMountOptions.efsUtils](#cdk-efs-kit.NfsMountOptions.efsUtils). */
export interface EfsUtilsMountOptions {
  /**
   * Mount through this access point (`accesspoint=fsap-...`).
   * @default - the file system root
   */
  readonly accessPointId?: string;
}

/**
 * The NFS mount options' former name.
 *
 * @deprecated use NfsMountOptions (renamed so that it is told apart from the mountOn* helpers' options)
 */
export class MountOptions extends NfsMountOptions {}
