import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Construct } from 'constructs';

/**
 * A dual-stack VPC (2 zones, no NAT) with three isolated subnet groups: `DualStack`, `Ipv6Only`
 * (made IPv6-only: aws-cdk's Vpc makes none itself) for IPV6_ONLY mount targets, and `Ipv4Only`
 * (its IPv6 CIDR taken away), plus a public group.
 */
export function vpcWithEveryFamily(scope: Construct, id = 'Vpc', props: Partial<ec2.VpcProps> = {}): ec2.Vpc {
  const vpc = new ec2.Vpc(scope, id, {
    maxAzs: 2, natGateways: 0, ipProtocol: ec2.IpProtocol.DUAL_STACK,
    subnetConfiguration: [
      { name: 'Public', subnetType: ec2.SubnetType.PUBLIC },
      { name: 'DualStack', subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
      { name: 'Ipv6Only', subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
      { name: 'Ipv4Only', subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
    ],
    ...props,
  });
  for (const subnet of vpc.selectSubnets({ subnetGroupName: 'Ipv6Only' }).subnets) {
    const cfn = subnet.node.defaultChild as ec2.CfnSubnet;
    cfn.ipv6Native = true;
    cfn.cidrBlock = undefined;
  }
  for (const subnet of vpc.selectSubnets({ subnetGroupName: 'Ipv4Only' }).subnets) {
    const cfn = subnet.node.defaultChild as ec2.CfnSubnet;
    cfn.ipv6CidrBlock = undefined;
    cfn.assignIpv6AddressOnCreation = undefined;
  }
  return vpc;
}
