import { MountOptions, MountType } from './mount-options';

/** What the boot script needs to know to mount one EFS file system. */
export interface Ec2MountScriptProps {
  readonly fileSystemId: string;
  /** DNS name of the file system, for the plain NFS fallback. */
  readonly dnsName: string;
  readonly mountPoint: string;
  readonly accessPointId?: string;
  readonly readOnly: boolean;
  /** False when the file system policy requires TLS and IAM, which plain NFS cannot give. */
  readonly nfsFallbackAllowed: boolean;
}

/**
 * Shell lines for EC2 user data: install amazon-efs-utils and mount with TLS + IAM (+ access point),
 * persisted in /etc/fstab; where efs-utils cannot be installed, fall back to NFSv4.1 with the
 * recommended options, unless the file system's policy would refuse such a mount anyway.
 */
export function renderEc2MountScript(props: Ec2MountScriptProps): string[] {
  const ro = props.readOnly ? ['ro'] : [];
  const efsLine = MountOptions.efsUtils({ accessPointId: props.accessPointId }).withOverrides(...ro)
    .toFstabLine(`${props.fileSystemId}:/`, props.mountPoint, MountType.EFS);
  const nfsLine = MountOptions.recommendedNfs().withOverrides(...ro)
    .toFstabLine(`${props.dnsName}:/`, props.mountPoint, MountType.NFS4);
  const refuse = `The file system policy requires TLS and IAM, which a plain NFS mount cannot provide: install amazon-efs-utils (https://github.com/aws/efs-utils) and re-run, or set enforceTls: false and allowAnonymousAccess: true.`;
  return [
    `# cdk-efs-kit: mount ${props.fileSystemId} at ${props.mountPoint}`,
    `mkdir -p ${props.mountPoint}`,
    'if ! command -v mount.efs >/dev/null 2>&1; then',
    '  (command -v dnf >/dev/null && dnf install -y amazon-efs-utils) || (command -v yum >/dev/null && yum install -y amazon-efs-utils) || (command -v apt-get >/dev/null && apt-get update -y && apt-get install -y amazon-efs-utils) || true',
    'fi',
    'if command -v mount.efs >/dev/null 2>&1; then',
    `  grep -qs ' ${props.mountPoint} ' /etc/fstab || echo '${efsLine}' >> /etc/fstab`,
    'else',
    ...(props.nfsFallbackAllowed
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
