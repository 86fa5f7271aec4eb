import { CustomResource, Duration, Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import { Construct, IConstruct } from 'constructs';
import { DEFAULT_READINESS_TIME_LIMIT_SECONDS, MAX_READINESS_TIME_LIMIT_SECONDS, MountTargetProperties } from './contract/mount-readiness-properties';
import { checkGateSubnets } from './gate-subnets';
import { makeReadinessGate } from './readiness-gate';
import { defaultPrivateSubnets } from '../core/subnets';
import { brand, hasBrand } from '../core/type-brand';
import { check } from '../core/validate';
import { ValidationError } from '../core/validation-error';
import { propName } from '../core/contract/prop-name';

/** How a mount target takes addresses, as `AWS::EFS::MountTarget`'s `IpAddressType`. */
export enum MountTargetIpAddressType {
  /** An IPv4 address only. */
  IPV4_ONLY = 'IPV4_ONLY',
  /** An IPv4 and an IPv6 address. */
  DUAL_STACK = 'DUAL_STACK',
  /** An IPv6 address only. */
  IPV6_ONLY = 'IPV6_ONLY',
}

/** A mount target the gate waits for. What is left out, the gate reads from DescribeMountTargets at deploy time. */
export interface MountTargetEndpoint {
  /** Its id (`fsmt-…`), e.g. a `CfnMountTarget`'s `ref`. */
  readonly mountTargetId: string;
  /**
   * Its Availability Zone's name (`us-east-1a`), for its zone DNS name.
   * @default - read from DescribeMountTargets
   */
  readonly availabilityZone?: string;
  /**
   * Which addresses it has.
   * @default MountTargetIpAddressType.IPV4_ONLY
   */
  readonly ipAddressType?: MountTargetIpAddressType;
  /**
   * Its IPv4 address, e.g. a `CfnMountTarget`'s `attrIpAddress`.
   * @default - read from DescribeMountTargets (for IPV4_ONLY and DUAL_STACK)
   */
  readonly ipAddress?: string;
  /**
   * Its IPv6 address (CloudFormation has no attribute for it).
   * @default - read from DescribeMountTargets (for DUAL_STACK and IPV6_ONLY)
   */
  readonly ipv6Address?: string;
}

/** Properties of a [MountTargetsReady](#cdk-efs-kit.MountTargetsReady) gate. */
export interface MountTargetsReadyProps {
  /** The file system: its id, its ARN, and its `connections` (port 2049 is opened on them from the gate). */
  readonly fileSystem: efs.IFileSystem;
  /** The VPC of the mount targets; the gate runs in it and asks its resolver. */
  readonly vpc: ec2.IVpc;
  /**
   * Subnets the gate runs in: those of the mount targets, so that the file system's name resolves
   * there as it will for the clients; in any case in zones with a mount target. For IPV6_ONLY mount
   * targets, dual-stack subnets of the same VPC (Lambda cannot run in IPv6-only subnets; the gate
   * reaches IPv6 addresses from dual-stack ones with `ipv6AllowedForDualStack`).
   * @default - the VPC's private subnets with egress, else its isolated subnets, one per zone
   */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /**
   * The mount targets to wait for. Whatever they leave out (all of them, a zone, an IPv6 address)
   * the gate reads from DescribeMountTargets, which needs a route from `vpcSubnets` to the EFS API
   * (egress or an `elasticfilesystem` interface endpoint); the gate then may call it, on this file
   * system only, and reach port 443.
   * @default - every mount target DescribeMountTargets lists
   */
  readonly mountTargets?: MountTargetEndpoint[];
  /**
   * Which addresses the mount targets have, where `mountTargets` does not say (all of them when it
   * is left out): with IPv6 ones, the gate's function may send IPv6 traffic and checks the IPv6
   * addresses too.
   * @default - what `mountTargets` say; else MountTargetIpAddressType.IPV4_ONLY
   */
  readonly mountTargetIpAddressType?: MountTargetIpAddressType;
  /**
   * How long the gate waits for every mount target to answer before it fails the deploy, naming
   * what never answered. New mount targets' names resolve within 60 to 90 seconds. At most 13
   * minutes: the gate waits within one Lambda invocation.
   * @default Duration.minutes(10)
   */
  readonly timeLimit?: Duration;
}

/**
 * A deploy-time gate that completes only when, from the file system's own subnets, every mount
 * target's zone DNS name resolves to its address, TCP 2049 answers there, and the file system's
 * name resolves to one of them: what a first mount needs, and what `mountTargetsAvailable` does not
 * wait for (a new mount target is "available" up to 90 seconds before its name resolves). On
 * timeout the deploy fails naming each mount target, its zone and the step that never succeeded.
 * Make clients depend on it: `client.node.addDependency(gate)` (`SharedFileSystem`'s mount helpers
 * do, through `files.mountTargetsReady`).
 *
 * It is a Lambda function in the mount targets' subnets (a security group that may reach them on
 * 2049 only) that waits within its invocation, aws-cdk's custom resource Provider framework without
 * isComplete (one function of its own, no state machine), and the custom resource.
 *
 * @example
 * // A file system made outside this app: the gate reads its mount targets from DescribeMountTargets.
 * const ready = new MountTargetsReady(this, 'ImportedReady', { fileSystem: imported, vpc });
 * host.node.addDependency(ready); // the instance boots once the file system answers
 */
export class MountTargetsReady extends Construct {
  /** Whether `x` is a MountTargetsReady gate, made by any copy of this package. */
  public static isMountTargetsReady(x: any): x is MountTargetsReady {
    return hasBrand(x, 'MountTargetsReady');
  }

  /** The custom resource that completes once every mount target answers; depending on the gate depends on it. */
  public readonly resource: CustomResource;

  /** The security group of the gate's functions: it reaches the mount targets on 2049. */
  public readonly securityGroup: ec2.ISecurityGroup;

  constructor(scope: Construct, id: string, props: MountTargetsReadyProps) {
    super(scope, id);
    brand(this, 'MountTargetsReady');
    const where = `MountTargetsReady(${this.node.path})`;
    const limitSeconds = props.timeLimit?.toSeconds() ?? DEFAULT_READINESS_TIME_LIMIT_SECONDS;
    check(Number.isInteger(limitSeconds) && limitSeconds >= 1 && limitSeconds <= MAX_READINESS_TIME_LIMIT_SECONDS, where, 'timeLimit (seconds)', limitSeconds,
      `must be whole seconds from 1 to ${MAX_READINESS_TIME_LIMIT_SECONDS} (the gate waits within one Lambda invocation, which the Provider framework's 15-minute function must outlive)`, this);
    if (props.mountTargets?.length === 0) throw new ValidationError(`${where}: ${propName('mountTargets')} must list at least one mount target, or be left out (then every mount target is read from DescribeMountTargets), got [].`, this);
    const mountTargets = props.mountTargets?.map((t, i) => mountTargetProperties(this, t, `${where}: mountTargets[${i}]`));
    const describes = mountTargets === undefined || mountTargets.some(isIncomplete);
    const types = [...(props.mountTargets ?? []).map((t) => t.ipAddressType ?? MountTargetIpAddressType.IPV4_ONLY), props.mountTargetIpAddressType];
    const reachesIpv6 = types.some((t) => t === MountTargetIpAddressType.DUAL_STACK || t === MountTargetIpAddressType.IPV6_ONLY);
    const vpcSubnets = props.vpcSubnets ?? defaultPrivateSubnets(props.vpc);
    checkGateSubnets(this, where, 'vpcSubnets', props.vpc.selectSubnets(vpcSubnets).subnets, reachesIpv6, props.mountTargets?.map((t) => t.availabilityZone));

    const gate = makeReadinessGate(this, props.fileSystem, {
      vpc: props.vpc, vpcSubnets, kind: 'EFS', mountTargets, describes, reachesIpv6, limitSeconds,
    });
    this.resource = gate.resource;
    this.securityGroup = gate.securityGroup;
  }
}

/** A mount target as the handler's properties spell it, with what the construct can check at synth. */
function mountTargetProperties(scope: IConstruct, t: MountTargetEndpoint, where: string): MountTargetProperties {
  const type = t.ipAddressType ?? MountTargetIpAddressType.IPV4_ONLY;
  const known = (value: string | undefined) => value !== undefined && !Token.isUnresolved(value);
  if (type === MountTargetIpAddressType.IPV6_ONLY && t.ipAddress !== undefined) {
    throw new ValidationError(`${where}: ${propName('ipAddress')} does not apply to an IPV6_ONLY mount target; leave it out, got ${JSON.stringify(t.ipAddress)}.`, scope);
  }
  if (type === MountTargetIpAddressType.IPV4_ONLY && t.ipv6Address !== undefined) {
    throw new ValidationError(`${where}: ${propName('ipv6Address')} does not apply to an IPV4_ONLY mount target; set ${propName('ipAddressType')} DUAL_STACK or leave it out, got ${JSON.stringify(t.ipv6Address)}.`, scope);
  }
  check(!known(t.mountTargetId) || /^fsmt-[0-9a-f]{8,40}$/.test(t.mountTargetId), where, 'mountTargetId', t.mountTargetId, 'must be a mount target id (fsmt- and 8 to 40 hex digits)', scope);
  return {
    MountTargetId: t.mountTargetId,
    AvailabilityZone: t.availabilityZone,
    IpAddressType: t.ipAddressType,
    IpAddress: t.ipAddress,
    Ipv6Address: t.ipv6Address,
  };
}

/** A mount target the handler must describe: its zone or an address its type has is not given. */
function isIncomplete(t: MountTargetProperties): boolean {
  const type = t.IpAddressType ?? MountTargetIpAddressType.IPV4_ONLY;
  return t.AvailabilityZone === undefined
    || (type !== MountTargetIpAddressType.IPV6_ONLY && t.IpAddress === undefined)
    || (type !== MountTargetIpAddressType.IPV4_ONLY && t.Ipv6Address === undefined);
}
