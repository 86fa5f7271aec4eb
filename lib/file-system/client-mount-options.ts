import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as iam from 'aws-cdk-lib/aws-iam';
import { IConstruct } from 'constructs';

/*
 * What the mountOn* helpers take, each named after its helper (as aws-cdk's AddCapacityOptions is
 * after addCapacity); the options of an NFS mount itself are NfsMountOptions.
 */

/** Options for [SharedFileSystem.mountOnLambda](#cdk-efs-kit.SharedFileSystem.mountOnLambda). */
export interface MountOnLambdaOptions {
  /**
   * Where the function sees the access point; Lambda requires `/mnt/<name>`.
   * @default '/mnt/efs'
   */
  readonly mountPath?: string;
  /**
   * Mount without write permission.
   * @default false
   */
  readonly readOnly?: boolean;
  /**
   * `UV_THREADPOOL_SIZE` for the function: Node runs file system calls on libuv's pool, 4 threads
   * by default, so without it a function never has more than 4 EFS operations in flight.
   * @default 64
   */
  readonly threadPoolSize?: number;
  /**
   * Start the function only after the seeds that fill what it mounts ([FileSystemSeed](#cdk-efs-kit.FileSystemSeed)s
   * through this access point, or through one whose root directory overlaps theirs; on S3 Files,
   * every [S3FilesSeed](#cdk-efs-kit.S3FilesSeed) of the file system), whether they are added
   * before or after this call. False starts it at once: for a client that does not read
   * the seeded content, or one the seed's source depends on (waiting would make a cycle).
   * @default true
   */
  readonly waitForSeeds?: boolean;
}

/** Options for [SharedFileSystem.mountOnEcsTask](#cdk-efs-kit.SharedFileSystem.mountOnEcsTask) and [SharedFileSystem.mountOnEcsService](#cdk-efs-kit.SharedFileSystem.mountOnEcsService). */
export interface MountOnEcsOptions {
  /** Where the container sees the access point. */
  readonly containerPath: string;
  /**
   * The container to mount into.
   * @default - the task definition's default (first essential) container
   */
  readonly container?: ecs.ContainerDefinition;
  /**
   * Mount read-only, and grant only `ClientMount`.
   * @default false
   */
  readonly readOnly?: boolean;
  /**
   * Name of the task definition volume.
   * @default - 'efs-' followed by the access point's construct id
   */
  readonly volumeName?: string;
  /**
   * Start the task definition (and the service, with mountOnEcsService) only after the seeds that fill what it mounts ([FileSystemSeed](#cdk-efs-kit.FileSystemSeed)s
   * through this access point, or through one whose root directory overlaps theirs; on S3 Files,
   * every [S3FilesSeed](#cdk-efs-kit.S3FilesSeed) of the file system), whether they are added
   * before or after this call. False starts it at once: for a client that does not read
   * the seeded content, or one the seed's source depends on (waiting would make a cycle).
   * @default true
   */
  readonly waitForSeeds?: boolean;
}

/** An EC2 instance or Auto Scaling group: something with user data, a role and security groups. */
export interface IEc2Host extends IConstruct, ec2.IConnectable, iam.IGrantable {
  /** The boot script the mount commands are added to. */
  readonly userData: ec2.UserData;
}

/** Options for [SharedFileSystem.mountOnEc2](#cdk-efs-kit.SharedFileSystem.mountOnEc2). */
export interface MountOnEc2Options {
  /**
   * Directory to mount at.
   * @default '/mnt/efs'
   */
  readonly mountPoint?: string;
  /**
   * Mount through this access point.
   * @default - the file system root
   */
  readonly accessPoint?: efs.IAccessPoint;
  /**
   * Mount read-only, and grant only `ClientMount`.
   * @default false
   */
  readonly readOnly?: boolean;
  /**
   * Start the instance or group (every seed of the file system where no access point is given) only after the seeds that fill what it mounts ([FileSystemSeed](#cdk-efs-kit.FileSystemSeed)s
   * through this access point, or through one whose root directory overlaps theirs), whether they
   * are added before or after this call. False starts it at once: for a client that does not read
   * the seeded content, or one the seed's source depends on (waiting would make a cycle).
   * @default true
   */
  readonly waitForSeeds?: boolean;
}

/** @deprecated use MountOnLambdaOptions (renamed after the helper, to tell it apart from NfsMountOptions) */
export interface LambdaMountOptions extends MountOnLambdaOptions {}

/** @deprecated use MountOnEcsOptions (renamed after the helpers, to tell it apart from NfsMountOptions) */
export interface EcsMountOptions extends MountOnEcsOptions {}

/** @deprecated use MountOnEc2Options (renamed after the helper, to tell it apart from NfsMountOptions) */
export interface Ec2MountOptions extends MountOnEc2Options {}
