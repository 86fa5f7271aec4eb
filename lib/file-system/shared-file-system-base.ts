import { Duration, Resource, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct, IDependable } from 'constructs';
import { AccessLevel } from './access-level';
import { checkAccessPointOptions } from './access-point-checks';
import { AccessPointPreset } from './access-point-preset';
import { IEc2Host, MountOnEc2Options, MountOnEcsOptions, MountOnLambdaOptions } from './client-mount-options';
import { MountTargetIpAddressType } from './mount-targets-ready';
import { grantFileSystemAccess, mountOnEc2, mountOnEcsService, mountOnEcsTask, mountOnLambda } from './mounts';
import { brand } from '../core/type-brand';
import { EfsMetricName, EfsMetrics, IoKind, StorageClass } from '../monitoring/efs-metrics';
import { FileSystemMonitoring, MonitoringOptions } from '../monitoring/file-system-monitoring';
import { BenchmarkProbe, ProbeOptions } from '../probe/benchmark-probe';
import { FileSystemSeed, SeedOptions } from '../seed/file-system-seed';
import { SHARED_FILE_SYSTEM_LIKE_BRAND } from './shared-file-system-brand';
import { FileSystemKind, IMountableFileSystem } from './mountable-file-system';

/**
 * An EFS file system with cdk-efs-kit's helpers: a [SharedFileSystem](#cdk-efs-kit.SharedFileSystem)
 * made by this app, or one made elsewhere and imported with
 * [SharedFileSystem.fromFileSystemAttributes](#cdk-efs-kit.SharedFileSystem.fromFileSystemAttributes)
 * or [SharedFileSystem.fromFileSystem](#cdk-efs-kit.SharedFileSystem.fromFileSystem). Seeds, probes
 * and monitoring take either.
 */
export interface ISharedFileSystem extends efs.IFileSystem, IMountableFileSystem {

  /** Add an access point (see [SharedFileSystem.addAccessPoint](#cdk-efs-kit.SharedFileSystem.addAccessPoint)). */
  addAccessPoint(id: string, preset?: AccessPointPreset): efs.AccessPoint;
  /** Add an access point from aws-efs's `efs.AccessPointOptions` (see [SharedFileSystem.addAccessPointWithOptions](#cdk-efs-kit.SharedFileSystem.addAccessPointWithOptions)). */
  addAccessPointWithOptions(id: string, options?: efs.AccessPointOptions): efs.AccessPoint;
  /** Fill the file system at deploy time (see [FileSystemSeed](#cdk-efs-kit.FileSystemSeed)). */
  addSeed(id: string, options: SeedOptions): FileSystemSeed;
  /** Grant access, through `accessPoint` only when one is given, and only through mount targets. */
  grantAccess(grantee: iam.IGrantable, level: AccessLevel, accessPoint?: efs.IAccessPoint): iam.Grant;
  /** Mount an access point on a Lambda function in the VPC. */
  mountOnLambda(fn: lambda.Function, accessPoint: efs.IAccessPoint, options?: MountOnLambdaOptions): void;
  /** Add an access point as a volume of an ECS task definition; returns the volume name. */
  mountOnEcsTask(taskDefinition: ecs.TaskDefinition, accessPoint: efs.IAccessPoint, options: MountOnEcsOptions): string;
  /** Mount an access point in a service's tasks and open port 2049 from the service; returns the volume name. */
  mountOnEcsService(service: ecs.BaseService, accessPoint: efs.IAccessPoint, options: MountOnEcsOptions): string;
  /** Mount the file system on an EC2 instance or Auto Scaling group at boot. */
  mountOnEc2(host: IEc2Host, options?: MountOnEc2Options): void;

  /** `PercentIOLimit` (Average). */
  metricPercentIOLimit(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** `BurstCreditBalance` (Average, Bytes). */
  metricBurstCreditBalance(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** `PermittedThroughput` (Average, Bytes/Second). */
  metricPermittedThroughput(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** `MeteredIOBytes` (Sum). */
  metricMeteredIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** `TotalIOBytes` (Sum). */
  metricTotalIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** `DataReadIOBytes` (Sum). */
  metricDataReadIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** `DataWriteIOBytes` (Sum). */
  metricDataWriteIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** `MetadataIOBytes` (Sum). */
  metricMetadataIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** `MetadataReadIOBytes` (Sum). */
  metricMetadataReadIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** `MetadataWriteIOBytes` (Sum). */
  metricMetadataWriteIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** `ClientConnections` (Sum). */
  metricClientConnections(options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** `StorageBytes` (Average) of one storage class. */
  metricStorageBytes(storageClass?: StorageClass, options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** `TimeSinceLastSync` (Maximum, Seconds) of replication to `destinationFileSystemId`. */
  metricTimeSinceLastSync(destinationFileSystemId: string, options?: cloudwatch.MetricOptions): cloudwatch.Metric;
  /** Throughput in MiB/s of one kind of I/O. */
  metricThroughputMiBps(kind?: IoKind, options?: cloudwatch.MathExpressionOptions): cloudwatch.MathExpression;
  /** Operations per second of one kind of I/O. */
  metricIops(kind?: IoKind, options?: cloudwatch.MathExpressionOptions): cloudwatch.MathExpression;
  /** Average I/O size in KiB of one kind of I/O. */
  metricAverageIoSizeKiB(kind?: IoKind, options?: cloudwatch.MathExpressionOptions): cloudwatch.MathExpression;
  /** Percent of the permitted throughput in use. */
  metricPermittedThroughputUtilization(options?: cloudwatch.MathExpressionOptions): cloudwatch.MathExpression;
}

/**
 * What a [SharedFileSystem](#cdk-efs-kit.SharedFileSystem) and an imported one share (as aws-efs's
 * `FileSystemBase` does for its created and imported file systems): access points, grants, the
 * mount helpers, seeds and probes, and the AWS/EFS metrics, each named after the official metric.
 * What differs (where the facts come from, the readiness gate, monitoring) the subclasses say.
 */
export abstract class SharedFileSystemBase extends Resource implements ISharedFileSystem {
  /** The file system's id, the `FileSystemId` dimension of its metrics. */
  public abstract readonly fileSystemId: string;
  public abstract readonly fileSystemArn: string;
  public abstract readonly connections: ec2.Connections;
  public abstract readonly mountTargetsAvailable: IDependable;
  public abstract readonly vpc: ec2.IVpc;
  public abstract readonly mountTargetSubnets: ec2.SelectedSubnets;
  public abstract readonly mountTargetIpAddressType: MountTargetIpAddressType;
  public abstract readonly mountTargetsReady: IDependable;
  public abstract readonly fileSystemRef: efs.FileSystemReference;

  /** Always FileSystemKind.EFS. */
  public readonly fileSystemKind: FileSystemKind = FileSystemKind.EFS;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    brand(this, SHARED_FILE_SYSTEM_LIKE_BRAND);
  }

  /** `fs-….efs.<region>.amazonaws.com`: resolves to the mount target in the caller's Availability Zone. */
  public get fileSystemDnsName(): string {
    const stack = Stack.of(this);
    return `${this.fileSystemId}.efs.${stack.region}.${stack.urlSuffix}`;
  }

  /**
   * `<zone>.fs-….efs.<region>.amazonaws.com`: that zone's mount target, from anywhere in the VPC.
   * @param availabilityZone the zone's name, e.g. us-east-1a
   */
  public mountTargetDnsName(availabilityZone: string): string {
    return `${availabilityZone}.${this.fileSystemDnsName}`;
  }

  /**
   * [grantAccess](#cdk-efs-kit.SharedFileSystemBase.grantAccess) by the access point's ARN, as every
   * [IMountableFileSystem](#cdk-efs-kit.IMountableFileSystem) takes it.
   */
  public grantClientAccess(grantee: iam.IGrantable, level: AccessLevel, accessPointArn?: string): iam.Grant {
    return grantFileSystemAccess(this, grantee, level, accessPointArn);
  }

  public abstract addToResourcePolicy(statement: iam.PolicyStatement): iam.AddToResourcePolicyResult;

  public abstract addMonitoring(id: string, options?: MonitoringOptions): FileSystemMonitoring;

  /**
   * Add an access point: an application-specific entry point that roots clients at a path and
   * can force a POSIX user, e.g. `AccessPointPreset.applicationUser('/web')`.
   * @param preset the access point's settings; default: `AccessPointPreset.custom({})`, the root
   * of the file system, where clients keep their own user
   *
   * @example
   * const uploads = files.addAccessPoint('Uploads', AccessPointPreset.applicationUser('/uploads', { uid: 33, gid: 33 }));
   */
  public addAccessPoint(id: string, preset: AccessPointPreset = AccessPointPreset.custom({})): efs.AccessPoint {
    return this.addAccessPointWithOptions(id, preset.options);
  }

  /**
   * Add an access point from aws-efs's own `efs.AccessPointOptions`, checked as
   * [addAccessPoint](#cdk-efs-kit.SharedFileSystemBase.addAccessPoint) checks a preset. Code moved from
   * aws-efs changes the method's name only: `fileSystem.addAccessPoint(id, options)` becomes
   * `files.addAccessPointWithOptions(id, options)` (Python: `add_access_point_with_options(id, path=..., ...)`).
   *
   * @example
   * const reports = files.addAccessPointWithOptions('Reports', {
   *   path: '/reports',
   *   posixUser: { uid: '1001', gid: '1001' },
   *   createAcl: { ownerUid: '1001', ownerGid: '1001', permissions: '750' },
   * });
   */
  public addAccessPointWithOptions(id: string, options: efs.AccessPointOptions = {}): efs.AccessPoint {
    checkAccessPointOptions(this, id, options);
    return new efs.AccessPoint(this, id, { fileSystem: this, ...options });
  }

  /**
   * Grant `grantee` access to the file system, through `accessPoint` only when one is given
   * (`elasticfilesystem:AccessPointArn` condition), and only through mount targets.
   *
   * @example
   * files.grantAccess(fn, AccessLevel.READ_ONLY, web);
   */
  public grantAccess(grantee: iam.IGrantable, level: AccessLevel, accessPoint?: efs.IAccessPoint): iam.Grant {
    return grantFileSystemAccess(this, grantee, level, accessPoint?.accessPointArn);
  }

  public grant(grantee: iam.IGrantable, ...actions: string[]): iam.Grant {
    return iam.Grant.addToPrincipalOrResource({ grantee, actions, resourceArns: [this.fileSystemArn], resource: this });
  }

  public grantRead(grantee: iam.IGrantable): iam.Grant {
    return this.grantAccess(grantee, AccessLevel.READ_ONLY);
  }

  public grantReadWrite(grantee: iam.IGrantable): iam.Grant {
    return this.grantAccess(grantee, AccessLevel.READ_WRITE);
  }

  public grantRootAccess(grantee: iam.IGrantable): iam.Grant {
    return this.grantAccess(grantee, AccessLevel.ROOT);
  }

  /**
   * Mount `accessPoint` on a Lambda function in this VPC: FileSystemConfigs, port 2049 from the
   * function, IAM scoped to the access point, `UV_THREADPOOL_SIZE`, and dependencies on the
   * readiness gate ([mountTargetsReady](#cdk-efs-kit.SharedFileSystem.property.mountTargetsReady)) and on the port 2049 rules (the function is created only once it can mount).
   *
   * @example
   * files.mountOnLambda(fn, jobs, { mountPath: '/mnt/jobs', threadPoolSize: 128 });
   */
  public mountOnLambda(fn: lambda.Function, accessPoint: efs.IAccessPoint, options: MountOnLambdaOptions = {}): void {
    mountOnLambda(this, fn, accessPoint, options);
  }

  /**
   * Add `accessPoint` as a volume of an ECS task definition, with transit encryption and IAM
   * authorization, mount it in a container and grant the task role. Returns the volume name.
   * Use [mountOnEcsService](#cdk-efs-kit.SharedFileSystem.mountOnEcsService) to also open the security group to a service.
   *
   * @example
   * files.mountOnEcsTask(task, jobs, { containerPath: '/data' });
   */
  public mountOnEcsTask(taskDefinition: ecs.TaskDefinition, accessPoint: efs.IAccessPoint, options: MountOnEcsOptions): string {
    return mountOnEcsTask(this, taskDefinition, accessPoint, options);
  }

  /**
   * Mount `accessPoint` in a service's tasks ([mountOnEcsTask](#cdk-efs-kit.SharedFileSystem.mountOnEcsTask)), open port 2049 from the
   * service, and start the service only once the mount targets answer ([mountTargetsReady](#cdk-efs-kit.SharedFileSystem.property.mountTargetsReady)).
   *
   * @example
   * files.mountOnEcsService(service, web, { containerPath: '/usr/share/nginx/html', readOnly: true });
   */
  public mountOnEcsService(service: ecs.BaseService, accessPoint: efs.IAccessPoint, options: MountOnEcsOptions): string {
    return mountOnEcsService(this, service, accessPoint, options);
  }

  /**
   * Mount the file system on an EC2 instance or Auto Scaling group at boot: user data installs
   * amazon-efs-utils (2.4.2 or later where the mount targets have IPv6 addresses) and mounts with
   * `tls,iam[,accesspoint=...]` from /etc/fstab (`_netdev,nofail`), falling back to NFSv4.1 with
   * the recommended options only where the policy is known to allow plain NFS.
   *
   * @example
   * files.mountOnEc2(host, { mountPoint: '/mnt/jobs', accessPoint: jobs });
   */
  public mountOnEc2(host: IEc2Host, options: MountOnEc2Options = {}): void {
    mountOnEc2(this, host, options);
  }

  /**
   * Fill the file system at deploy time through `options.accessPoint` (see [FileSystemSeed](#cdk-efs-kit.FileSystemSeed)).
   * Clients mounted with the mountOn* helpers through an access point that sees the seed's place
   * start once the content is in place, whichever was declared first (`waitForSeeds: false` opts one out).
   *
   * @example
   * files.addSeed('Content', { accessPoint: web, source: SeedSource.asset('site') });
   * files.mountOnEcsService(service, web, { containerPath: '/usr/share/nginx/html' }); // starts once the files are there
   */
  public addSeed(id: string, options: SeedOptions): FileSystemSeed {
    return new FileSystemSeed(this, id, { ...options, fileSystem: this });
  }

  /**
   * A Lambda function that measures latency and throughput on this file system (see [BenchmarkProbe](#cdk-efs-kit.BenchmarkProbe)).
   *
   * @example
   * const probe = files.addProbe('Probe', { accessPoint: jobs, canary: { interval: Duration.minutes(15) } });
   * probe.grantInvoke(ciRole);
   */
  public addProbe(id: string, options: ProbeOptions = {}): BenchmarkProbe {
    return new BenchmarkProbe(this, id, { ...options, fileSystem: this });
  }

  /** `PercentIOLimit` (Average): how close a General Purpose file system is to its I/O limit. */
  public metricPercentIOLimit(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.PERCENT_IO_LIMIT, options);
  }

  /** `BurstCreditBalance` (Average, Bytes): meaningful in Bursting mode only. */
  public metricBurstCreditBalance(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.BURST_CREDIT_BALANCE, options);
  }

  /** `PermittedThroughput` (Average, Bytes/Second). */
  public metricPermittedThroughput(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.PERMITTED_THROUGHPUT, options);
  }

  /** `MeteredIOBytes` (Sum): what is compared with PermittedThroughput. */
  public metricMeteredIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.METERED_IO_BYTES, options);
  }

  /** `TotalIOBytes` (Sum); SampleCount gives operations. */
  public metricTotalIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.TOTAL_IO_BYTES, options);
  }

  /** `DataReadIOBytes` (Sum). */
  public metricDataReadIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.DATA_READ_IO_BYTES, options);
  }

  /** `DataWriteIOBytes` (Sum). */
  public metricDataWriteIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.DATA_WRITE_IO_BYTES, options);
  }

  /** `MetadataIOBytes` (Sum). */
  public metricMetadataIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.METADATA_IO_BYTES, options);
  }

  /** `MetadataReadIOBytes` (Sum). */
  public metricMetadataReadIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.METADATA_READ_IO_BYTES, options);
  }

  /** `MetadataWriteIOBytes` (Sum). */
  public metricMetadataWriteIOBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.METADATA_WRITE_IO_BYTES, options);
  }

  /** `ClientConnections` (Sum): mounted clients, one per Lambda execution environment. */
  public metricClientConnections(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.CLIENT_CONNECTIONS, options);
  }

  /** `StorageBytes` (Average) of one storage class (reported every 15 minutes). */
  public metricStorageBytes(storageClass: StorageClass = StorageClass.TOTAL, options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.STORAGE_BYTES, {
      period: Duration.minutes(15), ...options, dimensionsMap: { StorageClass: storageClass, ...options?.dimensionsMap },
    });
  }

  /** `TimeSinceLastSync` (Maximum, Seconds) of replication to `destinationFileSystemId`. */
  public metricTimeSinceLastSync(destinationFileSystemId: string, options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return EfsMetrics.metric(this.fileSystemId, EfsMetricName.TIME_SINCE_LAST_SYNC, {
      ...options, dimensionsMap: { DestinationFileSystemId: destinationFileSystemId, ...options?.dimensionsMap },
    });
  }

  /** Throughput in MiB/s of one kind of I/O (metric math on the `*IOBytes` Sums). */
  public metricThroughputMiBps(kind: IoKind = IoKind.TOTAL, options?: cloudwatch.MathExpressionOptions): cloudwatch.MathExpression {
    return EfsMetrics.throughputMiBps(this.fileSystemId, kind, options);
  }

  /** Operations per second of one kind of I/O (SampleCount / PERIOD). */
  public metricIops(kind: IoKind = IoKind.TOTAL, options?: cloudwatch.MathExpressionOptions): cloudwatch.MathExpression {
    return EfsMetrics.iops(this.fileSystemId, kind, options);
  }

  /** Average I/O size in KiB of one kind of I/O. */
  public metricAverageIoSizeKiB(kind: IoKind = IoKind.TOTAL, options?: cloudwatch.MathExpressionOptions): cloudwatch.MathExpression {
    return EfsMetrics.averageIoSizeKiB(this.fileSystemId, kind, options);
  }

  /** Percent of the permitted throughput in use (MeteredIOBytes against PermittedThroughput). */
  public metricPermittedThroughputUtilization(options?: cloudwatch.MathExpressionOptions): cloudwatch.MathExpression {
    return EfsMetrics.permittedThroughputUtilization(this.fileSystemId, options);
  }
}
