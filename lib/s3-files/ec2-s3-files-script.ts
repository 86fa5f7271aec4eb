import { EFS_UTILS_STS_FIX_VERSION } from './contract/s3-files-names';

/** What the boot script needs to mount one S3 Files file system. */
export interface S3FilesMountScriptProps {
  readonly fileSystemId: string;
  readonly mountPoint: string;
  readonly accessPointId?: string;
  readonly readOnly: boolean;
}

/**
 * Shell lines for EC2 user data: install or upgrade amazon-efs-utils to EFS_UTILS_STS_FIX_VERSION
 * or later (it carries `mount.s3files`; 3.1.2 fixed the STS endpoint private subnets need), refuse
 * to go on with an older one, and mount with `mount -t s3files` from /etc/fstab (`_netdev`: after
 * the network). TLS and IAM are not options: the mount helper always uses them. No plain NFS fallback.
 */
export function renderS3FilesMountScript(props: S3FilesMountScriptProps): string[] {
  const min = EFS_UTILS_STS_FIX_VERSION;
  const options = ['_netdev', 'nofail', ...(props.accessPointId ? [`accesspoint=${props.accessPointId}`] : []), ...(props.readOnly ? ['ro'] : [])].join(',');
  const fstabLine = `${props.fileSystemId}:/ ${props.mountPoint} s3files ${options} 0 0`;
  const install = (verb: string) => `(command -v dnf >/dev/null && dnf ${verb} -y amazon-efs-utils) || (command -v yum >/dev/null && yum ${verb} -y amazon-efs-utils) || (command -v apt-get >/dev/null && apt-get update -y && apt-get install -y amazon-efs-utils) || true`;
  return [
    `# cdk-efs-kit: mount S3 Files ${props.fileSystemId} at ${props.mountPoint}`,
    `mkdir -p ${props.mountPoint}`,
    `efs_utils_at_least() { have=$(mount.efs --version 2>/dev/null | sed -n 's/.*Version: *\\([0-9][0-9.]*\\).*/\\1/p' | head -n 1); [ -n "$have" ] && [ "$(printf '%s\\n' ${min} "$have" | sort -V | head -n 1)" = ${min} ]; }`,
    `if ! command -v mount.s3files >/dev/null 2>&1; then ${install('install')}; fi`,
    `if ! efs_utils_at_least; then ${install('upgrade')}; fi`,
    `if ! command -v mount.s3files >/dev/null 2>&1 || ! efs_utils_at_least; then echo 'cdk-efs-kit: mounting S3 Files needs amazon-efs-utils ${min} or later (mount.s3files, and the STS endpoint fix of 3.1.2); install it (https://github.com/aws/efs-utils) and re-run.' >&2; exit 1; fi`,
    `grep -qs ' ${props.mountPoint} ' /etc/fstab || echo '${fstabLine}' >> /etc/fstab`,
    // Mount targets can take a moment to answer DNS after the stack creates them.
    `for attempt in 1 2 3 4 5 6 7 8 9 10; do mount ${props.mountPoint} && break; echo "cdk-efs-kit: mount ${props.mountPoint} failed (attempt $attempt), retrying" >&2; sleep 15; done`,
    `mountpoint -q ${props.mountPoint}`,
  ];
}
