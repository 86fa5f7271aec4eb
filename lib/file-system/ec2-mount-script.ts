import { MountType, NfsMountOptions } from './nfs-mount-options';

/**
 * The oldest amazon-efs-utils that mounts through IPv6 mount targets: 2.4.2 fixed the names of
 * IPv6-only mount targets, and the 2.4 line picks the address family through DescribeMountTargets
 * (EFS gained IPv6 and dual-stack mount targets in 2025; older releases resolve IPv4 only).
 */
export const EFS_UTILS_MIN_IPV6_VERSION = '2.4.2';

/** Whether plain NFS may serve when amazon-efs-utils is missing, and why not. */
export type NfsFallback = 'allowed' | 'refusedByPolicy' | 'policyUnknown';

/** What the boot script needs to know to mount one EFS file system. */
export interface Ec2MountScriptProps {
  readonly fileSystemId: string;
  /** DNS name of the file system, for the plain NFS fallback. */
  readonly dnsName: string;
  readonly mountPoint: string;
  readonly accessPointId?: string;
  readonly readOnly: boolean;
  /** Refused when the file system policy requires TLS and IAM, which plain NFS cannot give, or is not known. */
  readonly nfsFallback: NfsFallback;
  /** amazon-efs-utils older than this is upgraded, and the mount fails if it cannot be (IPv6 mount targets). */
  readonly minimumEfsUtilsVersion?: string;
}

/**
 * Shell lines for EC2 user data: install amazon-efs-utils and mount with TLS + IAM (+ access point),
 * persisted in /etc/fstab; where efs-utils cannot be installed, fall back to NFSv4.1 with the
 * recommended options, unless the file system's policy would refuse such a mount anyway.
 */
export function renderEc2MountScript(props: Ec2MountScriptProps): string[] {
  const ro = props.readOnly ? ['ro'] : [];
  const efsLine = NfsMountOptions.efsUtils({ accessPointId: props.accessPointId }).withOverrides(...ro)
    .toFstabLine(`${props.fileSystemId}:/`, props.mountPoint, MountType.EFS);
  const nfsLine = NfsMountOptions.recommendedNfs().withOverrides(...ro)
    .toFstabLine(`${props.dnsName}:/`, props.mountPoint, MountType.NFS4);
  const refuse = props.nfsFallback === 'policyUnknown'
    ? 'The file system was imported without its policy (tlsEnforced, anonymousAccessAllowed), so a plain NFS mount is not tried: install amazon-efs-utils (https://github.com/aws/efs-utils) and re-run.'
    : 'The file system policy requires TLS and IAM, which a plain NFS mount cannot provide: install amazon-efs-utils (https://github.com/aws/efs-utils) and re-run, or set enforceTls: false and allowAnonymousAccess: true.';
  const install = (verb: string) => `(command -v dnf >/dev/null && dnf ${verb} -y amazon-efs-utils) || (command -v yum >/dev/null && yum ${verb} -y amazon-efs-utils) || (command -v apt-get >/dev/null && apt-get update -y && apt-get install -y amazon-efs-utils) || true`;
  const min = props.minimumEfsUtilsVersion;
  return [
    `# cdk-efs-kit: mount ${props.fileSystemId} at ${props.mountPoint}`,
    `mkdir -p ${props.mountPoint}`,
    'if ! command -v mount.efs >/dev/null 2>&1; then',
    `  ${install('install')}`,
    'fi',
    ...(min ? [
      // IPv6 mount targets: efs-utils older than the minimum resolves IPv4 only (see EFS_UTILS_MIN_IPV6_VERSION).
      `efs_utils_at_least() { have=$(mount.efs --version 2>/dev/null | sed -n 's/.*Version: *\\([0-9][0-9.]*\\).*/\\1/p' | head -n 1); [ -n "$have" ] && [ "$(printf '%s\\n' ${min} "$have" | sort -V | head -n 1)" = ${min} ]; }`,
      `if command -v mount.efs >/dev/null 2>&1 && ! efs_utils_at_least; then ${install('upgrade')}; fi`,
      `if command -v mount.efs >/dev/null 2>&1 && ! efs_utils_at_least; then echo 'cdk-efs-kit: the mount targets of ${props.fileSystemId} have IPv6 addresses, which amazon-efs-utils ${min} or later mounts; install it (https://github.com/aws/efs-utils) and re-run.' >&2; exit 1; fi`,
    ] : []),
    'if command -v mount.efs >/dev/null 2>&1; then',
    `  grep -qs ' ${props.mountPoint} ' /etc/fstab || echo '${efsLine}' >> /etc/fstab`,
    'else',
    ...(props.nfsFallback === 'allowed'
      ? [
        '  (command -v dnf >/dev/null && dnf install -y nfs-utils) || (command -v yum >/dev/null && yum install -y nfs-utils) || (command -v apt-get >/dev/null && apt-get install -y nfs-common) || true',
        `  grep -qs ' ${props.mountPoint} ' /etc/fstab || echo '${nfsLine}' >> /etc/fstab`,
      ]
      : [`  echo 'cdk-efs-kit: amazon-efs-utils is not available. ${refuse}' >&2`, '  exit 1']),
    'fi',
    // Mount targets can take a moment to answer DNS after the stack creates them.
    `for attempt in 1 2 3 4 5 6 7 8 9 10; do mount ${props.mountPoint} && break; echo "cdk-efs-kit: mount ${props.mountPoint} failed (attempt $attempt), retrying" >&2; sleep 15; done`,
    `mountpoint -q ${props.mountPoint}`,
  ];
}
