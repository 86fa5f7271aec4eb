import { CfnResource, CustomResource, Duration, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct, Dependable, IConstruct } from 'constructs';
import { MountReadinessProperties, MountTargetProperties, READINESS_FUNCTION_MARGIN_SECONDS } from './contract/mount-readiness-properties';
import { handlerCode } from '../core/handler-code';
import { acknowledgeFunction, acknowledgeProvider } from '../core/nag';
import { dependOnRulesBetween } from '../core/security-group-rules';

/** What a readiness gate needs of the file system it waits for, whichever service serves it. */
export interface GatedFileSystem extends IConstruct, ec2.IConnectable {
  readonly fileSystemId: string;
  readonly fileSystemArn: string;
}

/** How a gate is made, with its properties already checked. */
export interface ReadinessGateOptions {
  readonly vpc: ec2.IVpc;
  readonly vpcSubnets: ec2.SubnetSelection;
  /** EFS or S3_FILES (FILE_SYSTEM_KINDS): which names the handler resolves. */
  readonly kind: 'EFS' | 'S3_FILES';
  readonly mountTargets?: MountTargetProperties[];
  /** Whether the handler may call DescribeMountTargets (EFS only, for what `mountTargets` leaves out). */
  readonly describes: boolean;
  readonly reachesIpv6: boolean;
  readonly limitSeconds: number;
}

/** The parts of a gate its construct exposes. */
export interface ReadinessGateParts {
  readonly resource: CustomResource;
  readonly securityGroup: ec2.ISecurityGroup;
}

/**
 * Makes in `gate` the readiness gate's resources: a security group reaching the mount targets on
 * 2049 (and 443 when it describes them), a function in the given subnets that waits within its
 * invocation, aws-cdk's Provider without isComplete, and the custom resource; a dependency on
 * `gate` is one on its custom resource. EFS's MountTargetsReady and S3 Files' gate share it.
 */
export function makeReadinessGate(gate: Construct, fileSystem: GatedFileSystem, options: ReadinessGateOptions): ReadinessGateParts {
  const securityGroup = new ec2.SecurityGroup(gate, 'SecurityGroup', {
    vpc: options.vpc,
    allowAllOutbound: false,
    description: 'cdk-efs-kit mount readiness gate: TCP 2049 to the mount targets (DNS goes to the VPC resolver, which security groups do not filter)',
  });
  if (options.describes) securityGroup.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), 'DescribeMountTargets (the EFS API)');
  // The function waits within its invocation: the limit, then a minute for a last round and the answer.
  const functionTimeout = Duration.seconds(options.limitSeconds + READINESS_FUNCTION_MARGIN_SECONDS);
  const fn = new lambda.Function(gate, 'Function', {
    runtime: lambda.Runtime.NODEJS_22_X,
    code: handlerCode('mount-readiness'),
    handler: 'index.onEvent',
    memorySize: 256,
    timeout: functionTimeout,
    vpc: options.vpc,
    vpcSubnets: options.vpcSubnets,
    securityGroups: [securityGroup],
    ipv6AllowedForDualStack: options.reachesIpv6 ? true : undefined,
    description: `cdk-efs-kit mount readiness gate of ${fileSystem.node.path}`,
  });
  if (options.describes) {
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['elasticfilesystem:DescribeMountTargets'], resources: [fileSystem.fileSystemArn] }));
  }
  acknowledgeFunction(fn);
  fileSystem.connections.allowDefaultPortFrom(securityGroup, `NFS from the mount readiness gate ${gate.node.path}`);

  // onEvent only: no isComplete, so the framework adds one function and no waiter state machine.
  const provider = new cr.Provider(gate, 'Provider', { onEventHandler: fn });
  acknowledgeProvider(provider, [fn]);

  const properties: MountReadinessProperties = {
    // EFS is the handler's default: its gates' properties stay as they were.
    FileSystemKind: options.kind === 'EFS' ? undefined : options.kind,
    FileSystemId: fileSystem.fileSystemId,
    Region: Stack.of(gate).region,
    MountTargets: options.mountTargets,
    TimeLimitSeconds: String(options.limitSeconds),
  };
  const resource = new CustomResource(gate, 'Resource', {
    serviceToken: provider.serviceToken,
    resourceType: 'Custom::CdkEfsKitMountTargetsReady',
    properties: { ...properties },
    // CloudFormation gives up five minutes after the function would have: the handler's message comes first.
    serviceTimeout: Duration.seconds(functionTimeout.toSeconds() + 300),
  });
  // The first connection comes as soon as the gate runs: not before its port 2049 rules exist.
  dependOnRulesBetween(resource.node.defaultChild as CfnResource, securityGroup, fileSystem);
  Dependable.implement(gate, { get dependencyRoots() { return [resource.node.defaultChild as CfnResource]; } });
  return { resource, securityGroup };
}
