import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AccessPointPreset, S3FilesFileSystem } from '../../../lib';
import { nagErrors } from '../../helpers/checks';

// S3 Files' clients wait for the same readiness gate as EFS's (lambda/mount-readiness), given its
// S3 Files names: FileSystemKind S3_FILES and each mount target's id and Availability Zone ID.

let stack: Stack;
let vpc: ec2.Vpc;
let files: S3FilesFileSystem;

beforeEach(() => {
  stack = new Stack(new App(), 'Test');
  vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
  files = new S3FilesFileSystem(stack, 'Files', { vpc });
});

const template = () => Template.fromStack(stack);
const gateLogicalId = () => Object.keys(template().findResources('Custom::CdkEfsKitMountTargetsReady'))[0];

function mountedFunction(): lambda.Function {
  const fn = new lambda.Function(stack, 'Fn', {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => 1;'),
    vpc,
  });
  files.mountOnLambda(fn, files.addAccessPoint('Shared', AccessPointPreset.applicationUser('/shared')), { mountPath: '/mnt/shared' });
  return fn;
}

test('a file system no client mounts gets no gate', () => {
  template().resourceCountIs('Custom::CdkEfsKitMountTargetsReady', 0);
});

test('the gate names the S3 Files kind and each mount target by its id and Availability Zone ID attributes', () => {
  mountedFunction();
  const mountTargets = Object.keys(template().findResources('AWS::S3Files::MountTarget'));
  expect(mountTargets).toHaveLength(2);
  template().hasResourceProperties('Custom::CdkEfsKitMountTargetsReady', {
    FileSystemKind: 'S3_FILES',
    FileSystemId: { 'Fn::GetAtt': [stack.getLogicalId(files.resource), 'FileSystemId'] },
    MountTargets: mountTargets.map((id) => ({
      MountTargetId: { 'Fn::GetAtt': [id, 'MountTargetId'] },
      AvailabilityZoneId: { 'Fn::GetAtt': [id, 'AvailabilityZoneId'] },
    })),
  });
});

test('the mounted function, an ECS service and its task definition wait for the gate', () => {
  const fn = mountedFunction();
  const cluster = new ecs.Cluster(stack, 'Cluster', { vpc });
  const task = new ecs.FargateTaskDefinition(stack, 'Task');
  task.addContainer('App', { image: ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:latest') });
  const service = new ecs.FargateService(stack, 'Service', { cluster, taskDefinition: task });
  files.mountOnEcsService(service, files.addAccessPoint('Data', AccessPointPreset.applicationUser('/data')), { containerPath: '/data' });
  const gate = gateLogicalId();
  for (const client of [fn.node.defaultChild, task.node.defaultChild, service.node.defaultChild] as ec2.CfnSecurityGroup[]) {
    expect(template().toJSON().Resources[stack.getLogicalId(client)].DependsOn).toContain(gate);
  }
});

test('the gate makes no AWS call: no DescribeMountTargets, no port 443, only 2049 to the mount targets', () => {
  mountedFunction();
  const policies = JSON.stringify(template().findResources('AWS::IAM::Policy'));
  expect(policies).not.toContain('elasticfilesystem:DescribeMountTargets');
  const gateGroup = Object.keys(template().findResources('AWS::EC2::SecurityGroup', { Properties: { GroupDescription: Match.stringLikeRegexp('mount readiness gate') } }))[0];
  const egress = Object.values(template().findResources('AWS::EC2::SecurityGroupEgress'))
    .map((r: any) => r.Properties).filter((p: any) => p.GroupId['Fn::GetAtt']?.[0] === gateGroup);
  expect(egress.map((p: any) => [p.FromPort, p.ToPort])).toEqual([[2049, 2049]]);
});

test('one gate for every client', () => {
  mountedFunction();
  new lambda.Function(stack, 'Other', {
    runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => 1;'), vpc,
  }).node.addDependency(files.mountTargetsReady);
  template().resourceCountIs('Custom::CdkEfsKitMountTargetsReady', 1);
});

test('is cdk-nag clean', () => {
  mountedFunction();
  expect(nagErrors(files)).toEqual([]);
});

test('an imported file system has no gate: its mount targets are not this app\'s', () => {
  const imported = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Imported', {
    fileSystemId: 'fs-0123456789abcdef0', bucket: s3.Bucket.fromBucketName(stack, 'Theirs', 'theirs'), vpc,
    securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'Sg', 'sg-0123456789abcdef0'),
  });
  new lambda.Function(stack, 'Other', {
    runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => 1;'), vpc,
  }).node.addDependency(imported.mountTargetsReady);
  template().resourceCountIs('Custom::CdkEfsKitMountTargetsReady', 0);
});

test('changing readinessGateSubnets is an Update of the same gate, with the same ServiceToken (CloudFormation refuses another)', () => {
  const gateOf = (readinessGateSubnets?: (network: ec2.Vpc) => ec2.SubnetSelection) => {
    const scope = new Stack(new App(), 'Test');
    const network = new ec2.Vpc(scope, 'Vpc', { maxAzs: 2, natGateways: 1 });
    const s3Files = new S3FilesFileSystem(scope, 'Files', { vpc: network, readinessGateSubnets: readinessGateSubnets?.(network) });
    const fn = new lambda.Function(scope, 'Fn', { runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => 1;'), vpc: network });
    s3Files.mountOnLambda(fn, s3Files.addAccessPoint('Shared', AccessPointPreset.applicationUser('/shared')), { mountPath: '/mnt/shared' });
    return Template.fromStack(scope).findResources('Custom::CdkEfsKitMountTargetsReady');
  };
  const before = gateOf();
  const after = gateOf((network) => ({ subnets: [network.privateSubnets[0]] }));
  expect(Object.keys(after)).toEqual(Object.keys(before));
  const [id] = Object.keys(before);
  expect(after[id].Properties.ServiceToken).toEqual(before[id].Properties.ServiceToken);
});
