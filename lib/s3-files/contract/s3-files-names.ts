/**
 * The names, ids, versions and limits of Amazon S3 Files, as the S3 User Guide, the CloudFormation
 * reference (AWS::S3Files::*) and amazon-efs-utils spell them (names checked against
 * github.com/aws/efs-utils at v3.2.0: man/mount.s3files.8, dist/s3files-utils.conf,
 * src/mount_s3files/). No imports: the construct, the readiness gate, the doctor and the tests share these.
 *
 * - Mount target (zonal) name: `dns_name_format = {az_id}.{fs_id}.s3files.{region}.{dns_name_suffix}`,
 *   e.g. `use1-az1.fs-abcd1234.s3files.us-east-1.on.aws`. The zone is the Availability Zone *ID*
 *   (use1-az1), not its name (us-east-1a) as for EFS. mount.s3files resolves only this form (its
 *   FQDN pattern requires the zone ID; it reads the client's own from the instance metadata, or
 *   `-o azid=`).
 * - File system name: `fs-abcd1234.s3files.us-east-1.on.aws`. The man page names it as a form a
 *   CNAME may point to; what it resolves to (like EFS's, the caller's zone's mount target?) is not
 *   documented, and mount.s3files never looks it up.
 * - Suffix `on.aws`; `on.amazonwebservices.com.cn` in the China Regions (s3files-utils.conf; efs-utils
 *   3.2.0 "partition-aware DNS suffix for S3 Files for aws-cn"). The ISO partitions' suffixes in that
 *   file are not covered here.
 * - ARNs: `arn:<partition>:s3files:<region>:<account>:file-system/fs-…`, access points
 *   `…:file-system/fs-…/access-point/fsap-…` (the S3 Files API reference's id patterns).
 */

/** The service S3 Files assumes the bucket role as (S3 Files is built on the EFS engine). */
export const S3FILES_SERVICE_PRINCIPAL = 'elasticfilesystem.amazonaws.com';

/** The EventBridge rules S3 Files makes on the bucket's events, and may manage only with the role's permission. */
export const S3FILES_EVENT_RULE_PREFIX = 'DO-NOT-DELETE-S3-Files';

/** CloudFormation's limits on SynchronizationConfiguration. */
export const MAX_IMPORT_DATA_RULES = 10;
export const MAX_IMPORT_SIZE_BYTES = 48 * 1024 ** 4;
export const MIN_EXPIRATION_DAYS = 1;
export const MAX_EXPIRATION_DAYS = 365;
/** S3 Files' own defaults, written explicitly when the app gives any synchronization rule. */
export const DEFAULT_IMPORT_SIZE_BYTES = 128 * 1024;
export const DEFAULT_EXPIRATION_DAYS = 30;

/** Lambda imports direct reads only for functions of at least this memory under DirectS3Read AUTO. */
export const DIRECT_READ_AUTO_MIN_MEMORY_MB = 512;

/** amazon-efs-utils mounts S3 Files (mount -t s3files) from this version on. */
export const EFS_UTILS_S3FILES_MIN_VERSION = '3.0.0';
/** The release that fixed the STS endpoint IRSA and Pod Identity mounts use in private subnets (aws-efs-csi-driver #1907). */
export const EFS_UTILS_STS_FIX_VERSION = '3.1.2';

/** An Availability Zone ID (use1-az1, usw2-lax1-az1), as S3 Files mount targets report their zone. */
export const AVAILABILITY_ZONE_ID = /^[a-z]{2,5}\d+(-[a-z]+\d+)?-az\d+$/;

/** The DNS suffix of S3 Files names in a Region: `on.amazonwebservices.com.cn` in China, `on.aws` elsewhere. */
export function s3FilesDnsSuffix(region: string): string {
  return region.startsWith('cn-') ? 'on.amazonwebservices.com.cn' : 'on.aws';
}

/** `fs-….s3files.<region>.on.aws`: the file system's name (what it resolves to is not documented; mount.s3files never looks it up). */
export function s3FilesFileSystemDnsName(fileSystemId: string, region: string): string {
  return `${fileSystemId}.s3files.${region}.${s3FilesDnsSuffix(region)}`;
}

/** `<az-id>.fs-….s3files.<region>.on.aws`: the mount target in that zone, the name mount.s3files resolves. */
export function s3FilesMountTargetDnsName(availabilityZoneId: string, fileSystemId: string, region: string): string {
  return `${availabilityZoneId}.${s3FilesFileSystemDnsName(fileSystemId, region)}`;
}

/** The ARN IAM policies name an S3 Files file system by (the resource of s3files:ClientMount and ClientWrite). */
export function s3FilesFileSystemArn(partition: string, region: string, account: string, fileSystemId: string): string {
  return `arn:${partition}:s3files:${region}:${account}:file-system/${fileSystemId}`;
}

/** The ARN of an S3 Files access point, the value of the s3files:AccessPointArn condition key. */
export function s3FilesAccessPointArn(fileSystemArn: string, accessPointId: string): string {
  return `${fileSystemArn}/access-point/${accessPointId}`;
}
