import * as ec2 from 'aws-cdk-lib/aws-ec2';

/**
 * A VPC's private subnets, one per AZ: those with egress, else the isolated ones (mounting EFS needs
 * no egress, and Lambda ships logs, EMF metrics included, without it).
 */
export function defaultPrivateSubnets(vpc: ec2.IVpc): ec2.SubnetSelection {
  const subnetType = vpc.privateSubnets.length > 0 ? ec2.SubnetType.PRIVATE_WITH_EGRESS : ec2.SubnetType.PRIVATE_ISOLATED;
  return { subnetType, onePerAz: true };
}
