import { Size } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import { MountTargetEndpoint, MountTargetIpAddressType } from './mount-targets-ready';

/**
 * What the helpers need to know of a file system made outside this construct, and cannot read from
 * it: [SharedFileSystem.fromFileSystem](#cdk-efs-kit.SharedFileSystem.fromFileSystem) takes these.
 * Nothing here is guessed: a helper that needs a fact left out fails at synth naming it.
 */
export interface ImportedFileSystemOptions {
  /** The VPC of the mount targets. */
  readonly vpc: ec2.IVpc;

  /**
   * Subnets the helpers' functions (seeds, probe, readiness gate) run in: in Availability Zones
   * where the file system has a mount target.
   * @default - the subnets of the file system's mount targets when it is an efs.FileSystem of this app, else the VPC's private subnets with egress (isolated ones where none has egress), one per zone
   */
  readonly vpcSubnets?: ec2.SubnetSelection;

  /**
   * Which addresses the mount targets have: the mount helpers open port 2049 over each family,
   * and EC2 hosts get an amazon-efs-utils that mounts over IPv6.
   * @default - read from the mount targets when it is an efs.FileSystem of this app, else MountTargetIpAddressType.IPV4_ONLY (EFS's own default, and every mount target made before 2025)
   */
  readonly mountTargetIpAddressType?: MountTargetIpAddressType;

  /**
   * The mount targets the readiness gate waits for.
   * @default - those of an efs.FileSystem of this app; else every mount target DescribeMountTargets lists at deploy time
   */
  readonly mountTargets?: MountTargetEndpoint[];

  /**
   * Its throughput mode. `addMonitoring` needs it (it decides the burst credit widgets and alarms).
   * @default - read from an efs.FileSystem of this app; else unknown, and addMonitoring fails naming it
   */
  readonly throughputMode?: efs.ThroughputMode;

  /**
   * Its provisioned throughput (throughputMode PROVISIONED only), which the monitoring's spend row bills.
   * @default - read from an efs.FileSystem of this app; else unknown, and addMonitoring fails for a PROVISIONED one
   */
  readonly provisionedThroughputPerSecond?: Size;

  /**
   * Its performance mode (PercentIOLimit exists in General Purpose mode only).
   * @default - read from an efs.FileSystem of this app, else efs.PerformanceMode.GENERAL_PURPOSE (Max I/O is a legacy mode)
   */
  readonly performanceMode?: efs.PerformanceMode;

  /**
   * Whether it is a One Zone file system: its storage has One Zone prices in the monitoring's spend row.
   * @default - read from an efs.FileSystem of this app; else taken as Regional (false), the common
   * case, and the spend row says it assumed so
   */
  readonly oneZone?: boolean;

  /**
   * Whether its file system policy denies requests without TLS.
   * @default - unknown: `mountOnEc2` mounts with amazon-efs-utils (TLS and IAM) only, never plain NFS
   */
  readonly tlsEnforced?: boolean;

  /**
   * Whether its file system policy lets clients without IAM authorization mount and write.
   * @default - unknown: `mountOnEc2` mounts with amazon-efs-utils (TLS and IAM) only, never plain NFS
   */
  readonly anonymousAccessAllowed?: boolean;
}

/**
 * An existing file system, by id:
 * [SharedFileSystem.fromFileSystemAttributes](#cdk-efs-kit.SharedFileSystem.fromFileSystemAttributes) takes these.
 */
export interface SharedFileSystemAttributes extends ImportedFileSystemOptions {
  /** The file system's id (`fs-…`). */
  readonly fileSystemId: string;
  /** The security group of its mount targets: the mount helpers open port 2049 on it to each client. */
  readonly securityGroup: ec2.ISecurityGroup;
}
