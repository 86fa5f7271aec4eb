import { CfnResource, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { IConstruct } from 'constructs';

/**
 * Makes `dependent` (a function, a DataSync location) wait for the security group rules that let
 * `client` reach `server`: the ingress on the server's groups from the client's, and the egress on
 * the client's groups to the server's. Those rules are resources of their own, and nothing else
 * orders them before a client that connects at once, such as a function a custom resource invokes
 * in the same deploy. aws-cdk's `lambda.FileSystem.fromEfsAccessPoint` adds the same dependencies
 * for this race.
 */
export function dependOnRulesBetween(dependent: IConstruct, client: ec2.IConnectable, server: ec2.IConnectable): void {
  const stack = Stack.of(dependent);
  const key = (value: unknown) => JSON.stringify(stack.resolve(value));
  const groupIds = (connectable: ec2.IConnectable) => new Set(connectable.connections.securityGroups.map((sg) => key(sg.securityGroupId)));
  const clientGroups = groupIds(client);
  const serverGroups = groupIds(server);
  const rulesOf = (connectable: ec2.IConnectable, type: string) => connectable.connections.securityGroups
    .flatMap((sg) => sg.node.findAll())
    .filter((c): c is CfnResource => CfnResource.isCfnResource(c) && c.cfnResourceType === type);

  const ingress = rulesOf(server, 'AWS::EC2::SecurityGroupIngress')
    .filter((rule) => clientGroups.has(key((rule as ec2.CfnSecurityGroupIngress).sourceSecurityGroupId)));
  const egress = rulesOf(client, 'AWS::EC2::SecurityGroupEgress')
    .filter((rule) => serverGroups.has(key((rule as ec2.CfnSecurityGroupEgress).destinationSecurityGroupId)));
  for (const rule of [...ingress, ...egress]) dependent.node.addDependency(rule);
}

/**
 * Opens `port` on the server's security groups to the client's, as `client.connections.allowTo(server, port)`
 * does (the ingress rule goes to the client's stack when the server is in another, so a file
 * system's stack never depends on its clients'), but without the egress rules a client group that
 * allows all outbound traffic would ignore with a warning (`@aws-cdk/aws-ec2:ipv4IgnoreEgressRule`,
 * which fails `cdk synth --strict`).
 */
export function allowClientTo(client: ec2.IConnectable, server: ec2.IConnectable, port: ec2.Port): void {
  for (const clientGroup of client.connections.securityGroups) {
    for (const serverGroup of server.connections.securityGroups) {
      serverGroup.addIngressRule(clientGroup, port, undefined, true);
      if (!clientGroup.allowAllOutbound) clientGroup.addEgressRule(serverGroup, port);
    }
  }
}
