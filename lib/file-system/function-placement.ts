import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { IConstruct } from 'constructs';
import { checkGateSubnets } from './gate-subnets';
import { MountTargetIpAddressType } from './mount-targets-ready';
import { isSharedFileSystem } from './shared-file-system-brand';
import { ValidationError } from '../core/validation-error';
import type { IMountableFileSystem } from './mountable-file-system';
import { propName } from '../core/contract/prop-name';

/**
 * Refuses the placement of a helper's function (the probe's; the seed's can use it too) from which
 * it cannot reach mount targets with IPv6 addresses: Lambda runs only in subnets with IPv4, and
 * reaches IPv6 addresses from dual-stack ones. A created SharedFileSystem's IPV6_ONLY mount targets
 * are in IPv6-only subnets, so the default placement (theirs) cannot hold the function; an imported
 * one's helper subnets are the user's own choice. `vpcSubnets` is what the user gave, under that name.
 */
export function checkIpv6Placement(scope: IConstruct, where: string, files: IMountableFileSystem, vpc: ec2.IVpc, vpcSubnets: ec2.SubnetSelection | undefined): void {
  if (!vpcSubnets && isSharedFileSystem(files) && files.mountTargetIpAddressType === MountTargetIpAddressType.IPV6_ONLY) {
    throw new ValidationError(`${where}: ${propName('vpcSubnets')} is required when the mount targets are IPV6_ONLY: Lambda cannot run in their IPv6-only subnets (the default); `
      + `give dual-stack subnets of the file system's VPC in zones with a mount target (those of ${propName('readinessGateSubnets')} fit), got undefined.`, scope);
  }
  const subnets = vpc.selectSubnets(vpcSubnets ?? { subnets: files.mountTargetSubnets.subnets }).subnets;
  checkGateSubnets(scope, where, 'vpcSubnets', subnets, true, files.mountTargetSubnets.subnets.map((s) => s.availabilityZone));
}
