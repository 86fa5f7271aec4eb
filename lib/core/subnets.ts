import { CfnResource } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';

/**
 * A VPC's private subnets, one per AZ: those with egress, else the isolated ones (mounting EFS needs
 * no egress, and Lambda ships logs, EMF metrics included, without it).
 */
export function defaultPrivateSubnets(vpc: ec2.IVpc): ec2.SubnetSelection {
  const subnetType = vpc.privateSubnets.length > 0 ? ec2.SubnetType.PRIVATE_WITH_EGRESS : ec2.SubnetType.PRIVATE_ISOLATED;
  return { subnetType, onePerAz: true };
}

/** Which address families a subnet the app defines has; undefined for one whose CIDRs the app does not know (an imported subnet). */
export function subnetFamilies(subnet: ec2.ISubnet): { ipv6Only: boolean; hasIpv6: boolean } | undefined {
  const cfn = subnet.node.defaultChild;
  if (!cfn || !CfnResource.isCfnResource(cfn) || cfn.cfnResourceType !== ec2.CfnSubnet.CFN_RESOURCE_TYPE_NAME) return undefined;
  const s = cfn as ec2.CfnSubnet;
  const ipv6Only = s.ipv6Native === true;
  return { ipv6Only, hasIpv6: ipv6Only || s.ipv6CidrBlock !== undefined || s.ipv6IpamPoolId !== undefined };
}
