import { Annotations, CfnResource, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { IConstruct } from 'constructs';

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

/** An AWS API a helper's functions call from their subnets, and what to do when they cannot reach it. */
export interface RouteNeed {
  readonly service: RoutedService;
  readonly name: string;
  /** What the functions call it for. */
  readonly does: string;
  /** What an imported VPC must have. */
  readonly endpoint: string;
  readonly fix: string;
  /** A way out besides the endpoint and subnets with egress. */
  readonly otherwise?: string;
  readonly warningId: string;
}

/** Who calls the API, from where, and the other way out (`give ... vpcSubnets with egress`). */
export interface RouteCaller {
  readonly scope: IConstruct;
  readonly where: string;
  /** e.g. "the seed functions run in the file system's subnets". */
  readonly runsIn: string;
  readonly other: string;
  readonly vpc: ec2.IVpc;
  readonly subnets: ec2.ISubnet[];
}

/**
 * Fails synth where `caller`'s subnets cannot reach `need`'s API. An app-defined VPC is checked once
 * the app is built, so an endpoint added after the helper counts; for an imported VPC, whose routes
 * and endpoints are not in the app, a warning.
 */
export function requireRoute(caller: RouteCaller, need: RouteNeed): void {
  const { scope, where, runsIn, other, vpc, subnets } = caller;
  if (isImportedVpc(vpc)) {
    if (subnetsWithoutRoute(vpc, subnets, need.service).length > 0) {
      Annotations.of(scope).addWarningV2(need.warningId, `${runsIn}, which have no egress, and ${need.does}: `
        + `make sure the imported VPC has ${need.endpoint}, or ${need.fix}${need.otherwise ? `, or ${need.otherwise}` : ''}.`);
    }
    return;
  }
  scope.node.addValidation({
    validate: () => {
      const cut = subnetsWithoutRoute(vpc, subnets, need.service);
      if (cut.length === 0) return [];
      return [`${where}: ${runsIn} and ${need.does}, but ${cut.map((s) => s.node.path).join(', ')} `
        + `${cut.length === 1 ? 'has' : 'have'} no route to ${need.name} (no egress, no ${need.name} endpoint): ${need.fix}, ${need.otherwise ? `${other}, or ${need.otherwise}` : `or ${other}`}.`];
    },
  });
}
