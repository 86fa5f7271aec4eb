import { CfnResource, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';

/**
 * Which of `subnets` give a Lambda function in them no way to S3: not private with egress (isolated
 * subnets route nowhere, and a function in a public subnet gets no public address,
 * https://docs.aws.amazon.com/lambda/latest/dg/configuration-vpc.html), and without an S3 endpoint
 * of the VPC that serves them: a gateway endpoint on their route tables, or an interface endpoint.
 * Endpoints are looked for in the whole app, so call it once the app is built (at validation).
 */
export function subnetsWithoutS3(vpc: ec2.IVpc, subnets: ec2.ISubnet[]): ec2.ISubnet[] {
  const stack = Stack.of(vpc);
  const key = (value: unknown) => JSON.stringify(stack.resolve(value));
  const withEgress = new Set(vpc.privateSubnets.map((s) => key(s.subnetId)));
  const cut = subnets.filter((s) => !withEgress.has(key(s.subnetId)));
  if (cut.length === 0) return [];

  const endpoints = vpc.node.root.node.findAll()
    .filter((c): c is ec2.CfnVPCEndpoint => CfnResource.isCfnResource(c) && c.cfnResourceType === 'AWS::EC2::VPCEndpoint')
    .filter((e) => key(e.vpcId) === key(vpc.vpcId) && isS3Service(stack.resolve(e.serviceName)));
  if (endpoints.some((e) => e.vpcEndpointType === 'Interface')) return [];
  const routed = new Set(endpoints.flatMap((e) => (stack.resolve(e.routeTableIds) ?? []) as unknown[]).map((id) => JSON.stringify(id)));
  return cut.filter((s) => !routed.has(key(s.routeTable.routeTableId)));
}

/** Whether a VPC is imported (Vpc.fromLookup, fromVpcAttributes): its endpoints and routes are not in the app. */
export function isImportedVpc(vpc: ec2.IVpc): boolean {
  return vpc.node.defaultChild === undefined;
}

/** `com.amazonaws.<region>.s3`, with the region a token or not. */
function isS3Service(serviceName: unknown): boolean {
  const text = (value: unknown): string => {
    if (typeof value === 'string') return value;
    const join = (value as { 'Fn::Join'?: [string, unknown[]] } | undefined)?.['Fn::Join'];
    return join ? join[1].map(text).join(join[0]) : 'token';
  };
  return /^com\.amazonaws\.[^.]+\.s3$/.test(text(serviceName));
}
