import { Resource, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, IDependable } from 'constructs';
import { s3FilesFileSystemDnsName, s3FilesMountTargetDnsName } from './contract/s3-files-names';
import { IS3FilesAccessPoint, S3FilesAccessPoint } from './s3-files-access-point';
import { S3FilesMountOnEc2Options, S3FilesMountOnEcsOptions, S3FilesMountOnLambdaOptions } from './s3-files-mount-options';
import { grantS3FilesClientAccess, mountOnEc2, mountOnEcsService, mountOnEcsTask, mountOnLambda } from './s3-files-mounts';
import { AccessLevel } from '../file-system/access-level';
import { checkAccessPointOptions } from '../file-system/access-point-checks';
import { AccessPointPreset } from '../file-system/access-point-preset';
import { IEc2Host } from '../file-system/client-mount-options';
import { FileSystemKind, IMountableFileSystem } from '../file-system/mountable-file-system';
import { MountTargetIpAddressType } from '../file-system/mount-targets-ready';
import { ValidationError } from '../core/validation-error';
import { FileSystemMonitoring, MonitoringOptions } from '../monitoring/file-system-monitoring';
import { BenchmarkProbe, ProbeOptions } from '../probe/benchmark-probe';
import { S3FilesSeed, S3FilesSeedOptions } from '../seed/s3-files-seed';
import * as efs from 'aws-cdk-lib/aws-efs';

/**
 * An Amazon S3 Files file system with cdk-efs-kit's helpers: an [S3FilesFileSystem](#cdk-efs-kit.S3FilesFileSystem)
 * made by this app, or one imported with [S3FilesFileSystem.fromFileSystemAttributes](#cdk-efs-kit.S3FilesFileSystem.fromFileSystemAttributes).
 */
export interface IS3FilesFileSystem extends IMountableFileSystem {
  /** The file system's id (`fs-…`). */
  readonly fileSystemId: string;
  /** The ARN IAM policies name it by. */
  readonly fileSystemArn: string;
  /** The bucket it serves. */
  readonly bucket: s3.IBucket;
  /** The key prefix it serves ('' for the whole bucket). */
  readonly prefix: string;
  /** Add an access point (the same presets as SharedFileSystem's). */
  addAccessPoint(id: string, preset?: AccessPointPreset): S3FilesAccessPoint;
  /** Add an access point from aws-efs's `efs.AccessPointOptions`. */
  addAccessPointWithOptions(id: string, options?: efs.AccessPointOptions): S3FilesAccessPoint;
  /** Grant `s3files:Client*` of `level`, through `accessPoint` only when one is given. */
  grantAccess(grantee: iam.IGrantable, level: AccessLevel, accessPoint?: IS3FilesAccessPoint): iam.Grant;
  /** Mount an access point on a Lambda function in the VPC. */
  mountOnLambda(fn: lambda.Function, accessPoint: IS3FilesAccessPoint, options?: S3FilesMountOnLambdaOptions): void;
  /** Add an access point as a volume of a Fargate (or Managed Instances) task definition; returns the volume name. */
  mountOnEcsTask(taskDefinition: ecs.TaskDefinition, accessPoint: IS3FilesAccessPoint, options: S3FilesMountOnEcsOptions): string;
  /** Mount an access point in a service's tasks and open port 2049 from the service; returns the volume name. */
  mountOnEcsService(service: ecs.BaseService, accessPoint: IS3FilesAccessPoint, options: S3FilesMountOnEcsOptions): string;
  /** Mount the file system on an EC2 instance or Auto Scaling group at boot. */
  mountOnEc2(host: IEc2Host, options?: S3FilesMountOnEc2Options): void;
  /** Fill the file system at deploy time through its bucket (see [S3FilesSeed](#cdk-efs-kit.S3FilesSeed)). */
  addSeed(id: string, options: S3FilesSeedOptions): S3FilesSeed;
}

/** What a made and an imported S3 Files file system share: access points, grants, mounts, names, and the helpers' refusals. */
export abstract class S3FilesFileSystemBase extends Resource implements IS3FilesFileSystem {
  public abstract readonly fileSystemId: string;
  public abstract readonly fileSystemArn: string;
  public abstract readonly connections: ec2.Connections;
  public abstract readonly vpc: ec2.IVpc;
  public abstract readonly mountTargetSubnets: ec2.SelectedSubnets;
  public abstract readonly mountTargetIpAddressType: MountTargetIpAddressType;
  public abstract readonly mountTargetsReady: IDependable;
  public abstract readonly bucket: s3.IBucket;
  public abstract readonly prefix: string;
  /** Always FileSystemKind.S3_FILES. */
  public readonly fileSystemKind: FileSystemKind = FileSystemKind.S3_FILES;

  constructor(scope: Construct, id: string) {
    super(scope, id);
  }

  /** `fs-….s3files.<region>.on.aws` (`on.amazonwebservices.com.cn` in China): what it resolves to is not documented; mount.s3files resolves only `mountTargetDnsName`. */
  public get fileSystemDnsName(): string {
    return s3FilesFileSystemDnsName(this.fileSystemId, Stack.of(this).region);
  }

  /**
   * `<zone id>.fs-….s3files.<region>.on.aws`: that zone's mount target, from anywhere in the VPC.
   * @param availabilityZone the zone's id, e.g. use1-az1 (S3 Files names zones by id)
   */
  public mountTargetDnsName(availabilityZone: string): string {
    return s3FilesMountTargetDnsName(availabilityZone, this.fileSystemId, Stack.of(this).region);
  }

  /**
   * Add an access point: clients see its path as root and act as its POSIX user,
   * e.g. `AccessPointPreset.applicationUser('/web')`.
   * @param preset the access point's settings; default: `AccessPointPreset.custom({})`, the root
   */
  public addAccessPoint(id: string, preset: AccessPointPreset = AccessPointPreset.custom({})): S3FilesAccessPoint {
    return this.addAccessPointWithOptions(id, preset.options);
  }

  /** Add an access point from aws-efs's `efs.AccessPointOptions`, checked as addAccessPoint checks a preset. */
  public addAccessPointWithOptions(id: string, options: efs.AccessPointOptions = {}): S3FilesAccessPoint {
    checkAccessPointOptions(this, id, options, 'S3FilesFileSystem');
    return new S3FilesAccessPoint(this, id, { fileSystem: this, options });
  }

  /**
   * Grant `grantee` `s3files:ClientMount` (READ_ONLY), `ClientWrite` (READ_WRITE) and
   * `ClientRootAccess` (ROOT) in its identity policy, through `accessPoint` only when one is given
   * (`s3files:AccessPointArn` condition).
   */
  public grantAccess(grantee: iam.IGrantable, level: AccessLevel, accessPoint?: IS3FilesAccessPoint): iam.Grant {
    return grantS3FilesClientAccess(this, grantee, level, accessPoint?.accessPointArn);
  }

  /** [grantAccess](#cdk-efs-kit.S3FilesFileSystemBase.grantAccess) by the access point's ARN. */
  public grantClientAccess(grantee: iam.IGrantable, level: AccessLevel, accessPointArn?: string): iam.Grant {
    return grantS3FilesClientAccess(this, grantee, level, accessPointArn);
  }

  /**
   * Mount `accessPoint` on a Lambda function in this VPC: FileSystemConfigs with S3FilesConfig
   * (direct S3 reads, and their S3 grant whenever they can happen), port 2049, `s3files:Client*`
   * scoped to the access point, `UV_THREADPOOL_SIZE`, and a dependency on the mount targets.
   */
  public mountOnLambda(fn: lambda.Function, accessPoint: IS3FilesAccessPoint, options: S3FilesMountOnLambdaOptions = {}): void {
    mountOnLambda(this, fn, accessPoint, options);
  }

  /**
   * Add `accessPoint` as an S3 Files volume of a task definition (Fargate or ECS Managed Instances;
   * the EC2 launch type is refused), mount it in a container and grant the task role.
   */
  public mountOnEcsTask(taskDefinition: ecs.TaskDefinition, accessPoint: IS3FilesAccessPoint, options: S3FilesMountOnEcsOptions): string {
    return mountOnEcsTask(this, taskDefinition, accessPoint, options);
  }

  /** [mountOnEcsTask](#cdk-efs-kit.S3FilesFileSystemBase.mountOnEcsTask), port 2049 from the service, and the service after the mount targets. */
  public mountOnEcsService(service: ecs.BaseService, accessPoint: IS3FilesAccessPoint, options: S3FilesMountOnEcsOptions): string {
    return mountOnEcsService(this, service, accessPoint, options);
  }

  /**
   * Mount on an EC2 instance or Auto Scaling group at boot: user data installs amazon-efs-utils
   * 3.1.2 or later and mounts with `mount -t s3files` from /etc/fstab (`_netdev`).
   */
  public mountOnEc2(host: IEc2Host, options: S3FilesMountOnEc2Options = {}): void {
    mountOnEc2(this, host, options);
  }

  /**
   * An [S3FilesSeed](#cdk-efs-kit.S3FilesSeed) of this file system: the source's files written to
   * its bucket at deploy time, complete once they show through the mount.
   *
   * @example
   * const s3Files = new S3FilesFileSystem(this, 'S3Files', { vpc });
   * s3Files.addSeed('Site', { source: SeedSource.asset('./site'), targetPath: '/www' });
   */
  public addSeed(id: string, options: S3FilesSeedOptions): S3FilesSeed {
    return new S3FilesSeed(this, id, { ...options, fileSystem: this });
  }

  /**
   * A [BenchmarkProbe](#cdk-efs-kit.BenchmarkProbe) of this file system, with an access point of its
   * own and S3 Files' own scenarios (import, direct-read, export-lag) through the bucket; pass it to
   * [S3FilesMonitoring](#cdk-efs-kit.S3FilesMonitoring)'s `probes` for its row and alarms.
   *
   * @example
   * const s3Files = new S3FilesFileSystem(this, 'S3Files', { vpc });
   * const probe = s3Files.addProbe('Probe', { canary: { interval: Duration.minutes(15) } });
   * new S3FilesMonitoring(this, 'S3FilesMonitoring', { fileSystem: s3Files, probes: [probe] });
   */
  public addProbe(id: string, options: ProbeOptions = {}): BenchmarkProbe {
    return new BenchmarkProbe(this, id, { ...options, fileSystem: this });
  }

  /** Refused: `new S3FilesMonitoring(scope, id, { fileSystem })` watches the AWS/S3/Files metrics (FileSystemMonitoring watches EFS's). */
  public addMonitoring(id: string, _options?: MonitoringOptions): FileSystemMonitoring {
    throw new ValidationError(`S3FilesFileSystem(${this.node.path}).addMonitoring('${id}'): FileSystemMonitoring watches EFS's metrics (AWS/EFS) and its options `
      + `(seeds, probes, EFS pricing) do not apply to S3 Files; use new S3FilesMonitoring(scope, '${id}', { fileSystem }) for the AWS/S3/Files metrics and alarms.`, this);
  }
}
