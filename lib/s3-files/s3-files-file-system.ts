import { Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3files from 'aws-cdk-lib/aws-s3files';
import { Construct, Dependable, IDependable } from 'constructs';
import { checkBucket } from './bucket-checks';
import { S3FilesFileSystemBase, IS3FilesFileSystem } from './s3-files-file-system-base';
import { s3FilesGateOf } from './s3-files-readiness-gate';
import { makeServiceRole } from './service-role';
import { renderSynchronization, SynchronizationRules } from './synchronization';
import { checkMountTargetSubnetFamilies } from '../file-system/mount-target-ip-address';
import { MountTargetIpAddressType } from '../file-system/mount-targets-ready';
import { defaultPrivateSubnets } from '../core/subnets';
import { check } from '../core/validate';
import { ValidationError } from '../core/validation-error';
import { propName } from '../core/contract/prop-name';

/** Properties of an [S3FilesFileSystem](#cdk-efs-kit.S3FilesFileSystem). */
export interface S3FilesFileSystemProps {
  /** The VPC of the mount targets. */
  readonly vpc: ec2.IVpc;
  /**
   * Subnets of the mount targets: one mount target per subnet, at most one subnet per Availability Zone.
   * @default - the VPC's private subnets with egress, else its isolated ones, one per zone
   */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /**
   * Security group of the mount targets; the mount helpers open port 2049 on it from their clients.
   * @default - a new group with no rules until a client is mounted
   */
  readonly securityGroup?: ec2.ISecurityGroup;
  /**
   * Which addresses the mount targets take: IPv4 only, dual-stack (subnets with an IPv6 CIDR too)
   * or IPv6 only (IPv6-only subnets), checked against the subnets the app defines.
   * @default MountTargetIpAddressType.IPV4_ONLY
   */
  readonly ipAddressType?: MountTargetIpAddressType;
  /**
   * The bucket to serve: versioned (S3 Files requires it; an unversioned bucket of this app is a
   * synth error, an imported one a warning), in this stack's account and Region.
   * @default - a new bucket: versioned, encrypted (S3-managed keys), TLS only, no public access,
   * RETAIN (see removalPolicy), noncurrent versions expiring after `noncurrentVersionExpiration`
   */
  readonly bucket?: s3.IBucket;
  /**
   * How long the bucket this construct makes keeps noncurrent object versions. Every write through
   * the file system makes a version, and S3 Files needs versioning on, so without a rule the bucket
   * keeps every version of every file forever. Applies only to the bucket made here: give your own
   * bucket your own lifecycle rules.
   * @default Duration.days(30)
   */
  readonly noncurrentVersionExpiration?: Duration;
  /**
   * The key prefix to serve (e.g. 'data/'), without a leading '/' and ending with '/'.
   * @default '' - the whole bucket
   */
  readonly prefix?: string;
  /**
   * KMS key that encrypts the file system's high-performance tier (AWS::S3Files::FileSystem KmsKeyId).
   * The bucket's own SSE-KMS key, if it has one, comes from `bucket.encryptionKey`; the service role
   * gets it through S3 only.
   * @default - an AWS owned key
   */
  readonly kmsKey?: kms.IKey;
  /**
   * What S3 Files imports onto its high-performance tier, and how long it keeps it there.
   * @default - S3 Files' defaults: files under 128 KiB on a directory's first access; expiry 30 days after last access
   */
  readonly synchronization?: SynchronizationRules;
  /**
   * Create the file system even though S3 warns about the bucket or prefix (e.g. about 12 million
   * objects or more, where listings and renames get slow). Never set for you.
   * @default false
   */
  readonly acceptBucketWarning?: boolean;
  /**
   * What happens to the file system when it leaves the stack. The bucket keeps the data either way;
   * a bucket made here is always retained (S3 refuses to delete it for 5-10 minutes after the file
   * system is gone, which would fail `cdk destroy`).
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Statements added to the file system policy after its secure default (deny every request
   * without TLS). Each needs a principal.
   * @default - the TLS deny only
   */
  readonly fileSystemPolicy?: iam.PolicyDocument;
  /**
   * The subnets the readiness gate's function runs in (see `mountTargetsReady`). Lambda cannot run
   * in IPv6-only subnets: for IPV6_ONLY mount targets, name dual-stack subnets of the same VPC, in
   * zones with a mount target.
   * @default - the mount targets' subnets
   */
  readonly readinessGateSubnets?: ec2.SubnetSelection;
}

/** Attributes of an existing S3 Files file system, for [S3FilesFileSystem.fromFileSystemAttributes](#cdk-efs-kit.S3FilesFileSystem.fromFileSystemAttributes). */
export interface S3FilesFileSystemAttributes {
  /** Its id (`fs-…`). */
  readonly fileSystemId: string;
  /** The bucket it serves (for direct-read grants). */
  readonly bucket: s3.IBucket;
  /**
   * The prefix it serves.
   * @default ''
   */
  readonly prefix?: string;
  /** The VPC of its mount targets. */
  readonly vpc: ec2.IVpc;
  /** The security group of its mount targets. */
  readonly securityGroup: ec2.ISecurityGroup;
  /**
   * The subnets of its mount targets.
   * @default - the VPC's private subnets with egress, else its isolated ones, one per zone
   */
  readonly mountTargetSubnets?: ec2.SubnetSelection;
  /**
   * Which addresses its mount targets have.
   * @default MountTargetIpAddressType.IPV4_ONLY
   */
  readonly ipAddressType?: MountTargetIpAddressType;
}

/**
 * An Amazon S3 Files file system: an S3 bucket (or a prefix of one) served over NFS through mount
 * targets in a VPC, with the same access points, grants and mount helpers as
 * [SharedFileSystem](#cdk-efs-kit.SharedFileSystem). It makes the service role S3 Files
 * synchronizes with (trust scoped to this account's S3 Files file systems, S3 scoped to the bucket
 * and prefix, KMS through S3 only, the EventBridge rules S3 Files manages), one mount target per
 * zone, their security group, and a file system policy that denies requests without TLS. TLS and
 * IAM are always on for S3 Files clients: the mount helper cannot turn them off, so every client
 * needs `s3files:ClientMount` (the mount helpers and grantAccess give it).
 *
 * @example
 * // A versioned bucket the construct makes (RETAIN, noncurrent versions expire after 30 days).
 * const s3Files = new S3FilesFileSystem(this, 'S3Files', { vpc });
 * const shared = s3Files.addAccessPoint('Shared', AccessPointPreset.applicationUser('/shared'));
 * const reader = new lambda.Function(this, 'Reader', {
 *   runtime: lambda.Runtime.NODEJS_22_X,
 *   handler: 'index.handler',
 *   code: lambda.Code.fromInline("exports.handler = async () => require('fs').readdirSync('/mnt/shared');"),
 *   memorySize: 1024,
 *   vpc,
 * });
 * s3Files.mountOnLambda(reader, shared, { mountPath: '/mnt/shared', directS3Read: DirectS3Read.ENABLED });
 * s3Files.mountOnEcsService(service, shared, { containerPath: '/data' });
 */
export class S3FilesFileSystem extends S3FilesFileSystemBase {
  /**
   * An existing S3 Files file system, by id, with the same helpers.
   *
   * @example
   * const existing = S3FilesFileSystem.fromFileSystemAttributes(this, 'Existing', {
   *   fileSystemId: 'fs-0123456789abcdef0',
   *   bucket,
   *   vpc,
   *   securityGroup: ec2.SecurityGroup.fromSecurityGroupId(this, 'ExistingMountTargets', 'sg-0123456789abcdef0'),
   * });
   * existing.mountOnEc2(host, { accessPoint: existing.addAccessPoint('Reports', AccessPointPreset.applicationUser('/reports')) });
   */
  public static fromFileSystemAttributes(scope: Construct, id: string, attrs: S3FilesFileSystemAttributes): IS3FilesFileSystem {
    return new ImportedS3FilesFileSystem(scope, id, attrs);
  }

  public readonly fileSystemId: string;
  public readonly fileSystemArn: string;
  public readonly connections: ec2.Connections;
  public readonly vpc: ec2.IVpc;
  public readonly mountTargetSubnets: ec2.SelectedSubnets;
  public readonly mountTargetIpAddressType: MountTargetIpAddressType;
  public readonly bucket: s3.IBucket;
  public readonly prefix: string;
  /** The role S3 Files assumes to synchronize with the bucket. */
  public readonly serviceRole: iam.IRole;
  /** The L1 file system. */
  public readonly resource: s3files.CfnFileSystem;
  private readonly mountTargets: s3files.CfnMountTarget[];
  private readonly readinessGateSubnets: ec2.SubnetSelection;

  constructor(scope: Construct, id: string, props: S3FilesFileSystemProps) {
    super(scope, id);
    const where = `S3FilesFileSystem(${this.node.path})`;
    this.prefix = props.prefix ?? '';
    check(!this.prefix.startsWith('/'), where, 'prefix', this.prefix, "must be a key prefix without a leading '/' (e.g. 'data/')", this);
    // The grants cover the keys that start with the prefix: 'data' would also give 'database/...'.
    check(this.prefix === '' || this.prefix.endsWith('/'), where, 'prefix', this.prefix, "must end with '/' (e.g. 'data/'), or the grants would reach keys beside it", this);
    if (props.bucket && props.noncurrentVersionExpiration) {
      throw new ValidationError(`${where}: ${propName('noncurrentVersionExpiration')} applies to the bucket this construct makes; give your own ${propName('bucket')} its own lifecycle rules, got noncurrentVersionExpiration with a bucket.`, this);
    }
    this.bucket = props.bucket ?? this.makeBucket(props.noncurrentVersionExpiration ?? Duration.days(30));
    if (props.bucket) checkBucket(this, where, props.bucket);

    this.vpc = props.vpc;
    this.mountTargetSubnets = props.vpc.selectSubnets(props.vpcSubnets ?? defaultPrivateSubnets(props.vpc));
    this.mountTargetIpAddressType = props.ipAddressType ?? MountTargetIpAddressType.IPV4_ONLY;
    checkOnePerZone(this, where, this.mountTargetSubnets.subnets);
    if (props.ipAddressType) checkMountTargetSubnetFamilies(this, where, this.mountTargetSubnets.subnets, props.ipAddressType);

    this.serviceRole = makeServiceRole(this, 'ServiceRole', { bucket: this.bucket, prefix: this.prefix, bucketKey: this.bucket.encryptionKey });
    this.resource = new s3files.CfnFileSystem(this, 'Resource', {
      bucket: this.bucket.bucketArn,
      roleArn: this.serviceRole.roleArn,
      prefix: props.prefix,
      kmsKeyId: props.kmsKey?.keyArn,
      acceptBucketWarning: props.acceptBucketWarning,
      synchronizationConfiguration: renderSynchronization(this, where, props.synchronization),
    });
    // S3 Files checks the role when it creates the file system: not before the role's policy exists.
    this.resource.node.addDependency(this.serviceRole);
    this.resource.applyRemovalPolicy(props.removalPolicy ?? RemovalPolicy.RETAIN);
    this.fileSystemId = this.resource.attrFileSystemId;
    this.fileSystemArn = this.resource.attrFileSystemArn;

    const securityGroup = props.securityGroup ?? new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc: props.vpc, allowAllOutbound: false, description: `S3 Files mount targets of ${this.node.path}`,
    });
    this.connections = new ec2.Connections({ securityGroups: [securityGroup], defaultPort: ec2.Port.tcp(2049) });
    this.mountTargets = this.mountTargetSubnets.subnets.map((subnet, i) => new s3files.CfnMountTarget(this, `MountTarget${i + 1}`, {
      fileSystemId: this.fileSystemId,
      subnetId: subnet.subnetId,
      securityGroups: [securityGroup.securityGroupId],
      ipAddressType: props.ipAddressType,
    }));
    this.readinessGateSubnets = props.readinessGateSubnets ?? { subnets: this.mountTargetSubnets.subnets };

    const policy = new iam.PolicyDocument({
      statements: [new iam.PolicyStatement({
        sid: 'DenyWithoutTls', effect: iam.Effect.DENY, principals: [new iam.AnyPrincipal()], actions: ['*'],
        conditions: { Bool: { 'aws:SecureTransport': 'false' } },
      })],
    });
    for (const [index, statement] of (props.fileSystemPolicy?.toJSON()?.Statement ?? []).entries()) {
      if (statement.Principal === undefined && statement.NotPrincipal === undefined) {
        throw new ValidationError(`${where}: ${propName('fileSystemPolicy')} statement ${statement.Sid ?? index} needs a principal (Principal or NotPrincipal), got none.`, this);
      }
      policy.addStatements(iam.PolicyStatement.fromJson(statement));
    }
    new s3files.CfnFileSystemPolicy(this, 'Policy', { fileSystemId: this.fileSystemId, policy });
  }

  /**
   * Completes once every mount target answers from the file system's subnets: its zonal name
   * (`<zone id>.fs-….s3files.<region>.on.aws`, the one mount.s3files resolves) resolves and TCP 2049
   * accepts there (the readiness gate of [MountTargetsReady](#cdk-efs-kit.MountTargetsReady), for
   * S3 Files names). The mount helpers make their clients depend on it; make others depend on it
   * yourself. One per file system, made on first use.
   */
  public get mountTargetsReady(): IDependable {
    return s3FilesGateOf(this, this.readinessGateSubnets, this.mountTargets);
  }

  private makeBucket(noncurrentVersionExpiration: Duration): s3.Bucket {
    const bucket = new s3.Bucket(this, 'Bucket', {
      versioned: true,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ id: 'ExpireNoncurrentVersions', noncurrentVersionExpiration }],
    });
    Validations.of(bucket).acknowledge({ id: 'AwsSolutions-S1', reason: 'The file system\'s bucket: S3 Files reads and writes it; give your own bucket (with server access logs) through the bucket prop where you need them.' });
    return bucket;
  }
}

/** One mount target per zone: S3 Files, like EFS, refuses a second one in a zone. */
function checkOnePerZone(scope: Construct, where: string, subnets: ec2.ISubnet[]): void {
  const zones = subnets.map((s) => s.availabilityZone).filter((z) => !Token.isUnresolved(z));
  const repeated = zones.filter((z, i) => zones.indexOf(z) !== i);
  if (subnets.length === 0) throw new ValidationError(`${where}: ${propName('vpcSubnets')} selects no subnet for a mount target, got none.`, scope);
  if (repeated.length > 0) {
    throw new ValidationError(`${where}: ${propName('vpcSubnets')} selects more than one subnet in ${[...new Set(repeated)].join(', ')}, and S3 Files takes one mount target per Availability Zone; add onePerAz: true, got ${subnets.map((s) => s.node.path).join(', ')}.`, scope);
  }
}

function dependableOn(constructs: Construct[]): IDependable {
  const dependable = new class implements IDependable {}();
  Dependable.implement(dependable, { get dependencyRoots() { return constructs; } });
  return dependable;
}

/** An S3 Files file system made elsewhere; its mount targets are not this app's, so clients depend on nothing. */
class ImportedS3FilesFileSystem extends S3FilesFileSystemBase {
  public readonly fileSystemId: string;
  public readonly fileSystemArn: string;
  public readonly connections: ec2.Connections;
  public readonly vpc: ec2.IVpc;
  public readonly mountTargetSubnets: ec2.SelectedSubnets;
  public readonly mountTargetIpAddressType: MountTargetIpAddressType;
  public readonly mountTargetsReady: IDependable;
  public readonly bucket: s3.IBucket;
  public readonly prefix: string;

  constructor(scope: Construct, id: string, attrs: S3FilesFileSystemAttributes) {
    super(scope, id);
    this.fileSystemId = attrs.fileSystemId;
    this.fileSystemArn = Stack.of(this).formatArn({ service: 's3files', resource: 'file-system', resourceName: attrs.fileSystemId });
    this.connections = new ec2.Connections({ securityGroups: [attrs.securityGroup], defaultPort: ec2.Port.tcp(2049) });
    this.vpc = attrs.vpc;
    this.mountTargetSubnets = attrs.vpc.selectSubnets(attrs.mountTargetSubnets ?? defaultPrivateSubnets(attrs.vpc));
    this.mountTargetIpAddressType = attrs.ipAddressType ?? MountTargetIpAddressType.IPV4_ONLY;
    this.mountTargetsReady = dependableOn([]);
    this.bucket = attrs.bucket;
    this.prefix = attrs.prefix ?? '';
  }
}
