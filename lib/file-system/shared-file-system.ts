import { RemovalPolicy, Size } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct, IDependable } from 'constructs';
import { addedSeedsAndProbes } from './added-clients';
import { ImportedSharedFileSystem } from './imported-shared-file-system';
import { applyIpAddressType } from './mount-target-ip-address';
import { MountTargetIpAddressType } from './mount-targets-ready';
import { ImportedFileSystemOptions, SharedFileSystemAttributes } from './shared-file-system-attributes';
import { ISharedFileSystem, SharedFileSystemBase } from './shared-file-system-base';
import { isSharedFileSystem, SHARED_FILE_SYSTEM_BRAND } from './shared-file-system-brand';
import { fileSystemPolicyOf } from './file-system-policy';
import { mountTargetSubnets } from './mount-target-subnets';
import { acceptReplicationStatement, planReplication } from './replication';
import { gateOf, mountTargetsOf } from './shared-file-system-gate';
import { settingsOf, validateProps, warnAboutRiskyChoices } from './shared-file-system-settings';
import { StorageLifecycle } from './storage-lifecycle';
import { FileSystemMonitoring, MonitoringOptions } from '../monitoring/file-system-monitoring';
import { brand } from '../core/type-brand';
import { ValidationError } from '../core/validation-error';
import { propName } from '../core/contract/prop-name';

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
   * Create a One Zone file system: cheaper, but it lives and dies with one Availability Zone
   * (`availabilityZone`, else the one zone of `vpcSubnets.availabilityZones`, else the VPC's first).
   * @default false
   */
  readonly oneZone?: boolean;

  /**
   * The Availability Zone of a One Zone file system (`oneZone: true` only), one of the VPC's zones.
   * aws-efs's way, `vpcSubnets: { availabilityZones: [zone] }`, works too.
   * @default - the one zone of `vpcSubnets.availabilityZones`, else the VPC's first zone
   */
  readonly availabilityZone?: string;

  /**
   * Replicate the file system, as aws-efs takes it: to a new Regional file system
   * (`efs.ReplicationConfiguration.regionalFileSystem(region?, kmsKey?)`), a new One Zone one
   * (`oneZoneFileSystem(region, availabilityZone, kmsKey?)`), or an existing one
   * (`existingFileSystem(destination)`, whose `replicationOverwriteProtection` is DISABLED). An
   * existing destination in another account (imported by its ARN) gets what the EFS User Guide
   * asks for: a role EFS assumes, and a statement in this file system's policy that lets that account
   * end the replication; the destination's own policy is
   * [acceptReplicationFrom](#cdk-efs-kit.SharedFileSystem.acceptReplicationFrom) in its account's stack.
   * @default - no replication
   */
  readonly replicationConfiguration?: efs.ReplicationConfiguration;

  /**
   * DISABLED makes this file system a possible replication destination: read-only, written only
   * by EFS replication. It cannot be combined with `replicationConfiguration`.
   * @default efs.ReplicationOverwriteProtection.ENABLED
   */
  readonly replicationOverwriteProtection?: efs.ReplicationOverwriteProtection;

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

  /**
   * Statements added to the file system policy after the secure defaults (the TLS deny, and the
   * anonymous access statement when `allowAnonymousAccess` is true), as aws-efs takes them. Every
   * statement needs a principal. An explicit Deny wins in IAM, so nothing here lifts the TLS deny;
   * an Allow for requests without TLS (`aws:SecureTransport` false) or for every principal warns.
   * @default - the secure defaults only
   */
  readonly fileSystemPolicy?: iam.PolicyDocument;

  /**
   * Which addresses the mount targets take (`AWS::EFS::MountTarget`'s IpAddressType): IPv4 only,
   * dual-stack (the subnets need an IPv6 CIDR too), or IPv6 only (IPv6-only subnets). Checked
   * against the subnets' CIDRs where the app defines them.
   * @default - none set: EFS makes IPV4_ONLY mount targets
   */
  readonly ipAddressType?: MountTargetIpAddressType;

  /**
   * Subnets the readiness gate ([mountTargetsReady](#cdk-efs-kit.SharedFileSystem.property.mountTargetsReady))
   * runs in, in zones with a mount target. IPV6_ONLY mount targets need it: Lambda cannot run in
   * their IPv6-only subnets, so give dual-stack subnets of the same VPC (the gate's function
   * reaches the mount targets over IPv6 from there, with `ipv6AllowedForDualStack`).
   * @default - the mount targets' subnets
   */
  readonly readinessGateSubnets?: ec2.SubnetSelection;
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
 * // Copy ./site onto /web at deploy time: the service, which mounts /web, starts once it is there.
 * files.addSeed('Content', { accessPoint: web, source: SeedSource.asset('site') });
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
export class SharedFileSystem extends SharedFileSystemBase {
  /** Whether `x` is a SharedFileSystem, made by any copy of this package (an imported one is not). */
  public static isSharedFileSystem(x: any): x is SharedFileSystem {
    return isSharedFileSystem(x);
  }

  /**
   * An existing file system, by id, with the helpers a SharedFileSystem has: access points, the
   * mount helpers, grants, metrics, seeds, probes and monitoring. Tell it what it cannot read of
   * the file system (`throughputMode` for monitoring, `oneZone: true` for a One Zone one, the policy
   * for EC2's plain NFS fallback); its mount targets the readiness gate reads from DescribeMountTargets.
   *
   * @example
   * const legacy = SharedFileSystem.fromFileSystemAttributes(this, 'Legacy', {
   *   fileSystemId: 'fs-0123456789abcdef0',
   *   vpc,
   *   securityGroup: ec2.SecurityGroup.fromSecurityGroupId(this, 'LegacyMountTargets', 'sg-0123456789abcdef0'),
   *   throughputMode: efs.ThroughputMode.BURSTING,
   * });
   * const site = legacy.addAccessPoint('Site', AccessPointPreset.applicationUser('/site'));
   * legacy.addSeed('Content', { accessPoint: site, source: SeedSource.asset('site') });
   * legacy.addMonitoring('Monitoring');
   */
  public static fromFileSystemAttributes(scope: Construct, id: string, attrs: SharedFileSystemAttributes): ISharedFileSystem {
    const fileSystemIn = (self: Construct) => efs.FileSystem.fromFileSystemAttributes(self, 'Resource', {
      fileSystemId: attrs.fileSystemId, securityGroup: attrs.securityGroup,
    });
    return new ImportedSharedFileSystem(scope, id, fileSystemIn, attrs);
  }

  /**
   * An `efs.IFileSystem` defined elsewhere (an `efs.FileSystem` of this app, or one aws-efs imported),
   * with the helpers a SharedFileSystem has. What the app declares of an efs.FileSystem (modes, One
   * Zone, mount targets) is read from it; `options` give the rest.
   *
   * @example
   * const plain = new efs.FileSystem(this, 'Plain', { vpc, encrypted: true });
   * const plainHelpers = SharedFileSystem.fromFileSystem(this, 'PlainHelpers', plain, { vpc });
   * plainHelpers.mountOnLambda(fn, plainHelpers.addAccessPoint('Reports', AccessPointPreset.applicationUser('/reports')));
   */
  public static fromFileSystem(scope: Construct, id: string, fileSystem: efs.IFileSystem, options: ImportedFileSystemOptions): ISharedFileSystem {
    return new ImportedSharedFileSystem(scope, id, () => fileSystem, options);
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
  /** Which addresses the mount targets have. */
  public readonly mountTargetIpAddressType: MountTargetIpAddressType;
  /** Whether the file system policy requires TLS. */
  public readonly tlsEnforced: boolean;
  /** Whether clients without IAM authorization may mount. */
  public readonly anonymousAccessAllowed: boolean;
  /**
   * The id of the file system this one replicates to, when that one exists already (a new
   * destination's id is EFS's to pick at deploy time).
   */
  public readonly replicationDestinationFileSystemId?: string;
  private readonly readinessGateSubnets?: ec2.SubnetSelection;

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
    const vpcSubnets = mountTargetSubnets(this, props);
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
      fileSystemPolicy: fileSystemPolicyOf(this, settings, props.fileSystemPolicy),
      replicationOverwriteProtection: props.replicationOverwriteProtection,
      // aws-cdk's "deny anonymous" default allows ClientWrite but not ClientMount to everyone, which
      // has broken mounts (aws/aws-cdk#33669, #36224). Our policy above denies anonymous clients by
      // allowing nothing to them; granted principals mount through their identity policies.
      allowAnonymousAccess: true,
    });
    this.fileSystemId = this.fileSystem.fileSystemId;
    this.fileSystemArn = this.fileSystem.fileSystemArn;
    this.connections = this.fileSystem.connections;
    this.mountTargetsAvailable = this.fileSystem.mountTargetsAvailable;
    if (props.replicationConfiguration) {
      const plan = planReplication(this, props.replicationConfiguration, (statement) => this.fileSystem.addToResourcePolicy(statement));
      (this.fileSystem.node.defaultChild as efs.CfnFileSystem).replicationConfiguration = { destinations: [plan.destination] };
      this.replicationDestinationFileSystemId = plan.destinationFileSystemId;
    }
    applyIpAddressType(this, this.fileSystem, this.mountTargetSubnets.subnets, props.ipAddressType);
    this.mountTargetIpAddressType = props.ipAddressType ?? MountTargetIpAddressType.IPV4_ONLY;
    this.readinessGateSubnets = props.readinessGateSubnets;
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
    const subnets = this.readinessGateSubnets ?? { subnets: this.mountTargetSubnets.subnets };
    return gateOf(this, { subnets, prop: 'readinessGateSubnets' }, mountTargetsOf(this.fileSystem, this.mountTargetSubnets.subnets));
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
  /**
   * Let EFS in `sourceAccount` replicate into this file system (cross-account replication, the
   * destination's side): a statement in its file system policy that allows that account the
   * replication actions the EFS User Guide lists. This file system needs
   * `replicationOverwriteProtection: efs.ReplicationOverwriteProtection.DISABLED`.
   *
   * @example
   * const replica = new SharedFileSystem(this, 'Replica', {
   *   vpc,
   *   replicationOverwriteProtection: efs.ReplicationOverwriteProtection.DISABLED,
   * });
   * replica.acceptReplicationFrom('111111111111');
   */
  public acceptReplicationFrom(sourceAccount: string): void {
    const cfn = this.fileSystem.node.defaultChild as efs.CfnFileSystem;
    const protection = (cfn.fileSystemProtection as efs.CfnFileSystem.FileSystemProtectionProperty | undefined)?.replicationOverwriteProtection;
    if (protection !== efs.ReplicationOverwriteProtection.DISABLED) {
      throw new ValidationError(`SharedFileSystem(${this.node.path}).acceptReplicationFrom: EFS replicates only into a file system whose ${propName('replicationOverwriteProtection')} is DISABLED, got ${protection ?? 'ENABLED (the default)'}.`, this);
    }
    this.fileSystem.addToResourcePolicy(acceptReplicationStatement(this, sourceAccount));
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
      ...addedSeedsAndProbes(this),
      ...options,
      fileSystem: this.fileSystem,
      throughputMode: this.throughputMode,
      performanceMode: this.performanceMode,
    });
  }
}
