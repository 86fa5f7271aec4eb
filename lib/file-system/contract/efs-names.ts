/**
 * The names and ids of an EFS file system, as the EFS User Guide and amazon-efs-utils spell them.
 * No imports: the readiness gate, the doctor and (later) the constructs share these.
 *
 * - File system DNS name (User Guide, "Mounting on Amazon EC2 with a DNS name"):
 *   `file-system-id.efs.aws-region.amazonaws.com`; it resolves to the mount target in the
 *   client's own Availability Zone, and only where that zone has one.
 * - Mount target DNS name (amazon-efs-utils' `dns_name_format = {az}.{fs_id}.efs.{region}.{dns_name_suffix}`):
 *   `availability-zone.file-system-id.efs.aws-region.amazonaws.com`, one per mount target.
 * - China Regions end in `amazonaws.com.cn` (the User Guide's docs.amazonaws.cn edition).
 */

export const FILE_SYSTEM_ID = /^fs-[0-9a-f]{8,40}$/;
export const ACCESS_POINT_ID = /^fsap-[0-9a-f]{8,40}$/;
export const MOUNT_TARGET_ID = /^fsmt-[0-9a-f]{8,40}$/;
export const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;
/** An Availability Zone name (us-east-1a, us-west-2-lax-1a), not an AZ id (use1-az1). */
export const AVAILABILITY_ZONE = /^[a-z]{2}(-[a-z]+)+-\d+(-[a-z]+-\d+)?[a-z]$/;

/** The port every mount target serves NFS on. */
export const NFS_PORT = 2049;

/** The DNS suffix of a Region's partition. */
export function dnsSuffix(region: string): string {
  return region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
}

/** `fs-….efs.<region>.amazonaws.com`: resolves to the mount target in the caller's Availability Zone. */
export function fileSystemDnsName(fileSystemId: string, region: string): string {
  return `${fileSystemId}.efs.${region}.${dnsSuffix(region)}`;
}

/** `<az>.fs-….efs.<region>.amazonaws.com`: resolves to that zone's mount target from anywhere in the VPC. */
export function mountTargetDnsName(availabilityZone: string, fileSystemId: string, region: string): string {
  return `${availabilityZone}.${fileSystemDnsName(fileSystemId, region)}`;
}

/** The ARN IAM policies name a file system by. */
export function fileSystemArn(partition: string, region: string, account: string, fileSystemId: string): string {
  return `arn:${partition}:elasticfilesystem:${region}:${account}:file-system/${fileSystemId}`;
}

/** The partition of a Region, for ARNs. */
export function partitionOf(region: string): string {
  if (region.startsWith('cn-')) return 'aws-cn';
  if (region.startsWith('us-gov-')) return 'aws-us-gov';
  return 'aws';
}
