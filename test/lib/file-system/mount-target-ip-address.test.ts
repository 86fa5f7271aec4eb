import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AccessPointPreset, MountTargetIpAddressType, SharedFileSystem } from '../../../lib';
import { EFS_UTILS_MIN_IPV6_VERSION, renderEc2MountScript } from '../../../lib/file-system/ec2-mount-script';
import { cfnLintErrors, nagErrors } from '../../helpers/checks';
import { vpcWithEveryFamily } from '../../helpers/ipv6-vpc';

let stack: Stack;

beforeEach(() => {
  stack = new Stack(new App(), 'Test');
});

const dualStackVpc = () => new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1, ipProtocol: ec2.IpProtocol.DUAL_STACK });
const ipv4Vpc = () => new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });

/** A dual-stack VPC whose isolated subnets are made IPv6-only (aws-cdk's Vpc makes none itself). */
function vpcWithIpv6OnlySubnets(): ec2.Vpc {
  const vpc = new ec2.Vpc(stack, 'Vpc', {
    maxAzs: 2, natGateways: 0, ipProtocol: ec2.IpProtocol.DUAL_STACK,
    subnetConfiguration: [{ name: 'Public', subnetType: ec2.SubnetType.PUBLIC }, { name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
  });
  for (const subnet of vpc.isolatedSubnets) {
    const cfn = subnet.node.defaultChild as ec2.CfnSubnet;
    cfn.ipv6Native = true;
    cfn.cidrBlock = undefined;
  }
  return vpc;
}

function newFunction(vpc: ec2.IVpc, props: Partial<lambda.FunctionProps> = {}): lambda.Function {
  return new lambda.Function(stack, 'Fn', {
    runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => 1;'), vpc, ...props,
  });
}

describe('dual-stack mount targets', () => {
  let vpc: ec2.Vpc;
  let files: SharedFileSystem;
  beforeEach(() => {
    vpc = dualStackVpc();
    files = new SharedFileSystem(stack, 'Files', { vpc, ipAddressType: MountTargetIpAddressType.DUAL_STACK });
  });

  test('sets IpAddressType on every mount target, and the gate gets it', () => {
    const ap = files.addAccessPoint('Jobs', AccessPointPreset.applicationUser('/jobs'));
    files.mountOnLambda(newFunction(vpc, { allowAllIpv6Outbound: true, ipv6AllowedForDualStack: true }), ap);
    const template = Template.fromStack(stack);
    const mountTargets = Object.values(template.findResources('AWS::EFS::MountTarget'));
    expect(mountTargets).toHaveLength(2);
    for (const mt of mountTargets) expect(mt.Properties.IpAddressType).toBe('DUAL_STACK');
    const [gate] = Object.values(template.findResources('Custom::CdkEfsKitMountTargetsReady'));
    expect(gate.Properties.MountTargets.map((t: any) => t.IpAddressType)).toEqual(['DUAL_STACK', 'DUAL_STACK']);
    expect(files.mountTargetIpAddressType).toBe(MountTargetIpAddressType.DUAL_STACK);
  });

  test('warns when a client group allows all outbound IPv4 but no IPv6 (amazon-efs-utils may pick the IPv6 address)', () => {
    const ap = files.addAccessPoint('Jobs', AccessPointPreset.applicationUser('/jobs'));
    files.mountOnLambda(newFunction(vpc), ap);
    Annotations.fromStack(stack).hasWarning('/Test/Fn', Match.stringLikeRegexp('DUAL_STACK.*allows all outbound IPv4 and no IPv6.*cdk-efs-kit:ipv6EgressBlocked'));
  });

  test('adds an egress rule on 2049 to the mount targets\' group for a client group that allows no outbound traffic', () => {
    const sg = new ec2.SecurityGroup(stack, 'HostSg', { vpc, allowAllOutbound: false });
    const host = new ec2.Instance(stack, 'Host', {
      vpc, instanceType: new ec2.InstanceType('t3.micro'), machineImage: ec2.MachineImage.latestAmazonLinux2023(), securityGroup: sg,
    });
    files.mountOnEc2(host);
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::EC2::SecurityGroupEgress', {
      GroupId: stack.resolve(sg.securityGroupId), DestinationSecurityGroupId: Match.anyValue(), FromPort: 2049, ToPort: 2049,
    });
    expect(Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('ipv6EgressBlocked'))).toEqual([]);
  });

  test('an ECS service and an EC2 host with IPv6 egress: no warning, cdk-nag and cfn-lint clean', () => {
    const ap = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
    const cluster = new ecs.Cluster(stack, 'Cluster', { vpc });
    const task = new ecs.FargateTaskDefinition(stack, 'Task');
    task.addContainer('app', { image: ecs.ContainerImage.fromRegistry('public.ecr.aws/nginx/nginx:stable') });
    const serviceSg = new ec2.SecurityGroup(stack, 'ServiceSg', { vpc, allowAllIpv6Outbound: true });
    const service = new ecs.FargateService(stack, 'Service', { cluster, taskDefinition: task, securityGroups: [serviceSg] });
    files.mountOnEcsService(service, ap, { containerPath: '/data' });
    const host = new ec2.Instance(stack, 'Host', {
      vpc, instanceType: new ec2.InstanceType('t3.micro'), machineImage: ec2.MachineImage.latestAmazonLinux2023(), allowAllIpv6Outbound: true,
    });
    files.mountOnEc2(host, { accessPoint: ap });
    expect(Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('ipv6EgressBlocked'))).toEqual([]);
    const template = Template.fromStack(stack);
    expect(JSON.stringify(template.findResources('AWS::EC2::Instance'))).toContain(`amazon-efs-utils ${EFS_UTILS_MIN_IPV6_VERSION} or later`);
    expect(nagErrors(stack).filter((f) => f.includes('/Files/') || f.includes('IAM5'))).toEqual([]);
    expect(cfnLintErrors(template.toJSON())).toEqual([]);
  });
});

describe('IPv6-only mount targets', () => {
  let vpc: ec2.Vpc;
  let files: SharedFileSystem;
  beforeEach(() => {
    vpc = vpcWithIpv6OnlySubnets();
    files = new SharedFileSystem(stack, 'Files', { vpc, ipAddressType: MountTargetIpAddressType.IPV6_ONLY });
  });

  test('are made in IPv6-only subnets', () => {
    Template.fromStack(stack).allResourcesProperties('AWS::EFS::MountTarget', { IpAddressType: 'IPV6_ONLY' });
  });

  test('fails when a Lambda client lacks ipv6AllowedForDualStack', () => {
    const ap = files.addAccessPoint('Jobs', AccessPointPreset.applicationUser('/jobs'));
    expect(() => files.mountOnLambda(newFunction(vpc, { vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC }, allowPublicSubnet: true }), ap)).toThrow(
      'SharedFileSystem(Test/Files).mountOnLambda(Test/Fn): the mount targets are IPV6_ONLY, and a function reaches them over IPv6 only from dual-stack subnets with ipv6AllowedForDualStack (ipv6_allowed_for_dual_stack): true; give the function both, got ipv6AllowedForDualStack undefined.');
  });

  test('fails when a client group allows all outbound IPv4 but no IPv6', () => {
    const host = new ec2.Instance(stack, 'Host', {
      vpc, vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC }, instanceType: new ec2.InstanceType('t3.micro'), machineImage: ec2.MachineImage.latestAmazonLinux2023(),
    });
    expect(() => files.mountOnEc2(host)).toThrow(/the mount targets are IPV6_ONLY, but security group Test\/Host\/InstanceSecurityGroup allows all outbound IPv4 and no IPv6: give it allowAllIpv6Outbound \(allow_all_ipv6_outbound\): true/);
  });

  test('fails at the readiness gate, whose function cannot run in the mount targets\' IPv6-only subnets, naming readinessGateSubnets', () => {
    const host = new ec2.Instance(stack, 'Host', {
      vpc, vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC }, instanceType: new ec2.InstanceType('t3.micro'),
      machineImage: ec2.MachineImage.latestAmazonLinux2023(), allowAllIpv6Outbound: true,
    });
    expect(() => files.mountOnEc2(host)).toThrow('SharedFileSystem(Test/Files) readiness gate (every mount helper, seed and probe waits for it): readinessGateSubnets (readiness_gate_subnets) must be dual-stack subnets '
      + 'of the mount targets\' VPC (Lambda cannot run in IPv6-only subnets, and reaches IPv6 mount targets only from dual-stack ones), but Test/Vpc/IsolatedSubnet1 is IPv6-only, Test/Vpc/IsolatedSubnet2 is IPv6-only, '
      + 'got ["Test/Vpc/IsolatedSubnet1","Test/Vpc/IsolatedSubnet2"].');
  });
});

describe('IPv6-only mount targets with the readiness gate in dual-stack subnets', () => {
  let vpc: ec2.Vpc;
  /** Isolated groups DualStack, Ipv6Only (for the mount targets) and Ipv4Only. */
  beforeEach(() => {
    vpc = vpcWithEveryFamily(stack);
  });
  const newFiles = (readinessGateSubnets?: ec2.SubnetSelection) => new SharedFileSystem(stack, 'Files', {
    vpc, vpcSubnets: { subnetGroupName: 'Ipv6Only' }, ipAddressType: MountTargetIpAddressType.IPV6_ONLY, readinessGateSubnets,
  });

  test('runs the gate where readinessGateSubnets says, sending IPv6, and waits for each mount target\'s IPv6 address', () => {
    const files = newFiles({ subnetGroupName: 'DualStack' });
    const ap = files.addAccessPoint('Jobs', AccessPointPreset.applicationUser('/jobs'));
    const fn = newFunction(vpc, { vpcSubnets: { subnetGroupName: 'DualStack' }, allowAllIpv6Outbound: true, ipv6AllowedForDualStack: true });
    files.mountOnLambda(fn, ap);
    const template = Template.fromStack(stack);
    const dualStack = vpc.selectSubnets({ subnetGroupName: 'DualStack' }).subnets.map((s) => stack.resolve(s.subnetId));
    template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.onEvent', VpcConfig: Match.objectLike({ SubnetIds: dualStack, Ipv6AllowedForDualStack: true }),
    });
    const [gate] = Object.values(template.findResources('Custom::CdkEfsKitMountTargetsReady'));
    // No IPv4 address, and no GetAtt for the IPv6 one: the handler reads it from DescribeMountTargets.
    expect(gate.Properties.MountTargets.map((t: any) => [t.IpAddressType, t.IpAddress, t.Ipv6Address])).toEqual([['IPV6_ONLY', undefined, undefined], ['IPV6_ONLY', undefined, undefined]]);
    expect(JSON.stringify(template.toJSON())).toContain('elasticfilesystem:DescribeMountTargets');
    expect(Object.values(template.findResources('AWS::Lambda::Function')).find((r) => r.Properties.Handler === 'index.handler')!.DependsOn)
      .toContain(Object.keys(template.findResources('Custom::CdkEfsKitMountTargetsReady'))[0]);
    expect(cfnLintErrors(template.toJSON())).toEqual([]);
  });

  test('fails when a Lambda client with ipv6AllowedForDualStack runs in IPv6-only subnets, where Lambda cannot', () => {
    const files = newFiles({ subnetGroupName: 'DualStack' });
    const ap = files.addAccessPoint('Jobs', AccessPointPreset.applicationUser('/jobs'));
    const fn = newFunction(vpc, { vpcSubnets: { subnetGroupName: 'Ipv6Only' }, allowAllIpv6Outbound: true, ipv6AllowedForDualStack: true });
    expect(() => files.mountOnLambda(fn, ap)).toThrow('SharedFileSystem(Test/Files).mountOnLambda(Test/Fn): the function\'s vpcSubnets (vpc_subnets) must be dual-stack subnets of the mount targets\' VPC '
      + '(Lambda cannot run in IPv6-only subnets, and reaches IPv6 mount targets only from dual-stack ones), but Test/Vpc/Ipv6OnlySubnet1 is IPv6-only, Test/Vpc/Ipv6OnlySubnet2 is IPv6-only, '
      + 'got ["Test/Vpc/Ipv6OnlySubnet1","Test/Vpc/Ipv6OnlySubnet2"].');
  });

  test('fails when a Lambda client with ipv6AllowedForDualStack runs in subnets without an IPv6 CIDR', () => {
    const files = newFiles({ subnetGroupName: 'DualStack' });
    const ap = files.addAccessPoint('Jobs', AccessPointPreset.applicationUser('/jobs'));
    const fn = newFunction(vpc, { vpcSubnets: { subnetGroupName: 'Ipv4Only' }, allowAllIpv6Outbound: true, ipv6AllowedForDualStack: true });
    expect(() => files.mountOnLambda(fn, ap)).toThrow(/mountOnLambda\(Test\/Fn\): the function's vpcSubnets \(vpc_subnets\) must be dual-stack subnets .* but Test\/Vpc\/Ipv4OnlySubnet1 has no IPv6 CIDR, Test\/Vpc\/Ipv4OnlySubnet2 has no IPv6 CIDR/);
  });

  test('does not check a Lambda client\'s subnets the app does not know (imported by id)', () => {
    const files = newFiles({ subnetGroupName: 'DualStack' });
    const ap = files.addAccessPoint('Jobs', AccessPointPreset.applicationUser('/jobs'));
    const subnet = ec2.Subnet.fromSubnetAttributes(stack, 'Elsewhere', { subnetId: 'subnet-0123456789abcdef0', availabilityZone: 'us-east-1a' });
    const fn = newFunction(vpc, { vpcSubnets: { subnets: [subnet] }, allowAllIpv6Outbound: true, ipv6AllowedForDualStack: true });
    files.mountOnLambda(fn, ap);
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::Function', { VpcConfig: Match.objectLike({ SubnetIds: ['subnet-0123456789abcdef0'], Ipv6AllowedForDualStack: true }) });
  });

  test('fails when readinessGateSubnets are IPv6-only too, naming them', () => {
    const files = newFiles({ subnetGroupName: 'Ipv6Only' });
    expect(() => files.mountTargetsReady).toThrow(/readinessGateSubnets \(readiness_gate_subnets\) must be dual-stack subnets .* but Test\/Vpc\/Ipv6OnlySubnet1 is IPv6-only/);
  });

  test('fails when readinessGateSubnets are in a zone without a mount target, where the file system\'s name does not resolve', () => {
    const zonal = new Stack(new App(), 'Zonal', { env: { account: '123456789012', region: 'us-east-1' } });
    const zonalVpc = new ec2.Vpc(zonal, 'Vpc', {
      availabilityZones: ['us-east-1a', 'us-east-1b'], natGateways: 0, ipProtocol: ec2.IpProtocol.DUAL_STACK,
      subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
    });
    const files = new SharedFileSystem(zonal, 'Files', { vpc: zonalVpc, vpcSubnets: { availabilityZones: ['us-east-1a'] }, readinessGateSubnets: { availabilityZones: ['us-east-1b'] } });
    expect(() => files.mountTargetsReady).toThrow(/readinessGateSubnets \(readiness_gate_subnets\) must be in zones with a mount target \(us-east-1a\), where the file system's name resolves, but Zonal\/Vpc\/IsolatedSubnet2 is in us-east-1b/);
  });
});

describe('subnets checked against the address type', () => {
  test('fails when DUAL_STACK mount targets would go to subnets without an IPv6 CIDR', () => {
    const vpc = ipv4Vpc();
    expect(() => new SharedFileSystem(stack, 'Files', { vpc, ipAddressType: MountTargetIpAddressType.DUAL_STACK })).toThrow(
      /^SharedFileSystem\(Test\/Files\): ipAddressType \(ip_address_type\) DUAL_STACK needs dual-stack subnets \(an IPv4 and an IPv6 CIDR\), but subnet Test\/Vpc\/PrivateSubnet1 has no IPv6 CIDR; pick other vpcSubnets \(vpc_subnets\) or another ipAddressType, got ipAddressType DUAL_STACK\.$/);
  });

  test('fails when IPV6_ONLY mount targets would go to dual-stack subnets (EFS refuses them there)', () => {
    const vpc = dualStackVpc();
    expect(() => new SharedFileSystem(stack, 'Files', { vpc, ipAddressType: MountTargetIpAddressType.IPV6_ONLY })).toThrow(/needs IPv6-only subnets .*but subnet Test\/Vpc\/PrivateSubnet1 is dual-stack/);
  });

  test('fails when IPV4_ONLY mount targets would go to IPv6-only subnets', () => {
    const vpc = vpcWithIpv6OnlySubnets();
    expect(() => new SharedFileSystem(stack, 'Files', { vpc, ipAddressType: MountTargetIpAddressType.IPV4_ONLY })).toThrow(/IPV4_ONLY needs subnets with an IPv4 CIDR .*is IPv6-only/);
  });

  test('does not check imported subnets, whose CIDRs the app does not know', () => {
    const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Imported', {
      vpcId: 'vpc-0123456789abcdef0', availabilityZones: ['us-east-1a'], privateSubnetIds: ['subnet-0123456789abcdef0'],
    });
    new SharedFileSystem(stack, 'Files', { vpc, ipAddressType: MountTargetIpAddressType.DUAL_STACK });
    Template.fromStack(stack).hasResourceProperties('AWS::EFS::MountTarget', { IpAddressType: 'DUAL_STACK', SubnetId: 'subnet-0123456789abcdef0' });
  });

  test('sets no IpAddressType when none is given (EFS makes IPV4_ONLY ones)', () => {
    new SharedFileSystem(stack, 'Files', { vpc: ipv4Vpc() });
    Template.fromStack(stack).allResourcesProperties('AWS::EFS::MountTarget', { IpAddressType: Match.absent() });
  });
});

describe('the EC2 script\'s amazon-efs-utils version check (run in bash with a stand-in mount.efs)', () => {
  // The stand-in prints what `mount.efs --version` prints; no NFS mount can run here (no NFS client in this kernel).
  const lines = renderEc2MountScript({
    fileSystemId: 'fs-0123456789abcdef0', dnsName: 'fs-0123456789abcdef0.efs.us-east-1.amazonaws.com', mountPoint: '/mnt/efs',
    readOnly: false, nfsFallback: 'refusedByPolicy', minimumEfsUtilsVersion: EFS_UTILS_MIN_IPV6_VERSION,
  });
  const check = lines.find((l) => l.startsWith('efs_utils_at_least()'))!;

  function atLeast(version: string): boolean {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'efs-utils-'));
    try {
      fs.writeFileSync(path.join(dir, 'mount.efs'), `#!/bin/sh\necho "/sbin/mount.efs Version: ${version}"\n`, { mode: 0o755 });
      const out = execFileSync('bash', ['-c', `${check}\nif efs_utils_at_least; then echo yes; else echo no; fi`], { encoding: 'utf8', env: { PATH: `${dir}:${process.env.PATH}` } });
      return out.trim() === 'yes';
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  test.each([['1.35.0', false], ['2.4.1', false], ['2.4.2', true], ['2.10.0', true], ['3.0.0', true]])('%s is new enough: %s', (version, expected) => {
    expect(atLeast(version)).toBe(expected);
  });

  test('IPv4-only mount targets get no version check', () => {
    const ipv4 = renderEc2MountScript({
      fileSystemId: 'fs-0123456789abcdef0', dnsName: 'x', mountPoint: '/mnt/efs', readOnly: false, nfsFallback: 'refusedByPolicy',
    });
    expect(ipv4.some((l) => l.includes('efs_utils_at_least'))).toBe(false);
  });
});
