import { Size, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct, IDependable } from 'constructs';
import { addedSeedsAndProbes } from './added-clients';
import { MountTargetEndpoint, MountTargetIpAddressType } from './mount-targets-ready';
import { ImportedFileSystemOptions } from './shared-file-system-attributes';
import { SharedFileSystemBase } from './shared-file-system-base';
import { cfnMountTargetsOf, gateOf, mountTargetsOf } from './shared-file-system-gate';
import { defaultPrivateSubnets } from '../core/subnets';
import { ValidationError } from '../core/validation-error';
import { FileSystemMonitoring, MonitoringOptions } from '../monitoring/file-system-monitoring';
import { propName } from '../core/contract/prop-name';

/**
 * A file system made elsewhere (another stack, the console, an efs.FileSystem of this app) with
 * the helpers of a SharedFileSystem. What it cannot read of the file system comes from `options`;
 * a helper that needs a fact left out fails at synth naming it.
 */
export class ImportedSharedFileSystem extends SharedFileSystemBase {
  public readonly fileSystemId: string;
  public readonly fileSystemArn: string;
  public readonly connections: ec2.Connections;
  public readonly mountTargetsAvailable: IDependable;
  public readonly vpc: ec2.IVpc;
  public readonly mountTargetSubnets: ec2.SelectedSubnets;
  public readonly mountTargetIpAddressType: MountTargetIpAddressType;
  /** What its policy says, where `options` tell (read by mountOnEc2). */
  public readonly tlsEnforced?: boolean;
  public readonly anonymousAccessAllowed?: boolean;
  private readonly wrapped: efs.IFileSystem;
  private readonly knownMountTargets?: MountTargetEndpoint[];
  private readonly declared: DeclaredFacts;

  /** `fileSystemIn` gives the file system wrapped: one made elsewhere, or an aws-efs import made in this construct. */
  constructor(scope: Construct, id: string, fileSystemIn: (self: Construct) => efs.IFileSystem, private readonly options: ImportedFileSystemOptions) {
    super(scope, id);
    const wrapped = fileSystemIn(this);
    this.wrapped = wrapped;
    this.fileSystemId = wrapped.fileSystemId;
    this.fileSystemArn = wrapped.fileSystemArn;
    this.connections = wrapped.connections;
    this.mountTargetsAvailable = wrapped.mountTargetsAvailable;
    this.vpc = options.vpc;
    this.tlsEnforced = options.tlsEnforced;
    this.anonymousAccessAllowed = options.anonymousAccessAllowed;
    this.declared = declaredFacts(wrapped);

    const subnetsOfMountTargets = subnetsHolding(options.vpc, cfnMountTargetsOf(wrapped));
    this.mountTargetSubnets = options.vpcSubnets || subnetsOfMountTargets.length === 0
      ? options.vpc.selectSubnets(options.vpcSubnets ?? defaultPrivateSubnets(options.vpc))
      : options.vpc.selectSubnets({ subnets: subnetsOfMountTargets });
    this.knownMountTargets = options.mountTargets
      ?? (cfnMountTargetsOf(wrapped).length > 0 ? mountTargetsOf(wrapped, this.mountTargetSubnets.subnets) : undefined);
    this.mountTargetIpAddressType = options.mountTargetIpAddressType ?? this.declared.ipAddressType ?? MountTargetIpAddressType.IPV4_ONLY;
  }

  public get mountTargetsReady(): IDependable {
    return gateOf(this, { subnets: { subnets: this.mountTargetSubnets.subnets }, prop: 'vpcSubnets' }, this.knownMountTargets);
  }

  public get fileSystemRef(): efs.FileSystemReference {
    return this.wrapped.fileSystemRef;
  }

  public addToResourcePolicy(statement: iam.PolicyStatement): iam.AddToResourcePolicyResult {
    return this.wrapped.addToResourcePolicy(statement);
  }

  /**
   * A dashboard and alarms for this file system, including the seeds and probes added so far.
   * Needs its throughput mode: from the options, or read from an efs.FileSystem of this app. Whether
   * it is One Zone comes from the same places, else it is taken as Regional (the spend row says so).
   */
  public addMonitoring(id: string, options: MonitoringOptions = {}): FileSystemMonitoring {
    const throughputMode = this.options.throughputMode ?? this.declared.throughputMode;
    if (throughputMode === undefined) {
      throw new ValidationError(`SharedFileSystem(${this.node.path}).addMonitoring('${id}'): monitoring an imported file system needs ${propName('throughputMode')} `
        + '(the widgets, alarms and spend row depend on it); give it to SharedFileSystem.fromFileSystemAttributes or fromFileSystem, got undefined.', this);
    }
    return new FileSystemMonitoring(this, id, {
      ...addedSeedsAndProbes(this),
      ...options,
      fileSystem: this,
      throughputMode,
      oneZone: this.options.oneZone ?? this.declared.oneZone,
      performanceMode: this.options.performanceMode ?? this.declared.performanceMode,
      provisionedThroughputPerSecond: this.options.provisionedThroughputPerSecond
        ?? (this.declared.provisionedMibps === undefined ? undefined : Size.mebibytes(this.declared.provisionedMibps)),
    });
  }
}

/** What an efs.FileSystem of this app declares in its template; nothing for an imported one. */
interface DeclaredFacts {
  readonly throughputMode?: efs.ThroughputMode;
  readonly performanceMode?: efs.PerformanceMode;
  readonly provisionedMibps?: number;
  readonly oneZone?: boolean;
  readonly ipAddressType?: MountTargetIpAddressType;
}

function declaredFacts(fileSystem: efs.IFileSystem): DeclaredFacts {
  const cfn = fileSystem.node.defaultChild;
  if (!efs.CfnFileSystem.isCfnFileSystem(cfn)) return {};
  const types = new Set(cfnMountTargetsOf(fileSystem).map((mt) => mt.ipAddressType ?? MountTargetIpAddressType.IPV4_ONLY));
  return {
    // CloudFormation's default is Bursting.
    throughputMode: (cfn.throughputMode as efs.ThroughputMode | undefined) ?? efs.ThroughputMode.BURSTING,
    performanceMode: (cfn.performanceMode as efs.PerformanceMode | undefined) ?? efs.PerformanceMode.GENERAL_PURPOSE,
    provisionedMibps: cfn.provisionedThroughputInMibps,
    // A One Zone file system names its Availability Zone.
    oneZone: cfn.availabilityZoneName !== undefined,
    ipAddressType: types.size === 1 ? [...types][0] as MountTargetIpAddressType : undefined,
  };
}

/** The VPC's subnets that hold one of `mountTargets` (matched by resolved subnet id). */
function subnetsHolding(vpc: ec2.IVpc, mountTargets: efs.CfnMountTarget[]): ec2.ISubnet[] {
  if (mountTargets.length === 0) return [];
  const stack = Stack.of(vpc);
  const key = (value: unknown) => JSON.stringify(stack.resolve(value));
  const ids = new Set(mountTargets.map((mt) => key(mt.subnetId)));
  const all = [...vpc.publicSubnets, ...vpc.privateSubnets, ...vpc.isolatedSubnets];
  return all.filter((s) => ids.has(key(s.subnetId)));
}

