import * as path from 'path';
import { App, Duration, Size, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import {
  AccessPointPreset, BenchmarkProbe, FileSystemMonitoring, FileSystemSeed, ISharedFileSystem, MountTargetIpAddressType, SeedSource, SharedFileSystem,
} from '../../../lib';
import { cfnLintErrors, nagErrors } from '../../helpers/checks';

const GATE = 'Custom::CdkEfsKitMountTargetsReady';
const SITE = path.join(__dirname, '..', '..', 'apps', 'every-construct-site');
const FS_ID = 'fs-0123456789abcdef0';
const SG_ID = 'sg-0123456789abcdef0';

let stack: Stack;
let vpc: ec2.Vpc;

beforeEach(() => {
  stack = new Stack(new App(), 'Test');
  vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
});

function importById(extra: Partial<{ throughputMode: efs.ThroughputMode; oneZone: boolean; tlsEnforced: boolean; anonymousAccessAllowed: boolean }> = {}): ISharedFileSystem {
  return SharedFileSystem.fromFileSystemAttributes(stack, 'Legacy', {
    fileSystemId: FS_ID,
    vpc,
    securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'LegacySg', SG_ID),
    ...extra,
  });
}

function newFunction(id = 'Fn'): lambda.Function {
  return new lambda.Function(stack, id, {
    runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => 1;'), vpc,
  });
}

function newService(): ecs.FargateService {
  const cluster = new ecs.Cluster(stack, 'Cluster', { vpc });
  const task = new ecs.FargateTaskDefinition(stack, 'Task');
  task.addContainer('app', { image: ecs.ContainerImage.fromRegistry('public.ecr.aws/nginx/nginx:stable') });
  return new ecs.FargateService(stack, 'Service', { cluster, taskDefinition: task });
}

function newInstance(): ec2.Instance {
  return new ec2.Instance(stack, 'Host', { vpc, instanceType: new ec2.InstanceType('t3.micro'), machineImage: ec2.MachineImage.latestAmazonLinux2023() });
}

const gateIds = (t: Template) => Object.keys(t.findResources(GATE));
const dependsOnOf = (t: Template, type: string) => Object.values(t.findResources(type)).map((r) => (r.DependsOn ?? []) as string[]);

describe('an existing file system imported by id', () => {
  let files: ISharedFileSystem;
  let template: Template;

  beforeEach(() => {
    files = importById({ throughputMode: efs.ThroughputMode.BURSTING, oneZone: false });
    const site = files.addAccessPoint('Site', AccessPointPreset.applicationUser('/site'));
    files.addSeed('Content', { accessPoint: site, source: SeedSource.asset(SITE) });
    files.mountOnLambda(newFunction(), site, { mountPath: '/mnt/site' });
    files.mountOnEcsService(newService(), site, { containerPath: '/usr/share/nginx/html', readOnly: true });
    files.mountOnEc2(newInstance(), { accessPoint: site, mountPoint: '/mnt/site' });
    files.addProbe('Probe', { canary: { interval: Duration.minutes(30) } });
    files.addMonitoring('Monitoring');
    template = Template.fromStack(stack);
  });

  test('makes its access points on the file system id', () => {
    template.hasResourceProperties('AWS::EFS::AccessPoint', { FileSystemId: FS_ID, RootDirectory: Match.objectLike({ Path: '/site' }) });
    template.resourceCountIs('AWS::EFS::FileSystem', 0);
  });

  test('has one readiness gate, which reads the mount targets from DescribeMountTargets', () => {
    expect(gateIds(template)).toHaveLength(1);
    template.hasResourceProperties(GATE, { FileSystemId: FS_ID, MountTargets: Match.absent() });
  });

  test('makes every client depend on the gate: the Lambda function, the ECS service and task definition, the EC2 instance, the seed and probe functions', () => {
    const [gate] = gateIds(template);
    for (const type of ['AWS::ECS::Service', 'AWS::ECS::TaskDefinition', 'AWS::EC2::Instance']) {
      expect(dependsOnOf(template, type)[0]).toContain(gate);
    }
    const clientFunctions = Object.entries(template.findResources('AWS::Lambda::Function'))
      .filter(([, fn]) => fn.Properties.FileSystemConfigs !== undefined);
    expect(clientFunctions.length).toBeGreaterThanOrEqual(4); // the function, the seed's two, the probe
    for (const [, fn] of clientFunctions) expect(fn.DependsOn).toContain(gate);
  });

  test('opens port 2049 on the imported security group to each client', () => {
    const ingress = Object.values(template.findResources('AWS::EC2::SecurityGroupIngress')).filter((r) => r.Properties.GroupId === SG_ID);
    expect(ingress.every((r) => r.Properties.FromPort === 2049 && r.Properties.ToPort === 2049)).toBe(true);
    expect(ingress.map((r) => r.Properties.Description)).toEqual(expect.arrayContaining([
      expect.stringContaining('NFS from Test/Fn'), expect.stringContaining('NFS from Test/Service'), expect.stringContaining('NFS from Test/Host'),
    ]));
  });

  test('grants the clients ClientMount scoped to the access point on the imported file system\'s ARN', () => {
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((p) => p.Properties.PolicyDocument.Statement)
      .filter((s) => JSON.stringify(s.Action).includes('ClientMount'));
    expect(statements.length).toBeGreaterThanOrEqual(4);
    for (const s of statements) {
      expect(JSON.stringify(s.Resource)).toContain(`:file-system/${FS_ID}`);
      expect(s.Condition.Bool).toEqual({ 'elasticfilesystem:AccessedViaMountTarget': 'true' });
    }
  });

  test('monitors it with the throughput mode it was told: burst credit alarms for BURSTING', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { Dimensions: Match.arrayWith([{ Name: 'FileSystemId', Value: FS_ID }]), MetricName: 'BurstCreditBalance' });
  });

  test('mounts EC2 hosts with amazon-efs-utils only: its policy is unknown, so no plain NFS fallback', () => {
    const userData = JSON.stringify(template.findResources('AWS::EC2::Instance'));
    expect(userData).toContain(`${FS_ID}:/ /mnt/site efs`);
    expect(userData).not.toContain('nfs4');
    expect(userData).toContain('imported without its policy');
  });

  test('has no unacknowledged cdk-nag findings and passes cfn-lint', () => {
    expect(nagErrors(stack).filter((f) => f.includes('/Legacy/'))).toEqual([]);
    expect(cfnLintErrors(template.toJSON())).toEqual([]);
  });
});

describe('what cannot be known of an imported file system', () => {
  test('fails when addMonitoring lacks the throughput mode', () => {
    const files = importById({ oneZone: false });
    expect(() => files.addMonitoring('Monitoring')).toThrow(
      "SharedFileSystem(Test/Legacy).addMonitoring('Monitoring'): monitoring an imported file system needs throughputMode (throughput_mode) (the widgets, alarms and spend row depend on it); give it to SharedFileSystem.fromFileSystemAttributes or fromFileSystem, got undefined.");
  });

  test('monitors it without oneZone: storage at Regional prices, and the spend row says it assumed so', () => {
    const files = importById({ throughputMode: efs.ThroughputMode.ELASTIC });
    files.addMonitoring('Monitoring');
    const body = JSON.stringify(Template.fromStack(stack).findResources('AWS::CloudWatch::Dashboard'));
    expect(body).toContain('Storage at Regional prices: oneZone was not given, so the file system is taken as Regional (the common case)');
    // us-east-1's Regional Standard price, $0.30 a GB-month, not One Zone's $0.16.
    expect(body).toContain('FILL(standard_bytes,0)/1073741824*0.3*24/730');
    Annotations.fromStack(stack).hasNoWarning('*', Match.anyValue());
  });

  test('prices a One Zone one as One Zone when told', () => {
    importById({ throughputMode: efs.ThroughputMode.ELASTIC, oneZone: true }).addMonitoring('Monitoring');
    const body = JSON.stringify(Template.fromStack(stack).findResources('AWS::CloudWatch::Dashboard'));
    expect(body).toContain('Storage at One Zone prices.');
    expect(body).toContain('FILL(standard_bytes,0)/1073741824*0.16*24/730');
  });

  test('falls back to plain NFS on EC2 only when told the policy allows it', () => {
    const files = importById({ tlsEnforced: false, anonymousAccessAllowed: true });
    files.mountOnEc2(newInstance());
    expect(JSON.stringify(Template.fromStack(stack).findResources('AWS::EC2::Instance'))).toContain('nfs4');
  });
});

describe('an efs.FileSystem of this app, wrapped', () => {
  let plain: efs.FileSystem;
  beforeEach(() => {
    plain = new efs.FileSystem(stack, 'Plain', { vpc, encrypted: true });
  });

  test('gives the gate its mount targets from the template, so it calls no EFS API for them', () => {
    const files = SharedFileSystem.fromFileSystem(stack, 'PlainHelpers', plain, { vpc });
    files.mountOnLambda(newFunction(), files.addAccessPoint('Jobs', AccessPointPreset.applicationUser('/jobs')));
    const template = Template.fromStack(stack);
    const [gate] = Object.values(template.findResources(GATE));
    expect(gate.Properties.MountTargets).toHaveLength(2);
    expect(gate.Properties.MountTargets[0]).toEqual(expect.objectContaining({ MountTargetId: { Ref: expect.stringMatching(/^PlainEfsMountTarget/) }, AvailabilityZone: expect.anything(), IpAddress: expect.anything() }));
  });

  test('monitors with the modes the file system declares (CloudFormation\'s Bursting default)', () => {
    const files = SharedFileSystem.fromFileSystem(stack, 'PlainHelpers', plain, { vpc });
    expect(files.addMonitoring('Monitoring').throughputMode).toBe(efs.ThroughputMode.BURSTING);
  });

  test('reads Provisioned throughput from the file system', () => {
    const provisioned = new efs.FileSystem(stack, 'Provisioned', {
      vpc, encrypted: true, throughputMode: efs.ThroughputMode.PROVISIONED, provisionedThroughputPerSecond: Size.mebibytes(64),
    });
    const files = SharedFileSystem.fromFileSystem(stack, 'ProvisionedHelpers', provisioned, { vpc });
    expect(files.addMonitoring('Monitoring').throughputMode).toBe(efs.ThroughputMode.PROVISIONED);
  });

  test('adds file system policy statements to the efs.FileSystem it wraps', () => {
    const files = SharedFileSystem.fromFileSystem(stack, 'PlainHelpers', plain, { vpc });
    expect(files.addToResourcePolicy(new (require('aws-cdk-lib/aws-iam').PolicyStatement)({
      actions: ['elasticfilesystem:ClientMount'], principals: [new (require('aws-cdk-lib/aws-iam').AccountRootPrincipal)()],
    })).statementAdded).toBe(true);
  });
});

describe('the constructs take an imported file system', () => {
  test('FileSystemSeed, BenchmarkProbe and FileSystemMonitoring built directly', () => {
    const files = importById();
    const ap = files.addAccessPoint('Site', AccessPointPreset.applicationUser('/site'));
    const seed = new FileSystemSeed(stack, 'Seed', { fileSystem: files, accessPoint: ap, source: SeedSource.asset(SITE) });
    const probe = new BenchmarkProbe(stack, 'Probe', { fileSystem: files });
    new FileSystemMonitoring(stack, 'Monitoring', { fileSystem: files, throughputMode: efs.ThroughputMode.ELASTIC, seeds: [seed], probes: [probe] });
    const template = Template.fromStack(stack);
    // The probe found the VPC and the mount helper through the file system (no vpc given).
    expect(JSON.stringify(template.findResources('AWS::Lambda::Function'))).toContain('/mnt/');
    expect(Annotations.fromStack(stack).findError('*', Match.anyValue())).toEqual([]);
  });

  test('SharedFileSystem.isSharedFileSystem is false for an imported one', () => {
    expect(SharedFileSystem.isSharedFileSystem(importById())).toBe(false);
  });
});

describe('imported IPv6 mount targets', () => {
  test('EC2 hosts get amazon-efs-utils 2.4.2 or later and the address family lookup permissions', () => {
    // Dual-stack mount targets live in dual-stack subnets, where the readiness gate runs too.
    const vpc = new ec2.Vpc(stack, 'DualStackVpc', { maxAzs: 2, natGateways: 1, ipProtocol: ec2.IpProtocol.DUAL_STACK });
    const files = SharedFileSystem.fromFileSystemAttributes(stack, 'Legacy', {
      fileSystemId: FS_ID, vpc, securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'LegacySg', SG_ID, { allowAllOutbound: false }),
      mountTargetIpAddressType: MountTargetIpAddressType.DUAL_STACK,
    });
    const host = new ec2.Instance(stack, 'Host', {
      vpc, instanceType: new ec2.InstanceType('t3.micro'), machineImage: ec2.MachineImage.latestAmazonLinux2023(), allowAllIpv6Outbound: true,
    });
    files.mountOnEc2(host);
    const template = Template.fromStack(stack);
    expect(JSON.stringify(template.findResources('AWS::EC2::Instance'))).toContain('amazon-efs-utils 2.4.2 or later');
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap((p) => p.Properties.PolicyDocument.Statement);
    expect(statements).toEqual(expect.arrayContaining([
      expect.objectContaining({ Action: 'elasticfilesystem:DescribeMountTargets' }),
      { Effect: 'Allow', Action: 'ec2:DescribeAvailabilityZones', Resource: '*' },
    ]));
    // The wildcard DescribeAvailabilityZones needs is acknowledged; the instance's own findings are the test's.
    expect(nagErrors(stack).filter((f) => f.includes('IAM5'))).toEqual([]);
  });
});
