import { CfnResource, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';

/** The AWS APIs the helpers' functions call from their subnets (the seed's, the probe's on S3 Files). */
export type RoutedService = 's3' | 'cloudformation';

/**
 * Which of `subnets` give a Lambda function in them no way to `service`: not private with egress
 * (isolated subnets route nowhere, and a function in a public subnet gets no public address,
 * https://docs.aws.amazon.com/lambda/latest/dg/configuration-vpc.html), and without an endpoint of
 * the VPC for it: an interface endpoint, or for S3 a gateway endpoint on their route tables.
 * Endpoints are looked for in the whole app, so call it once the app is built (at validation).
 */
export function subnetsWithoutRoute(vpc: ec2.IVpc, subnets: ec2.ISubnet[], service: RoutedService): ec2.ISubnet[] {
  const stack = Stack.of(vpc);
  const key = (value: unknown) => JSON.stringify(stack.resolve(value));
  const withEgress = new Set(vpc.privateSubnets.map((s) => key(s.subnetId)));
  const cut = subnets.filter((s) => !withEgress.has(key(s.subnetId)));
  if (cut.length === 0) return [];

  const endpoints = vpc.node.root.node.findAll()
    .filter((c): c is ec2.CfnVPCEndpoint => CfnResource.isCfnResource(c) && c.cfnResourceType === 'AWS::EC2::VPCEndpoint')
    .filter((e) => key(e.vpcId) === key(vpc.vpcId) && isServiceName(stack.resolve(e.serviceName), service));
  if (endpoints.some((e) => e.vpcEndpointType === 'Interface')) return [];
  const routed = new Set(endpoints.flatMap((e) => (stack.resolve(e.routeTableIds) ?? []) as unknown[]).map((id) => JSON.stringify(id)));
  return cut.filter((s) => !routed.has(key(s.routeTable.routeTableId)));
}

/** Whether a VPC is imported (Vpc.fromLookup, fromVpcAttributes): its endpoints and routes are not in the app. */
export function isImportedVpc(vpc: ec2.IVpc): boolean {
  return vpc.node.defaultChild === undefined;
}

/** `com.amazonaws.<region>.<service>`, with the region a token or not. */
function isServiceName(serviceName: unknown, service: RoutedService): boolean {
  const text = (value: unknown): string => {
    if (typeof value === 'string') return value;
    const join = (value as { 'Fn::Join'?: [string, unknown[]] } | undefined)?.['Fn::Join'];
    return join ? join[1].map(text).join(join[0]) : 'token';
  };
  return new RegExp(`^com\\.amazonaws\\.[^.]+\\.${service}$`).test(text(serviceName));
}
