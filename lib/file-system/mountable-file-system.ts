import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import { IConstruct, IDependable } from 'constructs';
import { AccessLevel } from './access-level';
import { MountTargetIpAddressType } from './mount-targets-ready';
import type { FileSystemMonitoring, MonitoringOptions } from '../monitoring/file-system-monitoring';
import type { BenchmarkProbe, ProbeOptions } from '../probe/benchmark-probe';

/** Which service serves a mountable file system: what its IAM actions, DNS names and mount type are. */
export enum FileSystemKind {
  /** Amazon EFS: `elasticfilesystem:Client*`, `fs-….efs.<region>.amazonaws.com`, `mount -t efs`. */
  EFS = 'efs',
  /** Amazon S3 Files: `s3files:Client*`, `fs-….s3files.<region>.on.aws`, `mount -t s3files`. */
  S3_FILES = 's3files',
}

/**
 * What the helpers (seeds, probes, the readiness gate, the doctor, monitoring, client grants) need
 * of a file system that clients mount over NFS through mount targets: an EFS
 * [SharedFileSystem](#cdk-efs-kit.SharedFileSystem) (or an imported one) and an
 * [S3FilesFileSystem](#cdk-efs-kit.S3FilesFileSystem) both are one. A helper that cannot serve a
 * kind yet refuses it at synth, naming what is missing.
 */
export interface IMountableFileSystem extends ec2.IConnectable, IConstruct {
  // IConnectable before IConstruct, in efs.IFileSystem's order (IConnectable, IResource): Python builds
  // ISharedFileSystem from both, and bases in opposite orders have no consistent MRO (a TypeError on import).
  /** Which service serves it. */
  readonly fileSystemKind: FileSystemKind;
  // No fileSystemId or fileSystemArn here, though both kinds have them (on ISharedFileSystem through
  // efs.IFileSystem, on IS3FilesFileSystem): the same member from two parent interfaces makes
  // jsii-pacmak's Java for ISharedFileSystem fail to compile (Jsii$Default inherits both).
  /** `fs-….efs.<region>.amazonaws.com` (EFS: resolves to the mount target in the caller's zone) or `fs-….s3files.<region>.on.aws` (S3 Files: what it resolves to is not documented). */
  readonly fileSystemDnsName: string;
  /** The VPC of the mount targets. */
  readonly vpc: ec2.IVpc;
  /** The subnets holding a mount target, one per Availability Zone. */
  readonly mountTargetSubnets: ec2.SelectedSubnets;
  /** Which addresses the mount targets have. */
  readonly mountTargetIpAddressType: MountTargetIpAddressType;
  /** Completes once the mount targets can serve a first mount; the mount helpers make their clients depend on it. */
  readonly mountTargetsReady: IDependable;

  /**
   * The DNS name of one zone's mount target: `<zone name>.fs-….efs…` for EFS, `<zone id>.fs-….s3files…` for S3 Files.
   * @param availabilityZone the zone's name (us-east-1a) for EFS, its id (use1-az1) for S3 Files
   */
  mountTargetDnsName(availabilityZone: string): string;
  /**
   * Grant `grantee` the client actions of `level` (`ClientMount`, `ClientWrite`, `ClientRootAccess`
   * of the kind's IAM service), through the access point of `accessPointArn` only when one is given.
   */
  grantClientAccess(grantee: iam.IGrantable, level: AccessLevel, accessPointArn?: string): iam.Grant;
  /** A Lambda function that measures latency and throughput (see [BenchmarkProbe](#cdk-efs-kit.BenchmarkProbe)). */
  addProbe(id: string, options?: ProbeOptions): BenchmarkProbe;
  /** A dashboard and alarms (see [FileSystemMonitoring](#cdk-efs-kit.FileSystemMonitoring)). */
  addMonitoring(id: string, options?: MonitoringOptions): FileSystemMonitoring;
}
