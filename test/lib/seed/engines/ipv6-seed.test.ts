import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AccessPointPreset, MountTargetIpAddressType, SeedEngine, SeedOptions, SeedSource, SharedFileSystem } from '../../../../lib';
import { cfnLintErrors, nagErrors } from '../../../helpers/checks';
import { vpcWithEveryFamily } from '../../../helpers/ipv6-vpc';

// A seed on mount targets with IPv6 addresses: its functions run in the seed's vpcSubnets (Lambda
// cannot run in the IPv6-only subnets of IPV6_ONLY mount targets), send IPv6, and reach S3 over IPv4.

let stack: Stack;
let vpc: ec2.Vpc;
let bucket: s3.Bucket;

beforeEach(() => {
  stack = new Stack(new App(), 'Test');
  vpc = vpcWithEveryFamily(stack);
  vpc.addGatewayEndpoint('S3', { service: ec2.GatewayVpcEndpointAwsService.S3 });
  bucket = new s3.Bucket(stack, 'Lake', { enforceSSL: true, serverAccessLogsPrefix: 'access-logs/' });
});

function fileSystem(ipAddressType: MountTargetIpAddressType, mountTargets: string): { files: SharedFileSystem; content: efs.AccessPoint } {
  const files = new SharedFileSystem(stack, 'Files', {
    vpc, vpcSubnets: { subnetGroupName: mountTargets }, ipAddressType, readinessGateSubnets: { subnetGroupName: 'DualStack' },
  });
  return { files, content: files.addAccessPoint('Content', AccessPointPreset.applicationUser('/data')) };
}
const ipv6Only = () => fileSystem(MountTargetIpAddressType.IPV6_ONLY, 'Ipv6Only');

function seed(files: SharedFileSystem, content: efs.AccessPoint, options: Partial<SeedOptions> = {}, id = 'Seed') {
  return files.addSeed(id, { accessPoint: content, source: SeedSource.s3(bucket, `${id}/`), targetPath: `/${id}`, ...options });
}

const template = () => Template.fromStack(stack);
const subnetIds = (group: string) => vpc.selectSubnets({ subnetGroupName: group }).subnets.map((s) => stack.resolve(s.subnetId));
/** The functions of a kind, by the handler they run. */
const functions = (handler: string) => Object.values<any>(template().findResources('AWS::Lambda::Function', { Properties: { Handler: handler } }));
const seedFunctions = () => functions('index.onEvent').concat(functions('index.isComplete'))
  .filter((fn) => String(fn.Properties.Description).startsWith('cdk-efs-kit seed handler'));
const groupOf = (fn: any) => fn.Properties.VpcConfig.SecurityGroupIds[0]['Fn::GetAtt'][0] as string;

describe('single-function seed', () => {
  test('IPV6_ONLY: runs in the dual-stack vpcSubnets given, sending IPv6, with a group that allows 2049 to the mount targets and HTTPS over IPv4', () => {
    const { files, content } = ipv6Only();
    seed(files, content, { vpcSubnets: { subnetGroupName: 'DualStack' } });
    const fns = seedFunctions();
    expect(fns).toHaveLength(2);
    for (const fn of fns) {
      expect(fn.Properties.VpcConfig).toEqual({
        SubnetIds: subnetIds('DualStack'), Ipv6AllowedForDualStack: true,
        SecurityGroupIds: [{ 'Fn::GetAtt': [expect.stringMatching(/SecurityGroup/), 'GroupId'] }],
      });
    }
    // Each of the two functions has its group; each group: HTTPS to any IPv4 inline, 2049 to the mount targets by group, nothing over IPv6.
    for (const id of fns.map(groupOf)) {
      const group = template().toJSON().Resources[id];
      expect(group.Properties.SecurityGroupEgress).toEqual([{ CidrIp: '0.0.0.0/0', FromPort: 443, ToPort: 443, IpProtocol: 'tcp', Description: expect.stringContaining('S3') }]);
      template().hasResourceProperties('AWS::EC2::SecurityGroupEgress', {
        GroupId: { 'Fn::GetAtt': [id, 'GroupId'] }, DestinationSecurityGroupId: { 'Fn::GetAtt': [Match.stringLikeRegexp('^FilesEfsSecurityGroup'), 'GroupId'] },
        FromPort: 2049, ToPort: 2049, IpProtocol: 'tcp',
      });
      expect(Object.keys(template().findResources('AWS::EC2::SecurityGroupEgress', { Properties: { GroupId: { 'Fn::GetAtt': [id, 'GroupId'] } } }))).toHaveLength(1);
    }
    expect(JSON.stringify(template().findResources('AWS::EC2::SecurityGroup'))).not.toContain('CidrIpv6');
  });

  test('IPV6_ONLY: synthesizes without warnings, cdk-nag and cfn-lint clean', () => {
    vpc.addFlowLog('FlowLog');
    const { files, content } = ipv6Only();
    seed(files, content, { vpcSubnets: { subnetGroupName: 'DualStack' } });
    seed(files, content, { vpcSubnets: { subnetGroupName: 'DualStack' }, engine: SeedEngine.distributedMap() }, 'Mapped');
    Annotations.fromStack(stack).hasNoWarning('*', Match.anyValue());
    expect(nagErrors(stack)).toEqual([]);
    expect(cfnLintErrors(template().toJSON())).toEqual([]);
  });

  test('fails when the file system is IPV6_ONLY and vpcSubnets is left out, naming the seed\'s prop', () => {
    const { files, content } = ipv6Only();
    expect(() => seed(files, content)).toThrow('FileSystemSeed(Test/Files/Seed): vpcSubnets (vpc_subnets) is required when the mount targets are IPV6_ONLY: Lambda cannot run in their IPv6-only subnets (the default); '
      + 'give dual-stack subnets of the file system\'s VPC in zones with a mount target (those of readinessGateSubnets (readiness_gate_subnets) fit), got undefined.');
  });

  test('fails when vpcSubnets are IPv6-only', () => {
    const { files, content } = ipv6Only();
    expect(() => seed(files, content, { vpcSubnets: { subnetGroupName: 'Ipv6Only' } })).toThrow(
      /^FileSystemSeed\(Test\/Files\/Seed\): vpcSubnets \(vpc_subnets\) must be dual-stack subnets .* but Test\/Vpc\/Ipv6OnlySubnet1 is IPv6-only/);
  });

  test('fails when vpcSubnets have no IPv6 CIDR', () => {
    const { files, content } = ipv6Only();
    expect(() => seed(files, content, { vpcSubnets: { subnetGroupName: 'Ipv4Only' } })).toThrow(/vpcSubnets \(vpc_subnets\) must be dual-stack subnets .* but Test\/Vpc\/Ipv4OnlySubnet1 has no IPv6 CIDR/);
  });

  test('DUAL_STACK: runs in the mount targets\' dual-stack subnets by default, sending IPv6, without the egress warning', () => {
    const { files, content } = fileSystem(MountTargetIpAddressType.DUAL_STACK, 'DualStack');
    seed(files, content);
    for (const fn of seedFunctions()) {
      expect(fn.Properties.VpcConfig).toEqual(expect.objectContaining({ SubnetIds: subnetIds('DualStack'), Ipv6AllowedForDualStack: true }));
      expect(template().toJSON().Resources[groupOf(fn)].Properties.SecurityGroupEgress).toEqual([expect.objectContaining({ CidrIp: '0.0.0.0/0', FromPort: 443 })]);
    }
    Annotations.fromStack(stack).hasNoWarning('*', Match.anyValue());
  });

  test('IPV4_ONLY: neither IPv6 nor a group of its own; vpcSubnets given places the functions', () => {
    const { files, content } = fileSystem(MountTargetIpAddressType.IPV4_ONLY, 'Ipv4Only');
    seed(files, content, { vpcSubnets: { subnetGroupName: 'DualStack' } });
    for (const fn of seedFunctions()) {
      expect(fn.Properties.VpcConfig.SubnetIds).toEqual(subnetIds('DualStack'));
      expect(fn.Properties.VpcConfig.Ipv6AllowedForDualStack).toBeUndefined();
      expect(groupOf(fn)).toMatch(/FunctionSecurityGroup|ResumeFunctionSecurityGroup/);
    }
  });

  test('fails when vpcSubnets are in a zone without a mount target (IPV4_ONLY too)', () => {
    stack = new Stack(new App(), 'Zonal', { env: { account: '123456789012', region: 'us-east-1' } });
    vpc = vpcWithEveryFamily(stack, 'Vpc', { maxAzs: undefined, availabilityZones: ['us-east-1a', 'us-east-1b'] });
    bucket = new s3.Bucket(stack, 'Lake');
    const files = new SharedFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnetGroupName: 'Ipv4Only', availabilityZones: ['us-east-1a'] } });
    const content = files.addAccessPoint('Content', AccessPointPreset.applicationUser('/data'));
    expect(() => seed(files, content, { vpcSubnets: { subnetGroupName: 'DualStack' } })).toThrow(
      /FileSystemSeed\(Zonal\/Files\/Seed\): vpcSubnets \(vpc_subnets\) must be in zones with a mount target \(us-east-1a\), .* but Zonal\/Vpc\/DualStackSubnet2 is in us-east-1b/);
  });

  test('fails at synth when the seed\'s vpcSubnets have no route to S3, naming them', () => {
    stack = new Stack(new App(), 'Test');
    vpc = vpcWithEveryFamily(stack);
    bucket = new s3.Bucket(stack, 'Lake');
    const { files, content } = ipv6Only();
    seed(files, content, { vpcSubnets: { subnetGroupName: 'DualStack' } });
    expect(() => template()).toThrow(/FileSystemSeed\(Test\/Files\/Seed\): the seed functions run in the seed's vpcSubnets and read the source from S3, but Test\/Vpc\/DualStackSubnet1, Test\/Vpc\/DualStackSubnet2 have no route to S3 .* or give the seed vpcSubnets with egress/);
  });
});

describe('the shared provider', () => {
  test('two seeds in the same subnets share one provider; one in other vpcSubnets gets its own', () => {
    const { files, content } = fileSystem(MountTargetIpAddressType.DUAL_STACK, 'DualStack');
    seed(files, content, {}, 'One');
    seed(files, content, { vpcSubnets: { subnetGroupName: 'DualStack' } }, 'Two');
    seed(files, content, { vpcSubnets: { subnetGroupName: 'DualStack', availabilityZones: [vpc.availabilityZones[0]] } }, 'Three');
    const serviceTokens = Object.fromEntries(Object.entries<any>(template().findResources('Custom::CdkEfsKitSeed'))
      .map(([id, r]) => [id.replace(/^Files([A-Z][a-z]+)ResourceViaSingleFunction[0-9a-f]{8}[0-9A-F]{8}$/, '$1'), JSON.stringify(r.Properties.ServiceToken)]));
    expect(Object.keys(serviceTokens).sort()).toEqual(['One', 'Three', 'Two']);
    expect(serviceTokens.One).toEqual(serviceTokens.Two);
    expect(serviceTokens.Three).not.toEqual(serviceTokens.One);
    template().resourceCountIs('AWS::StepFunctions::StateMachine', 2);
    expect(seedFunctions()).toHaveLength(4);
  });
});

describe('Distributed Map engine', () => {
  test('IPV6_ONLY: the workers run in the vpcSubnets given, sending IPv6; the run handlers stay outside the VPC', () => {
    const { files, content } = ipv6Only();
    seed(files, content, { vpcSubnets: { subnetGroupName: 'DualStack' }, engine: SeedEngine.distributedMap() });
    const [worker] = functions('index.copyBatch');
    expect(worker.Properties.VpcConfig).toEqual(expect.objectContaining({ SubnetIds: subnetIds('DualStack'), Ipv6AllowedForDualStack: true }));
    expect(template().toJSON().Resources[groupOf(worker)].Properties.SecurityGroupEgress).toEqual([expect.objectContaining({ CidrIp: '0.0.0.0/0', FromPort: 443, ToPort: 443 })]);
    const runHandlers = Object.entries<any>(template().findResources('AWS::Lambda::Function'))
      .filter(([id]) => /^CdkEfsKitSeedDistributedMapRun\w+(StartExecution|WaitForExecution)[0-9A-F]{8}$/.test(id));
    expect(runHandlers).toHaveLength(2);
    for (const [, fn] of runHandlers) expect(fn.Properties.VpcConfig).toBeUndefined();
  });

  test('fails when the file system is IPV6_ONLY and vpcSubnets is left out', () => {
    const { files, content } = ipv6Only();
    expect(() => seed(files, content, { engine: SeedEngine.distributedMap() })).toThrow(/^FileSystemSeed\(Test\/Files\/Seed\): vpcSubnets \(vpc_subnets\) is required when the mount targets are IPV6_ONLY/);
  });
});

describe('DataSync engine', () => {
  test('fails on an IPV6_ONLY file system, naming the engine and what to use instead', () => {
    const { files, content } = ipv6Only();
    expect(() => seed(files, content, { engine: SeedEngine.dataSync() })).toThrow('FileSystemSeed(Test/Files/Seed): SeedEngine.dataSync() cannot seed a file system whose mount targets are IPV6_ONLY: '
      + 'its EFS location runs in the file system\'s first mount target subnet and reaches the mount targets over IPv6 only, which DataSync does not document for EFS locations; '
      + 'use SeedEngine.singleFunction() or SeedEngine.distributedMap() with the seed\'s vpcSubnets (vpc_subnets) (dual-stack subnets in zones with a mount target), got mountTargetIpAddressType (mount_target_ip_address_type) IPV6_ONLY.');
  });

  test('fails when vpcSubnets is given: DataSync runs no function in the VPC', () => {
    const { files, content } = fileSystem(MountTargetIpAddressType.IPV4_ONLY, 'Ipv4Only');
    expect(() => seed(files, content, { engine: SeedEngine.dataSync(), vpcSubnets: { subnetGroupName: 'DualStack' } })).toThrow(
      /^FileSystemSeed\(Test\/Files\/Seed\): vpcSubnets \(vpc_subnets\) is not supported by SeedEngine.dataSync\(\): DataSync runs no function in the VPC.*got \{ subnetGroupName \}\./);
  });

  test('DUAL_STACK: still seeds', () => {
    const { files, content } = fileSystem(MountTargetIpAddressType.DUAL_STACK, 'DualStack');
    seed(files, content, { engine: SeedEngine.dataSync() });
    template().resourceCountIs('AWS::DataSync::LocationEFS', 1);
  });
});
