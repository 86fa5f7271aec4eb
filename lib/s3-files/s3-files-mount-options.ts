import { MountOnEcsOptions, MountOnLambdaOptions } from '../file-system/client-mount-options';
import type { IS3FilesAccessPoint } from './s3-files-access-point';

/** Whether a Lambda function reads straight from the bucket (S3 Files' "direct S3 reads"), as Lambda's `S3FilesConfig.DirectS3Read` says. */
export enum DirectS3Read {
  /** Direct reads for functions with 512 MB of memory or more (Lambda's default). */
  AUTO = 'AUTO',
  /** Every read goes to the bucket first, whatever the memory; on a failure Lambda falls back to the file system. */
  ENABLED = 'ENABLED',
  /** Every read goes through the file system. */
  DISABLED = 'DISABLED',
}

/** Options for [S3FilesFileSystem.mountOnLambda](#cdk-efs-kit.S3FilesFileSystemBase.mountOnLambda). */
export interface S3FilesMountOnLambdaOptions extends MountOnLambdaOptions {
  /**
   * Whether the function reads straight from the bucket. Whenever it can (ENABLED, or AUTO with
   * 512 MB or more), the execution role gets `s3:GetObject` and `s3:GetObjectVersion` on the served
   * objects (and `kms:Decrypt` on an SSE-KMS bucket's key): without them the direct reads fail.
   * @default DirectS3Read.AUTO
   */
  readonly directS3Read?: DirectS3Read;
}

/** Options for [S3FilesFileSystem.mountOnEcsTask](#cdk-efs-kit.S3FilesFileSystemBase.mountOnEcsTask) and mountOnEcsService. */
export interface S3FilesMountOnEcsOptions extends MountOnEcsOptions {
  /**
   * Grant the task role `s3files:ClientRootAccess` too (root on the share; an access point with a
   * POSIX user makes it moot). Refused with `readOnly`.
   * @default false
   */
  readonly rootAccess?: boolean;
}

/** Options for [S3FilesFileSystem.mountOnEc2](#cdk-efs-kit.S3FilesFileSystemBase.mountOnEc2). */
export interface S3FilesMountOnEc2Options {
  /**
   * Directory to mount at.
   * @default '/mnt/s3files'
   */
  readonly mountPoint?: string;
  /**
   * Mount through this access point.
   * @default - the file system root
   */
  readonly accessPoint?: IS3FilesAccessPoint;
  /**
   * Mount read-only, and grant only `ClientMount`.
   * @default false
   */
  readonly readOnly?: boolean;
  /**
   * Start the instance only after the file system's [S3FilesSeed](#cdk-efs-kit.S3FilesSeed)s, whether
   * they are added before or after this call. False starts it at once.
   * @default true
   */
  readonly waitForSeeds?: boolean;
}
