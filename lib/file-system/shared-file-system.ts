import { Annotations, Duration, RemovalPolicy, Resource, Size, SizeRoundingBehavior, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct, IConstruct, IDependable } from 'constructs';
import { UV_THREADPOOL_MAX } from '../seed/contract/limits';
import { AccessPointPreset } from './access-point-preset';
import { BenchmarkProbe, ProbeOptions } from '../probe/benchmark-probe';
import { EfsMetricName, EfsMetrics, IoKind, StorageClass } from '../monitoring/efs-metrics';
import { FileSystemMonitoring, MonitoringOptions } from '../monitoring/file-system-monitoring';
import { FileSystemSeed, SeedOptions } from '../seed/file-system-seed';
import { renderEc2MountScript } from './ec2-mount-script';
import { warnAboutEc2Owner, warnAboutEcsOwner } from './mount-owners';
import { gateOf } from './shared-file-system-gate';
import { dependOnRulesBetween } from '../core/security-group-rules';
import { defaultPrivateSubnets } from '../core/subnets';
import { brand } from '../core/type-brand';
import { check, isCleanAbsolutePath, isOctalMode, isPosixId, LAMBDA_MOUNT_PATH } from '../core/validate';
import { isSharedFileSystem, SHARED_FILE_SYSTEM_BRAND } from './shared-file-system-brand';
import { StorageLifecycle } from './storage-lifecycle';

/** Properties of a [SharedFileSystem](#cdk-efs-kit.SharedFileSystem). */
export interface SharedFileSystemProps {
  /** The VPC to put mount targets in. */
  readonly vpc: ec2.IVpc;

  /**
   * Subnets for the mount targets (one per Availability Zone).
   * @default - the VPC's private subnets with egress, else its isolated subnets
   */
  readonly vpcSubnets?: ec2.SubnetSelection;

  /**
   * Security group of the mount targets. Mount helpers open port 2049 on it to each client.
   * @default - a new security group with no ingress
   */
  readonly securityGroup?: ec2.ISecurityGroup;

  /**
   * Name of the file system (the `Name` tag).
   * @default - the construct path
   */
  readonly fileSystemName?: string;

  /**
   * Throughput mode. Elastic scales with the workload and never runs out of burst credits;
   * Bursting ties throughput to stored size (50 KiB/s per GiB) and drops to 1 MiB/s when its
   * credits are spent. Changing the mode is allowed once every 24 hours.
   * @default efs.ThroughputMode.ELASTIC
   */
  readonly throughputMode?: efs.ThroughputMode;

  /**
   * Throughput to provision; required with, and only allowed with, `ThroughputMode.PROVISIONED`.
   * @default - none
   */
  readonly provisionedThroughputPerSecond?: Size;

  /**
   * Performance mode. General Purpose has the lowest latency and supports Elastic throughput;
   * Max I/O is a legacy mode with higher latency. It cannot be changed after creation.
   * @default efs.PerformanceMode.GENERAL_PURPOSE
   */
  readonly performanceMode?: efs.PerformanceMode;

  /**
   * Create a One Zone file system in the first selected Availability Zone: cheaper, but it
   * lives and dies with that zone.
   * @default false
   */
  readonly oneZone?: boolean;

  /**
   * Encrypt data at rest.
   * @default true
   */
  readonly encrypted?: boolean;

  /**
   * Customer managed KMS key for encryption at rest.
   * @default - the AWS managed key for EFS (aws/elasticfilesystem)
   */
  readonly kmsKey?: kms.IKey;

  /**
   * Back the file system up daily with AWS Backup (the EFS automatic backup policy).
   * @default true
   */
  readonly enableAutomaticBackups?: boolean;

  /**
   * What happens to the file system, and its data, when it leaves the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;

  /**
   * When files move to cheaper storage classes.
   * @default StorageLifecycle.infrequentAccess() - to IA after 30 days, back on first access
   */
  readonly lifecycle?: StorageLifecycle;

  /**
   * Deny every request that does not use TLS (`aws:SecureTransport` false) in the file system policy.
   * @default true
   */
  readonly enforceTls?: boolean;

  /**
   * Let NFS clients that do not use IAM authorization mount and write. When false, only
   * principals granted access (the mount helpers and `grantAccess` do that) can mount.
   * @default false
   */
  readonly allowAnonymousAccess?: boolean;
}

/** How much a client may do on the file system, as EFS's IAM actions. */
export enum AccessLevel {
  /** `elasticfilesystem:ClientMount` */
  READ_ONLY = 'READ_ONLY',
  /** `ClientMount` and `ClientWrite` */
  READ_WRITE = 'READ_WRITE',
  /** `ClientMount`, `ClientWrite` and `ClientRootAccess` (bypasses the access point's POSIX user) */
  ROOT = 'ROOT',
}

/** Options for [SharedFileSystem.mountOnLambda](#cdk-efs-kit.SharedFileSystem.mountOnLambda). */
export interface LambdaMountOptions {
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
}

/** Options for [SharedFileSystem.mountOnEcsTask](#cdk-efs-kit.SharedFileSystem.mountOnEcsTask) and [SharedFileSystem.mountOnEcsService](#cdk-efs-kit.SharedFileSystem.mountOnEcsService). */
export interface EcsMountOptions {
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
}

/** An EC2 instance or Auto Scaling group: something with user data, a role and security groups. */
export interface IEc2Host extends IConstruct, ec2.IConnectable, iam.IGrantable {
  /** The boot script the mount commands are added to. */
  readonly userData: ec2.UserData;
}

/** Options for [SharedFileSystem.mountOnEc2](#cdk-efs-kit.SharedFileSystem.mountOnEc2). */
export interface Ec2MountOptions {
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
}

const WHERE = 'SharedFileSystem';

/**
 * An Amazon EFS file system with fast, secure defaults (Elastic throughput, encryption, TLS-only
 * policy without anonymous access, backups, RETAIN) and helpers that wire Lambda functions, ECS
 * tasks and EC2 hosts to it: security group, IAM scoped to the access point, mount options, and a
 * dependency on the mount targets.
 *
 * @exampleMetadata fixture=app
 * @example
 * const app = new App();
 * const stack = new Stack(app, 'MyApp');
 * const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
 *
 * // An encrypted, TLS-only file system with Elastic throughput and backups, and two access points.
 * const files = new SharedFileSystem(stack, 'Files', { vpc });
 * const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));   // uid/gid 1000, mode 750
 * const jobs = files.addAccessPoint('Jobs', AccessPointPreset.applicationUser('/jobs'));
 *
 * // A Lambda function that mounts /jobs.
 * const fn = new lambda.Function(stack, 'Lister', {
 *   runtime: lambda.Runtime.NODEJS_22_X,
 *   handler: 'index.handler',
 *   code: lambda.Code.fromInline("exports.handler = async () => require('fs').readdirSync('/mnt/jobs');"),
 *   vpc,
 * });
 * files.mountOnLambda(fn, jobs, { mountPath: '/mnt/jobs' });
 *
 * // An nginx service on Fargate that serves /web, read-only.
 * const cluster = new ecs.Cluster(stack, 'Cluster', { vpc });
 * const task = new ecs.FargateTaskDefinition(stack, 'WebTask');
 * task.addContainer('web', {
 *   image: ecs.ContainerImage.fromRegistry('public.ecr.aws/nginx/nginx:stable'),
 *   portMappings: [{ containerPort: 80 }],
 * });
 * const service = new ecs.FargateService(stack, 'WebService', {
 *   cluster, taskDefinition: task, minHealthyPercent: 100, circuitBreaker: { rollback: true },
 * });
 * files.mountOnEcsService(service, web, { containerPath: '/usr/share/nginx/html', readOnly: true });
 *
 * // Copy ./site onto /web at deploy time, before the service starts.
 * const content = files.addSeed('Content', { accessPoint: web, source: SeedSource.asset('site') });
 * service.node.addDependency(content);
 *
 * // Latency as applications feel it every 15 minutes, a dashboard, and alarms.
 * files.addProbe('Probe', { canary: { interval: Duration.minutes(15) } });
 * files.addMonitoring('Monitoring', {
 *   alarms: {
 *     minimumClientConnections: AlarmThreshold.count(1),  // off by default
 *     throughputUtilization: AlarmThreshold.percent(90),  // 80 by default
 *     percentIOLimit: AlarmThreshold.off(),
 *   },
 * });
 * // An alarm of your own on AWS's metric math: writes above 100 MiB/s for 15 minutes.
 * EfsMetrics.throughputMiBps(files.fileSystemId, IoKind.DATA_WRITE).createAlarm(stack, 'HeavyWrites', {
 *   threshold: 100, evaluationPeriods: 15,
 * });
 * app.synth();
 */
export class SharedFileSystem extends Resource implements efs.IFileSystem {
  /** Whether `x` is a SharedFileSystem, made by any copy of this package. */
  public static isSharedFileSystem(x: any): x is SharedFileSystem {
    return isSharedFileSystem(x);
  }

  /** The underlying aws-cdk file system. */
  public readonly fileSystem: efs.FileSystem;
  public readonly fileSystemId: string;
  public readonly fileSystemArn: string;
  public readonly connections: ec2.Connections;
  public readonly mountTargetsAvailable: IDependable;
  /** The throughput mode it was created with. */
  public readonly throughputMode: efs.ThroughputMode;
  /** The performance mode it was created with. */
  public readonly performanceMode: efs.PerformanceMode;
  /** The VPC of the mount targets. */
  public readonly vpc: ec2.IVpc;
  /** The subnets holding a mount target, one per Availability Zone. */
  public readonly mountTargetSubnets: ec2.SelectedSubnets;
  /** Whether the file system policy requires TLS. */
  public readonly tlsEnforced: boolean;
  private readonly seeds: FileSystemSeed[] = [];
  private readonly probes: BenchmarkProbe[] = [];
  /** Whether clients without IAM authorization may mount. */
  public readonly anonymousAccessAllowed: boolean;

  constructor(scope: Construct, id: string, props: SharedFileSystemProps) {
    super(scope, id);
    brand(this, SHARED_FILE_SYSTEM_BRAND);
    this.throughputMode = props.throughputMode ?? efs.ThroughputMode.ELASTIC;
    this.performanceMode = props.performanceMode ?? efs.PerformanceMode.GENERAL_PURPOSE;
    this.tlsEnforced = props.enforceTls ?? true;
    this.anonymousAccessAllowed = props.allowAnonymousAccess ?? false;
    const encrypted = props.encrypted ?? true;
    const backups = props.enableAutomaticBackups ?? true;
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const lifecycle = props.lifecycle ?? StorageLifecycle.infrequentAccess();

    this.validate(props, encrypted);
    this.warnAboutRiskyChoices(props, { encrypted, backups, removalPolicy });

    this.vpc = props.vpc;
    const subnets = props.vpcSubnets ?? defaultPrivateSubnets(props.vpc);
    // One Zone file systems live in one AZ; aws-cdk wants it named in the selection.
    const vpcSubnets = props.oneZone && !subnets.availabilityZones ? { ...subnets, availabilityZones: [props.vpc.availabilityZones[0]] } : subnets;
    this.mountTargetSubnets = props.vpc.selectSubnets(vpcSubnets);
    this.fileSystem = new efs.FileSystem(this, 'Resource', {
      vpc: props.vpc,
      vpcSubnets,
      securityGroup: props.securityGroup,
      fileSystemName: props.fileSystemName,
      throughputMode: this.throughputMode,
      provisionedThroughputPerSecond: props.provisionedThroughputPerSecond,
      performanceMode: this.performanceMode,
      oneZone: props.oneZone,
      encrypted,
      kmsKey: props.kmsKey,
      enableAutomaticBackups: backups,
      removalPolicy,
      lifecyclePolicy: lifecycle.toInfrequentAccess,
      outOfInfrequentAccessPolicy: lifecycle.backToStandard,
      transitionToArchivePolicy: lifecycle.toArchive,
      fileSystemPolicy: this.basePolicy(),
      // aws-cdk's "deny anonymous" default allows ClientWrite but not ClientMount to everyone, which
      // has broken mounts (aws/aws-cdk#33669, #36224). Our policy above denies anonymous clients by
      // allowing nothing to them; granted principals mount through their identity policies.
      allowAnonymousAccess: true,
    });
    this.fileSystemId = this.fileSystem.fileSystemId;
    this.fileSystemArn = this.fileSystem.fileSystemArn;
    this.connections = this.fileSystem.connections;
    this.mountTargetsAvailable = this.fileSystem.mountTargetsAvailable;
  }

  /**
   * Completes once every mount target answers from the file system's subnets: its DNS names
   * resolve and TCP 2049 accepts (see [MountTargetsReady](#cdk-efs-kit.MountTargetsReady)). The
   * mount helpers make their clients depend on it; make others depend on it yourself.
   * One per file system, made on first use.
   *
   * @example
   * const worker = new ecs.FargateTaskDefinition(this, 'Worker'); // runs tasks that mount the file system their own way
   * worker.node.addDependency(files.mountTargetsReady);
   */
  public get mountTargetsReady(): IDependable {
    return gateOf(this);
  }

  public get fileSystemRef(): efs.FileSystemReference {
    return this.fileSystem.fileSystemRef;
  }

  public applyRemovalPolicy(policy: RemovalPolicy): void {
    this.fileSystem.applyRemovalPolicy(policy);
  }

  public addToResourcePolicy(statement: iam.PolicyStatement): iam.AddToResourcePolicyResult {
    return this.fileSystem.addToResourcePolicy(statement);
  }

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
    const where = `${WHERE}.addAccessPoint('${id}')`;
    const options = preset.options;
    if (options.path !== undefined) {
      check(isCleanAbsolutePath(options.path), where, 'path', options.path, "must be an absolute path without empty, '.' or '..' parts");
      check(options.path.length <= 100, where, 'path', options.path, 'must be at most 100 characters (an EFS limit)');
    }
    if (options.posixUser) {
      check(isPosixId(options.posixUser.uid), where, 'posixUser.uid', options.posixUser.uid, 'must be an integer from 0 to 4294967295');
      check(isPosixId(options.posixUser.gid), where, 'posixUser.gid', options.posixUser.gid, 'must be an integer from 0 to 4294967295');
      for (const gid of options.posixUser.secondaryGids ?? []) {
        check(isPosixId(gid), where, 'posixUser.secondaryGids', gid, 'must hold integers from 0 to 4294967295');
      }
    }
    if (options.createAcl) {
      check(isPosixId(options.createAcl.ownerUid), where, 'createAcl.ownerUid', options.createAcl.ownerUid, 'must be an integer from 0 to 4294967295');
      check(isPosixId(options.createAcl.ownerGid), where, 'createAcl.ownerGid', options.createAcl.ownerGid, 'must be an integer from 0 to 4294967295');
      check(isOctalMode(options.createAcl.permissions), where, 'createAcl.permissions', options.createAcl.permissions, "must be an octal mode such as '750'");
    }
    if (options.path && options.path !== '/' && !options.createAcl) {
      Annotations.of(this).addWarningV2('cdk-efs-kit:accessPointWithoutCreateAcl',
        `Access point '${id}' has path ${options.path} but no createAcl: EFS will not create the directory, and mounts fail until it exists.`);
    }
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
    const actions = ['elasticfilesystem:ClientMount'];
    if (level !== AccessLevel.READ_ONLY) actions.push('elasticfilesystem:ClientWrite');
    if (level === AccessLevel.ROOT) actions.push('elasticfilesystem:ClientRootAccess');
    const conditions: Record<string, Record<string, string>> = {
      Bool: { 'elasticfilesystem:AccessedViaMountTarget': 'true' },
    };
    if (accessPoint) conditions.StringEquals = { 'elasticfilesystem:AccessPointArn': accessPoint.accessPointArn };
    return iam.Grant.addToPrincipalOrResource({ grantee, actions, resourceArns: [this.fileSystemArn], resource: this, conditions });
  }

  public grant(grantee: iam.IGrantable, ...actions: string[]): iam.Grant {
    return this.fileSystem.grant(grantee, ...actions);
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
  public mountOnLambda(fn: lambda.Function, accessPoint: efs.IAccessPoint, options: LambdaMountOptions = {}): void {
    const where = `${WHERE}.mountOnLambda(${fn.node.path})`;
    const mountPath = options.mountPath ?? '/mnt/efs';
    const threadPoolSize = options.threadPoolSize ?? 64;
    check(LAMBDA_MOUNT_PATH.test(mountPath), where, 'mountPath', mountPath, 'must match /mnt/<name> (letters, digits, - _ .), as Lambda requires');
    check(Number.isInteger(threadPoolSize) && threadPoolSize >= 1 && threadPoolSize <= UV_THREADPOOL_MAX, where, 'threadPoolSize', threadPoolSize, `must be an integer from 1 to ${UV_THREADPOOL_MAX} (libuv's limit)`);
    if (!fn.isBoundToVpc) throw new Error(`${where}: the function is not in a VPC; give it \`vpc\` (the file system's VPC) so it can reach the mount targets.`);
    this.checkOwnAccessPoint(where, accessPoint);
    const cfn = fn.node.defaultChild as lambda.CfnFunction;
    if (cfn.fileSystemConfigs) throw new Error(`${where}: the function already mounts a file system; Lambda allows one.`);

    cfn.fileSystemConfigs = [{ arn: accessPoint.accessPointArn, localMountPath: mountPath }];
    fn.addEnvironment('UV_THREADPOOL_SIZE', String(threadPoolSize));
    this.connections.allowDefaultPortFrom(fn, `NFS from ${fn.node.path}`);
    // The function mounts when it starts: not before its NFS rules exist.
    dependOnRulesBetween(cfn, fn, this);
    this.grantAccess(fn, options.readOnly ? AccessLevel.READ_ONLY : AccessLevel.READ_WRITE, accessPoint);
    fn.node.addDependency(this.mountTargetsAvailable, this.mountTargetsReady);
  }

  /**
   * Add `accessPoint` as a volume of an ECS task definition, with transit encryption and IAM
   * authorization, mount it in a container and grant the task role. Returns the volume name.
   * Use [mountOnEcsService](#cdk-efs-kit.SharedFileSystem.mountOnEcsService) to also open the security group to a service.
   *
   * @example
   * files.mountOnEcsTask(task, jobs, { containerPath: '/data' });
   */
  public mountOnEcsTask(taskDefinition: ecs.TaskDefinition, accessPoint: efs.IAccessPoint, options: EcsMountOptions): string {
    const where = `${WHERE}.mountOnEcsTask(${taskDefinition.node.path})`;
    check(isCleanAbsolutePath(options.containerPath) && options.containerPath !== '/', where, 'containerPath', options.containerPath, 'must be an absolute path other than /');
    this.checkOwnAccessPoint(where, accessPoint);
    const container = options.container ?? taskDefinition.defaultContainer;
    if (!container) throw new Error(`${where}: the task definition has no container yet; add one first or pass \`container\`.`);
    const volumeName = options.volumeName ?? `efs-${accessPoint.node.id}`;

    taskDefinition.addVolume({
      name: volumeName,
      efsVolumeConfiguration: {
        fileSystemId: this.fileSystemId,
        // With an access point the root directory must be omitted: the access point sets it.
        transitEncryption: 'ENABLED',
        authorizationConfig: { accessPointId: accessPoint.accessPointId, iam: 'ENABLED' },
      },
    });
    container.addMountPoints({ sourceVolume: volumeName, containerPath: options.containerPath, readOnly: options.readOnly ?? false });
    this.grantAccess(taskDefinition.taskRole, options.readOnly ? AccessLevel.READ_ONLY : AccessLevel.READ_WRITE, accessPoint);
    warnAboutEcsOwner(container, accessPoint, options);
    // Whatever runs tasks of this definition (a service, a schedule, a state machine) comes after it.
    taskDefinition.node.addDependency(this.mountTargetsReady);
    return volumeName;
  }

  /**
   * Mount `accessPoint` in a service's tasks ([mountOnEcsTask](#cdk-efs-kit.SharedFileSystem.mountOnEcsTask)), open port 2049 from the
   * service, and start the service only once the mount targets answer ([mountTargetsReady](#cdk-efs-kit.SharedFileSystem.property.mountTargetsReady)).
   *
   * @example
   * files.mountOnEcsService(service, web, { containerPath: '/usr/share/nginx/html', readOnly: true });
   */
  public mountOnEcsService(service: ecs.BaseService, accessPoint: efs.IAccessPoint, options: EcsMountOptions): string {
    const volumeName = this.mountOnEcsTask(service.taskDefinition, accessPoint, options);
    this.connections.allowDefaultPortFrom(service, `NFS from ${service.node.path}`);
    service.node.addDependency(this.mountTargetsAvailable, this.mountTargetsReady);
    return volumeName;
  }

  /**
   * Mount the file system on an EC2 instance or Auto Scaling group at boot: user data installs
   * amazon-efs-utils and mounts with `tls,iam[,accesspoint=...]` from /etc/fstab (`_netdev,nofail`),
   * falling back to NFSv4.1 with the recommended options only where the policy allows plain NFS.
   *
   * @example
   * files.mountOnEc2(host, { mountPoint: '/mnt/jobs', accessPoint: jobs });
   */
  public mountOnEc2(host: IEc2Host, options: Ec2MountOptions = {}): void {
    const where = `${WHERE}.mountOnEc2(${host.node.path})`;
    const mountPoint = options.mountPoint ?? '/mnt/efs';
    check(isCleanAbsolutePath(mountPoint) && mountPoint !== '/', where, 'mountPoint', mountPoint, 'must be an absolute path other than /');
    if (options.accessPoint) this.checkOwnAccessPoint(where, options.accessPoint);
    const stack = Stack.of(this);
    host.userData.addCommands(...renderEc2MountScript({
      fileSystemId: this.fileSystemId,
      dnsName: `${this.fileSystemId}.efs.${stack.region}.${stack.urlSuffix}`,
      mountPoint,
      accessPointId: options.accessPoint?.accessPointId,
      readOnly: options.readOnly ?? false,
      nfsFallbackAllowed: !this.tlsEnforced && this.anonymousAccessAllowed,
    }));
    this.connections.allowDefaultPortFrom(host, `NFS from ${host.node.path}`);
    this.grantAccess(host, options.readOnly ? AccessLevel.READ_ONLY : AccessLevel.READ_WRITE, options.accessPoint);
    warnAboutEc2Owner(host, mountPoint, options);
    host.node.addDependency(this.mountTargetsAvailable, this.mountTargetsReady);
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

  /**
   * Fill the file system at deploy time through `options.accessPoint` (see [FileSystemSeed](#cdk-efs-kit.FileSystemSeed)).
   * Make consumers depend on the returned seed to start them once the content is in place.
   *
   * @example
   * const content = files.addSeed('Content', { accessPoint: web, source: SeedSource.asset('site') });
   * service.node.addDependency(content); // the service starts once the files are there
   */
  public addSeed(id: string, options: SeedOptions): FileSystemSeed {
    const seed = new FileSystemSeed(this, id, { ...options, fileSystem: this });
    this.seeds.push(seed);
    return seed;
  }

  /**
   * A Lambda function that measures latency and throughput on this file system (see [BenchmarkProbe](#cdk-efs-kit.BenchmarkProbe)).
   *
   * @example
   * const probe = files.addProbe('Probe', { accessPoint: jobs, canary: { interval: Duration.minutes(15) } });
   * probe.grantInvoke(ciRole);
   */
  public addProbe(id: string, options: ProbeOptions = {}): BenchmarkProbe {
    const probe = new BenchmarkProbe(this, id, { ...options, fileSystem: this });
    this.probes.push(probe);
    return probe;
  }

  /**
   * A dashboard and alarms for this file system (see [FileSystemMonitoring](#cdk-efs-kit.FileSystemMonitoring)), including the
   * seeds and probes added so far unless `options.seeds` or `options.probes` says otherwise.
   *
   * @example
   * files.addMonitoring('Monitoring', {
   *   alarms: { minimumClientConnections: AlarmThreshold.count(2), dailySpendLimit: AlarmThreshold.usd(25) },
   *   alarmTopic,
   * });
   */
  public addMonitoring(id: string, options: MonitoringOptions = {}): FileSystemMonitoring {
    return new FileSystemMonitoring(this, id, {
      seeds: [...this.seeds],
      probes: [...this.probes],
      ...options,
      fileSystem: this.fileSystem,
      throughputMode: this.throughputMode,
      performanceMode: this.performanceMode,
    });
  }

  private basePolicy(): iam.PolicyDocument {
    const policy = new iam.PolicyDocument();
    if (this.tlsEnforced) {
      policy.addStatements(new iam.PolicyStatement({
        sid: 'DenyWithoutTls',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['*'],
        conditions: { Bool: { 'aws:SecureTransport': 'false' } },
      }));
    }
    if (this.anonymousAccessAllowed) {
      policy.addStatements(new iam.PolicyStatement({
        sid: 'AllowAnonymousMountAndWrite',
        principals: [new iam.AnyPrincipal()],
        actions: ['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite'],
        conditions: { Bool: { 'elasticfilesystem:AccessedViaMountTarget': 'true' } },
      }));
    }
    return policy;
  }

  private checkOwnAccessPoint(where: string, accessPoint: efs.IAccessPoint): void {
    const owner = accessPoint.fileSystem;
    if (owner === this || owner === this.fileSystem || Stack.of(owner) !== Stack.of(this)) return;
    const stack = Stack.of(this);
    if (JSON.stringify(stack.resolve(owner.fileSystemId)) !== JSON.stringify(stack.resolve(this.fileSystemId))) {
      throw new Error(`${where}: access point ${accessPoint.node.path} belongs to file system ${owner.node.path}, not this one (${this.node.path}).`);
    }
  }

  private validate(props: SharedFileSystemProps, encrypted: boolean): void {
    const provisioned = this.throughputMode === efs.ThroughputMode.PROVISIONED;
    if (provisioned && !props.provisionedThroughputPerSecond) {
      throw new Error(`${WHERE}: throughputMode PROVISIONED needs provisionedThroughputPerSecond (e.g. Size.mebibytes(100)), got undefined.`);
    }
    if (!provisioned && props.provisionedThroughputPerSecond) {
      throw new Error(`${WHERE}: provisionedThroughputPerSecond is only allowed with throughputMode PROVISIONED, got throughputMode ${this.throughputMode}.`);
    }
    const mibps = props.provisionedThroughputPerSecond?.toMebibytes({ rounding: SizeRoundingBehavior.NONE });
    if (mibps !== undefined) check(mibps >= 1, WHERE, 'provisionedThroughputPerSecond (MiB/s)', mibps, 'must be at least 1');
    if (this.performanceMode === efs.PerformanceMode.MAX_IO) {
      if (this.throughputMode === efs.ThroughputMode.ELASTIC) {
        throw new Error(`${WHERE}: performanceMode MAX_IO does not support throughputMode ELASTIC (the default); use GENERAL_PURPOSE, or set throughputMode to BURSTING or PROVISIONED, got performanceMode maxIO.`);
      }
      if (props.oneZone) throw new Error(`${WHERE}: performanceMode MAX_IO is not available for One Zone file systems (oneZone true), got performanceMode maxIO.`);
    }
    if (!encrypted && props.kmsKey) throw new Error(`${WHERE}: kmsKey is given but encrypted is false; drop one of them.`);
    if (!props.vpcSubnets && props.vpc.privateSubnets.length === 0 && props.vpc.isolatedSubnets.length === 0) {
      throw new Error(`${WHERE}: vpc has no private or isolated subnets for the mount targets; add some, or pass vpcSubnets explicitly.`);
    }
  }

  private warnAboutRiskyChoices(props: SharedFileSystemProps, p: { encrypted: boolean; backups: boolean; removalPolicy: RemovalPolicy }): void {
    const warn = (id: string, message: string) => Annotations.of(this).addWarningV2(`cdk-efs-kit:${id}`, message);
    if (p.removalPolicy === RemovalPolicy.DESTROY) warn('removalPolicyDestroy', 'removalPolicy DESTROY deletes the file system and all its data when it leaves the stack.');
    if (!p.backups) warn('backupsDisabled', 'enableAutomaticBackups is false: nothing can be restored after a bad deploy or a deletion.');
    if (this.throughputMode === efs.ThroughputMode.BURSTING) {
      warn('burstingThroughput', 'throughputMode BURSTING ties throughput to stored size (50 KiB/s per GiB) and drops to 1 MiB/s when burst credits run out; monitor BurstCreditBalance. The mode can be changed once per 24 hours.');
    }
    if (this.performanceMode === efs.PerformanceMode.MAX_IO) warn('maxIoPerformanceMode', 'performanceMode MAX_IO has higher per-operation latency than General Purpose and cannot be changed later.');
    if (!p.encrypted) warn('unencrypted', 'encrypted is false: data at rest is not encrypted, and this cannot be changed after creation.');
    if (!this.tlsEnforced) warn('tlsNotEnforced', 'enforceTls is false: clients may mount without encryption in transit.');
    if (this.anonymousAccessAllowed) warn('anonymousAccess', 'allowAnonymousAccess is true: any client that reaches a mount target can mount and write without IAM authorization.');
    if (props.vpcSubnets) {
      const publicIds = new Set(props.vpc.publicSubnets.map((s) => s.subnetId));
      if (props.vpc.selectSubnets(props.vpcSubnets).subnetIds.some((id) => publicIds.has(id))) {
        warn('publicSubnets', 'vpcSubnets selects public subnets for mount targets; keep them in private or isolated subnets.');
      }
    }
  }
}
