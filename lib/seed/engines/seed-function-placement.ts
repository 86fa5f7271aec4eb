import { Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { SeedWiringContext } from './seed-wiring';
import { checkIpv6Placement } from '../../file-system/function-placement';
import { checkGateSubnets } from '../../file-system/gate-subnets';
import { MountTargetIpAddressType } from '../../file-system/mount-targets-ready';
import type { IMountableFileSystem } from '../../file-system/mountable-file-system';

/** What a seed's placement is read from: the seed, and its file system and subnets (an EFS seed's props, or an S3 Files seed's). */
export type PlacedSeed = Pick<SeedWiringContext, 'seed' | 'where'> & { readonly props: { readonly fileSystem: IMountableFileSystem; readonly vpcSubnets?: ec2.SubnetSelection } };

/** Where a seed's functions in the VPC (the seed function, the Distributed Map's workers) run. */
export interface SeedFunctionPlacement {
  /** The subnets: the seed's `vpcSubnets`, else the file system's mount target subnets. */
  readonly subnets: ec2.ISubnet[];
  /** Whether `subnets` came from the seed's `vpcSubnets`, for messages. */
  readonly given: boolean;
  /** Whether the mount targets have IPv6 addresses (DUAL_STACK, IPV6_ONLY): the functions then send IPv6. */
  readonly reachesIpv6: boolean;
  /**
   * The subnets as the template names them, for a shared provider's key, so seeds placed apart share
   * nothing; undefined for the file system's own subnets, so a seed placed as before keeps its
   * provider's id (CloudFormation refuses a custom resource a new ServiceToken).
   */
  readonly key?: string;
}

/**
 * The seed's placement, checked: Lambda cannot run in IPv6-only subnets, so IPV6_ONLY mount targets
 * need the seed's `vpcSubnets` (dual-stack ones), and the subnets must be in zones with a mount target.
 */
export function seedFunctionPlacement(context: PlacedSeed): SeedFunctionPlacement {
  const { seed, where, props } = context;
  const files = props.fileSystem;
  const reachesIpv6 = files.mountTargetIpAddressType !== MountTargetIpAddressType.IPV4_ONLY;
  if (reachesIpv6) {
    checkIpv6Placement(seed, where, files, files.vpc, props.vpcSubnets);
  }
  const subnets = props.vpcSubnets ? files.vpc.selectSubnets(props.vpcSubnets).subnets : files.mountTargetSubnets.subnets;
  if (props.vpcSubnets && !reachesIpv6) {
    checkGateSubnets(seed, where, 'vpcSubnets', subnets, false, files.mountTargetSubnets.subnets.map((s) => s.availabilityZone));
  }
  const stack = Stack.of(seed);
  const idsOf = (of: ec2.ISubnet[]) => JSON.stringify(of.map((s) => stack.resolve(s.subnetId)));
  const key = idsOf(subnets) === idsOf(files.mountTargetSubnets.subnets) ? undefined : idsOf(subnets);
  return { subnets, given: props.vpcSubnets !== undefined, reachesIpv6, key };
}

/**
 * A seed function's network settings. Where the mount targets have IPv6 addresses, the function
 * sends IPv6 (`ipv6AllowedForDualStack`) and gets a group of its own: Lambda's default one allows all
 * outbound IPv4 and no IPv6, which the mount refuses (IPV6_ONLY) or warns of (DUAL_STACK). The group
 * allows what the seed needs and no more: port 2049 to the mount targets (the mount adds it, by
 * group, so it holds for both families) and HTTPS over IPv4 to S3, whose regional endpoint, the one
 * the seed's SDK client uses, has IPv4 addresses only.
 */
export function seedFunctionNetwork(scope: Construct, id: string, vpc: ec2.IVpc, placement: SeedFunctionPlacement, description: string):
Pick<lambda.FunctionProps, 'vpc' | 'vpcSubnets' | 'ipv6AllowedForDualStack' | 'securityGroups'> {
  const network = { vpc, vpcSubnets: { subnets: placement.subnets } };
  if (!placement.reachesIpv6) return network;
  const group = new ec2.SecurityGroup(scope, id, { vpc, allowAllOutbound: false, description: `${description}: TCP 2049 to the mount targets, HTTPS to S3 over IPv4` });
  group.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), 'S3 over HTTPS (its regional endpoint has IPv4 addresses only)');
  return { ...network, ipv6AllowedForDualStack: true, securityGroups: [group] };
}
