/**
 * The names, ids and limits of Amazon S3 Files, as the S3 User Guide, the CloudFormation reference
 * (AWS::S3Files::*) and amazon-efs-utils spell them. No imports: the construct, the readiness gate,
 * the doctor and the tests share these.
 *
 * - File system DNS name (man/mount.s3files.8): `fs-….s3files.<region>.on.aws`; zonal form
 *   `<az-id>.fs-….s3files.<region>.on.aws` (an Availability Zone id such as use1-az1, not a name).
 * - ARNs: `arn:<partition>:s3files:<region>:<account>:file-system/fs-…` and `…/access-point/fsap-…`.
 */

/** The service S3 Files assumes the bucket role as (S3 Files is built on the EFS engine). */
export const S3FILES_SERVICE_PRINCIPAL = 'elasticfilesystem.amazonaws.com';

/** The EventBridge rules S3 Files makes on the bucket's events, and may manage only with the role's permission. */
export const S3FILES_EVENT_RULE_PREFIX = 'DO-NOT-DELETE-S3-Files';

/** The oldest amazon-efs-utils that mounts S3 Files (3.0.0) and reaches STS from private subnets (3.1.2, aws-efs-csi-driver #1907). */
export const EFS_UTILS_MIN_S3FILES_VERSION = '3.1.2';

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

/** `fs-….s3files.<region>.on.aws`: resolves to the mount target in the caller's Availability Zone. */
export function s3FilesDnsName(fileSystemId: string, region: string): string {
  return `${fileSystemId}.s3files.${region}.on.aws`;
}

/** `<az-id>.fs-….s3files.<region>.on.aws`: that zone's mount target, from anywhere in the VPC. */
export function s3FilesMountTargetDnsName(availabilityZoneId: string, fileSystemId: string, region: string): string {
  return `${availabilityZoneId}.${s3FilesDnsName(fileSystemId, region)}`;
}
