import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import { IConstruct } from 'constructs';
import { MountTargetIpAddressType } from './mount-targets-ready';
import { cfnMountTargetsOf } from './shared-file-system-gate';
import { ValidationError } from '../core/validation-error';
import { subnetFamilies } from '../core/subnets';
import { propName } from '../core/contract/prop-name';

/**
 * Sets `AWS::EFS::MountTarget`'s IpAddressType (aws-efs's L2 has no prop for it) on every mount
 * target of `fileSystem`, after checking the subnets the app defines can hold that kind: EFS puts
 * IPV4_ONLY mount targets in IPv4-only or dual-stack subnets, DUAL_STACK ones in dual-stack
 * subnets, IPV6_ONLY ones in IPv6-only subnets. Imported subnets, whose CIDRs the app does not
 * know, are not checked.
 */
export function applyIpAddressType(scope: IConstruct, fileSystem: efs.FileSystem, subnets: ec2.ISubnet[], type: MountTargetIpAddressType | undefined): void {
  if (type === undefined) return;
  checkMountTargetSubnetFamilies(scope, `SharedFileSystem(${scope.node.path})`, subnets, type);
  for (const mountTarget of cfnMountTargetsOf(fileSystem)) mountTarget.ipAddressType = type;
}

/**
 * Refuses subnets the app defines that cannot hold mount targets of `type` (the same rules hold for
 * EFS and S3 Files mount targets); imported subnets are not checked.
 */
export function checkMountTargetSubnetFamilies(scope: IConstruct, where: string, subnets: ec2.ISubnet[], type: MountTargetIpAddressType): void {
  for (const subnet of subnets) {
    const problem = subnetProblem(subnet, type);
    if (problem) throw new ValidationError(`${where}: ${propName('ipAddressType')} ${type} needs ${NEEDS[type]}, but subnet ${subnet.node.path} ${problem}; pick other ${propName('vpcSubnets')} or another ipAddressType, got ipAddressType ${type}.`, scope);
  }
}

const NEEDS: Record<MountTargetIpAddressType, string> = {
  [MountTargetIpAddressType.IPV4_ONLY]: 'subnets with an IPv4 CIDR (IPv4-only or dual-stack)',
  [MountTargetIpAddressType.DUAL_STACK]: 'dual-stack subnets (an IPv4 and an IPv6 CIDR)',
  [MountTargetIpAddressType.IPV6_ONLY]: 'IPv6-only subnets (EFS refuses an IPv6-only mount target in a dual-stack subnet)',
};

/** What the subnet lacks for `type`, when the app defines it; undefined when it fits or is not known. */
function subnetProblem(subnet: ec2.ISubnet, type: MountTargetIpAddressType): string | undefined {
  const families = subnetFamilies(subnet);
  if (!families) return undefined;
  const { ipv6Only, hasIpv6 } = families;
  switch (type) {
    case MountTargetIpAddressType.IPV4_ONLY: return ipv6Only ? 'is IPv6-only' : undefined;
    case MountTargetIpAddressType.DUAL_STACK: return ipv6Only ? 'is IPv6-only' : (hasIpv6 ? undefined : 'has no IPv6 CIDR');
    case MountTargetIpAddressType.IPV6_ONLY: return ipv6Only ? undefined : (hasIpv6 ? 'is dual-stack' : 'has no IPv6 CIDR');
  }
}
