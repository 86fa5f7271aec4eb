import { RemovalPolicy, Size } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct, IDependable } from 'constructs';
import { AccessLevel } from './access-level';
import { checkAccessPointOptions } from './access-point-checks';
import { AccessPointPreset } from './access-point-preset';
import { Ec2MountOptions, EcsMountOptions, IEc2Host, LambdaMountOptions } from './client-mount-options';
import { mountOnEc2, mountOnEcsService, mountOnEcsTask, mountOnLambda } from './mounts';
import { gateOf } from './shared-file-system-gate';
import { SharedFileSystemBase } from './shared-file-system-base';
import { isSharedFileSystem, SHARED_FILE_SYSTEM_BRAND } from './shared-file-system-brand';
import { basePolicy, settingsOf, validateProps, warnAboutRiskyChoices } from './shared-file-system-settings';
import { StorageLifecycle } from './storage-lifecycle';
import { BenchmarkProbe, ProbeOptions } from '../probe/benchmark-probe';
import { FileSystemMonitoring, MonitoringOptions } from '../monitoring/file-system-monitoring';
import { FileSystemSeed, SeedOptions } from '../seed/file-system-seed';
import { defaultPrivateSubnets } from '../core/subnets';
import { brand } from '../core/type-brand';

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
export class SharedFileSystem extends SharedFileSystemBase implements efs.IFileSystem {
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
    const settings = settingsOf(props);
    this.throughputMode = settings.throughputMode;
    this.performanceMode = settings.performanceMode;
    this.tlsEnforced = settings.tlsEnforced;
    this.anonymousAccessAllowed = settings.anonymousAccessAllowed;
    const lifecycle = props.lifecycle ?? StorageLifecycle.infrequentAccess();
    validateProps(this, props, settings);
    warnAboutRiskyChoices(this, props, settings);

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
      encrypted: settings.encrypted,
      kmsKey: props.kmsKey,
      enableAutomaticBackups: settings.backups,
      removalPolicy: settings.removalPolicy,
      lifecyclePolicy: lifecycle.toInfrequentAccess,
      outOfInfrequentAccessPolicy: lifecycle.backToStandard,
      transitionToArchivePolicy: lifecycle.toArchive,
      fileSystemPolicy: basePolicy(settings),
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
    const options = preset.options;
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
  public mountOnEcsTask(taskDefinition: ecs.TaskDefinition, accessPoint: efs.IAccessPoint, options: EcsMountOptions): string {
    return mountOnEcsTask(this, taskDefinition, accessPoint, options);
  }

  /**
   * Mount `accessPoint` in a service's tasks ([mountOnEcsTask](#cdk-efs-kit.SharedFileSystem.mountOnEcsTask)), open port 2049 from the
   * service, and start the service only once the mount targets answer ([mountTargetsReady](#cdk-efs-kit.SharedFileSystem.property.mountTargetsReady)).
   *
   * @example
   * files.mountOnEcsService(service, web, { containerPath: '/usr/share/nginx/html', readOnly: true });
   */
  public mountOnEcsService(service: ecs.BaseService, accessPoint: efs.IAccessPoint, options: EcsMountOptions): string {
    return mountOnEcsService(this, service, accessPoint, options);
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
    mountOnEc2(this, host, options);
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
}
