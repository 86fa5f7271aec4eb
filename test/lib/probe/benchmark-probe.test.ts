import { App, Duration, Size, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { CANARY_REQUEST, S3_FILES_CANARY_REQUEST } from '../../../lib/probe/contract/canary-requests';
import { DEFAULT_MAX_BYTES } from '../../../lib/probe/contract/limits';
import { parseRequest } from '../../../lambda/probe/request';
import { AccessPointPreset, BenchmarkProbe, FileSystemKind, LatencyPercentile, MountTargetIpAddressType, S3FilesFileSystem, SharedFileSystem } from '../../../lib';
import { cfnLintErrors, nagErrors } from '../../helpers/checks';
import { vpcWithEveryFamily } from '../../helpers/ipv6-vpc';

let stack: Stack;
let vpc: ec2.Vpc;
let files: SharedFileSystem;

beforeEach(() => {
  stack = new Stack(new App(), 'Test');
  vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
  vpc.addFlowLog('FlowLog');
  files = new SharedFileSystem(stack, 'Files', { vpc });
});

const template = () => Template.fromStack(stack);
const probeFunction = () => Object.values(template().findResources('AWS::Lambda::Function', { Properties: { Handler: 'index.handler', Description: Match.stringLikeRegexp('benchmark probe') } }));

describe('on a SharedFileSystem', () => {
  test('a Lambda function on nodejs22.x mounts its own access point at /mnt/probe, with a large thread pool, reserved concurrency 1 and a 15-minute budget', () => {
    files.addProbe('Probe');
    template().hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x',
      Handler: 'index.handler',
      MemorySize: 1769,
      Timeout: 900,
      ReservedConcurrentExecutions: 1,
      FileSystemConfigs: [{ Arn: Match.anyValue(), LocalMountPath: '/mnt/probe' }],
      Environment: {
        Variables: Match.objectLike({
          PROBE_MOUNT_PATH: '/mnt/probe', PROBE_FILE_SYSTEM_ID: { Ref: Match.stringLikeRegexp('^Files') }, PROBE_MAX_BYTES: String(8 * 1024 ** 3),
          PROBE_METRICS_NAMESPACE: 'CdkEfsKit', UV_THREADPOOL_SIZE: '256',
        }),
      },
    });
    template().hasResourceProperties('AWS::EFS::AccessPoint', {
      RootDirectory: { Path: '/cdk-efs-kit-probe', CreationInfo: { OwnerUid: '1000', OwnerGid: '1000', Permissions: '750' } },
      PosixUser: { Uid: '1000', Gid: '1000' },
    });
  });

  test('IAM lets the function mount and write through its access point only', () => {
    files.addProbe('Probe');
    template().hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({
          Action: ['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite'],
          Condition: {
            Bool: { 'elasticfilesystem:AccessedViaMountTarget': 'true' },
            StringEquals: { 'elasticfilesystem:AccessPointArn': Match.anyValue() },
          },
        })]),
      },
    });
  });

  test('a canary runs the light request on a schedule, without retries', () => {
    files.addProbe('Probe', { canary: { interval: Duration.minutes(10) } });
    template().hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(10 minutes)',
      Targets: [Match.objectLike({ Input: JSON.stringify(CANARY_REQUEST), RetryPolicy: { MaximumRetryAttempts: 0 } })],
    });
  });

  test('grantInvoke lets a principal invoke the probe', () => {
    const probe = files.addProbe('Probe');
    probe.grantInvoke(new iam.Role(stack, 'Ci', { assumedBy: new iam.AccountRootPrincipal() }));
    template().hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 'lambda:InvokeFunction' })]) },
      Roles: [{ Ref: Match.stringLikeRegexp('^Ci') }],
    });
  });

  test('tells its function the access point it makes and that one\'s POSIX user, for the handler\'s posix-identity check; not one it is given', () => {
    files.addProbe('Probe');
    files.addProbe('Given', { accessPoint: files.addAccessPoint('Mine', AccessPointPreset.applicationUser('/mine', { uid: 33, gid: 33 })) });
    const variables = (path: string) => probeFunction().find((f: any) => f.Properties.Description.endsWith(path))!.Properties.Environment.Variables;
    expect(variables('Files/Probe')).toMatchObject({ PROBE_ACCESS_POINT_ID: { Ref: expect.stringMatching(/^FilesProbeAccessPoint/) }, PROBE_ACCESS_POINT_POSIX_USER: '1000:1000' });
    expect(variables('Files/Given')).not.toHaveProperty('PROBE_ACCESS_POINT_ID');
    expect(variables('Files/Given')).not.toHaveProperty('PROBE_ACCESS_POINT_POSIX_USER');
  });

  test('memory, timeout, concurrency, byte limit and namespace are settable', () => {
    files.addProbe('Probe', { memorySize: Size.mebibytes(3008), timeout: Duration.minutes(5), reservedConcurrentExecutions: 2, maxBytesPerInvocation: Size.gibibytes(1), metricsNamespace: 'Team/Efs' });
    template().hasResourceProperties('AWS::Lambda::Function', {
      MemorySize: 3008, Timeout: 300, ReservedConcurrentExecutions: 2,
      Environment: { Variables: Match.objectLike({ PROBE_MAX_BYTES: String(1024 ** 3), PROBE_METRICS_NAMESPACE: 'Team/Efs' }) },
    });
  });

  test('metric methods name the metrics the handler publishes, with its dimensions', () => {
    const probe = files.addProbe('Probe');
    const m = probe.metricLatency('metadata', 'open-close', LatencyPercentile.P99);
    expect(m.namespace).toBe('CdkEfsKit');
    expect(m.metricName).toBe('LatencyP99');
    expect(Object.keys(m.dimensions!)).toEqual(['FileSystemId', 'Scenario', 'Operation']);
    expect(probe.metricThroughput('write-sizes', 'write-100MiB-file').metricName).toBe('ThroughputBytesPerSecond');
    expect(probe.metricFailures().expression).toBe('FILL(probe_failures, 0) + FILL(probe_errors, 0)');
  });

  test('has no unacknowledged cdk-nag findings', () => {
    files.addProbe('Probe', { canary: { interval: Duration.minutes(5) } });
    expect(nagErrors(stack)).toEqual([]);
  });
});

describe('on mount targets with IPv6 addresses', () => {
  let mixed: ec2.Vpc;
  beforeEach(() => {
    stack = new Stack(new App(), 'Test');
    mixed = vpcWithEveryFamily(stack);
  });
  const ipv6Only = () => new SharedFileSystem(stack, 'Files', {
    vpc: mixed, vpcSubnets: { subnetGroupName: 'Ipv6Only' }, ipAddressType: MountTargetIpAddressType.IPV6_ONLY, readinessGateSubnets: { subnetGroupName: 'DualStack' },
  });
  const subnetIds = (group: string) => mixed.selectSubnets({ subnetGroupName: group }).subnets.map((s) => stack.resolve(s.subnetId));
  const probeSecurityGroup = () => ({ 'Fn::GetAtt': [Match.stringLikeRegexp('^FilesProbeSecurityGroup'), 'GroupId'] });
  const probeSecurityGroupId = { 'Fn::GetAtt': [expect.stringMatching(/^FilesProbeSecurityGroup/), 'GroupId'] };

  test('IPV6_ONLY: runs in the dual-stack vpcSubnets given, sending IPv6, with a group that reaches the mount targets on 2049 and nothing else', () => {
    ipv6Only().addProbe('Probe', { vpcSubnets: { subnetGroupName: 'DualStack' } });
    const [fn] = probeFunction();
    expect(fn.Properties.VpcConfig).toEqual({ SubnetIds: subnetIds('DualStack'), SecurityGroupIds: [probeSecurityGroupId], Ipv6AllowedForDualStack: true });
    // No inline egress: not all outbound, and not aws-cdk's "no traffic" placeholder, which its one
    // egress rule replaces (CloudFormation drops a group's default allow-all rule with the first egress rule).
    const [group] = Object.values(template().findResources('AWS::EC2::SecurityGroup', { Properties: { GroupDescription: Match.stringLikeRegexp('benchmark probe') } }));
    expect(group.Properties.SecurityGroupEgress).toBeUndefined();
    expect(Object.keys(template().findResources('AWS::EC2::SecurityGroupEgress', { Properties: { GroupId: probeSecurityGroup() } }))).toHaveLength(1);
    template().hasResourceProperties('AWS::EC2::SecurityGroupEgress', {
      GroupId: probeSecurityGroup(), DestinationSecurityGroupId: { 'Fn::GetAtt': [Match.stringLikeRegexp('^FilesEfsSecurityGroup'), 'GroupId'] }, FromPort: 2049, ToPort: 2049, IpProtocol: 'tcp',
    });
    template().hasResourceProperties('AWS::EC2::SecurityGroupIngress', { SourceSecurityGroupId: probeSecurityGroup(), FromPort: 2049, ToPort: 2049 });
  });

  test('IPV6_ONLY: synthesizes without warnings, cdk-nag and cfn-lint clean', () => {
    mixed.addFlowLog('FlowLog');
    ipv6Only().addProbe('Probe', { vpcSubnets: { subnetGroupName: 'DualStack' }, canary: { interval: Duration.minutes(15) } });
    Annotations.fromStack(stack).hasNoWarning('*', Match.anyValue());
    expect(nagErrors(stack)).toEqual([]);
    expect(cfnLintErrors(template().toJSON())).toEqual([]);
  });

  test('fails when the file system is IPV6_ONLY and vpcSubnets is left out (the default is the mount targets\' IPv6-only subnets)', () => {
    const files = ipv6Only();
    expect(() => files.addProbe('Probe')).toThrow('BenchmarkProbe(Test/Files/Probe): vpcSubnets (vpc_subnets) is required when the mount targets are IPV6_ONLY: Lambda cannot run in their IPv6-only subnets (the default); '
      + 'give dual-stack subnets of the file system\'s VPC in zones with a mount target (those of readinessGateSubnets (readiness_gate_subnets) fit), got undefined.');
  });

  test('fails when vpcSubnets are IPv6-only, naming them', () => {
    const files = ipv6Only();
    expect(() => files.addProbe('Probe', { vpcSubnets: { subnetGroupName: 'Ipv6Only' } })).toThrow('BenchmarkProbe(Test/Files/Probe): vpcSubnets (vpc_subnets) must be dual-stack subnets of the mount targets\' VPC '
      + '(Lambda cannot run in IPv6-only subnets, and reaches IPv6 mount targets only from dual-stack ones), but Test/Vpc/Ipv6OnlySubnet1 is IPv6-only, Test/Vpc/Ipv6OnlySubnet2 is IPv6-only, '
      + 'got ["Test/Vpc/Ipv6OnlySubnet1","Test/Vpc/Ipv6OnlySubnet2"].');
  });

  test('fails when vpcSubnets have no IPv6 CIDR', () => {
    const files = ipv6Only();
    expect(() => files.addProbe('Probe', { vpcSubnets: { subnetGroupName: 'Ipv4Only' } })).toThrow(/vpcSubnets \(vpc_subnets\) must be dual-stack subnets .* but Test\/Vpc\/Ipv4OnlySubnet1 has no IPv6 CIDR/);
  });

  test('fails when vpcSubnets are in a zone without a mount target', () => {
    stack = new Stack(new App(), 'Zonal', { env: { account: '123456789012', region: 'us-east-1' } });
    mixed = vpcWithEveryFamily(stack, 'Vpc', { maxAzs: undefined, availabilityZones: ['us-east-1a', 'us-east-1b'] });
    const files = new SharedFileSystem(stack, 'Files', {
      vpc: mixed, vpcSubnets: { subnetGroupName: 'Ipv6Only', availabilityZones: ['us-east-1a'] }, ipAddressType: MountTargetIpAddressType.IPV6_ONLY,
      readinessGateSubnets: { subnetGroupName: 'DualStack', availabilityZones: ['us-east-1a'] },
    });
    expect(() => files.addProbe('Probe', { vpcSubnets: { subnetGroupName: 'DualStack' } })).toThrow(
      /BenchmarkProbe\(Zonal\/Files\/Probe\): vpcSubnets \(vpc_subnets\) must be in zones with a mount target \(us-east-1a\), where the file system's name resolves, but Zonal\/Vpc\/DualStackSubnet2 is in us-east-1b/);
  });

  test('DUAL_STACK: runs in the mount targets\' dual-stack subnets by default, sending IPv6, without the egress warning', () => {
    new SharedFileSystem(stack, 'Files', { vpc: mixed, vpcSubnets: { subnetGroupName: 'DualStack' }, ipAddressType: MountTargetIpAddressType.DUAL_STACK }).addProbe('Probe');
    expect(probeFunction()[0].Properties.VpcConfig).toEqual({ SubnetIds: subnetIds('DualStack'), SecurityGroupIds: [probeSecurityGroupId], Ipv6AllowedForDualStack: true });
    Annotations.fromStack(stack).hasNoWarning('*', Match.anyValue());
  });

  test('IPV6_ONLY, imported: runs in the dual-stack vpcSubnets of its attributes by default', () => {
    const imported = SharedFileSystem.fromFileSystemAttributes(stack, 'Files', {
      fileSystemId: 'fs-0123456789abcdef0', securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'Sg', 'sg-0123456789abcdef0'),
      vpc: mixed, vpcSubnets: { subnetGroupName: 'DualStack' }, mountTargetIpAddressType: MountTargetIpAddressType.IPV6_ONLY,
    });
    imported.addProbe('Probe');
    const { VpcConfig } = probeFunction()[0].Properties;
    expect([VpcConfig.SubnetIds, VpcConfig.Ipv6AllowedForDualStack]).toEqual([subnetIds('DualStack'), true]);
  });

  test('IPV4_ONLY: neither IPv6 nor a group of its own (Lambda\'s default one)', () => {
    new SharedFileSystem(stack, 'Files', { vpc: mixed, vpcSubnets: { subnetGroupName: 'DualStack' } }).addProbe('Probe');
    const { VpcConfig } = probeFunction()[0].Properties;
    expect(VpcConfig.Ipv6AllowedForDualStack).toBeUndefined();
    expect(VpcConfig.SecurityGroupIds).toEqual([{ 'Fn::GetAtt': [expect.stringMatching(/^FilesProbeFunctionSecurityGroup/), 'GroupId'] }]);
  });
});

describe('on any efs.IFileSystem, through SharedFileSystem.fromFileSystem', () => {
  const wrap = (scope: Construct, plain: efs.IFileSystem, inVpc: ec2.IVpc = vpc) => SharedFileSystem.fromFileSystem(scope, 'Helpers', plain, { vpc: inVpc });

  test('an aws-cdk file system is mounted through its access point, in its VPC', () => {
    const plain = new efs.FileSystem(stack, 'Plain', { vpc, encrypted: true });
    new BenchmarkProbe(stack, 'Probe', { fileSystem: wrap(stack, plain) });
    expect(probeFunction()).toHaveLength(1);
    template().hasResourceProperties('AWS::Lambda::Function', {
      FileSystemConfigs: [{ Arn: Match.anyValue(), LocalMountPath: '/mnt/probe' }],
      Environment: { Variables: Match.objectLike({ UV_THREADPOOL_SIZE: '256' }) },
    });
    template().hasResourceProperties('AWS::EC2::SecurityGroupIngress', { FromPort: 2049, ToPort: 2049, GroupId: { 'Fn::GetAtt': [Match.stringLikeRegexp('^PlainEfsSecurityGroup'), 'GroupId'] } });
  });

  test('synthesizes without warnings: port 2049 is opened on the file system only, and the function waits for it', () => {
    const plain = new efs.FileSystem(stack, 'Plain', { vpc, encrypted: true });
    new BenchmarkProbe(stack, 'Probe', { fileSystem: wrap(stack, plain) });
    Annotations.fromStack(stack).hasNoWarning('*', Match.anyValue());
    const ingress = template().findResources('AWS::EC2::SecurityGroupIngress', {
      Properties: { FromPort: 2049, SourceSecurityGroupId: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ProbeFunctionSecurityGroup'), 'GroupId'] } },
    });
    expect(Object.keys(ingress)).toHaveLength(1);
    // The probe's group keeps Lambda's default egress; the only rule is the readiness gate's.
    expect(Object.keys(template().findResources('AWS::EC2::SecurityGroupEgress'))).toEqual([expect.stringMatching(/^HelpersMountTargetsReady/)]);
    expect(probeFunction()[0].DependsOn).toEqual(expect.arrayContaining(Object.keys(ingress)));
  });

  test('grants mount and write on the file system through the probe\'s access point only, with no cdk-nag finding', () => {
    const plain = new efs.FileSystem(stack, 'Plain', { vpc, encrypted: true });
    new BenchmarkProbe(stack, 'Probe', { fileSystem: wrap(stack, plain), canary: { interval: Duration.minutes(5) } });
    template().hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({
          Effect: 'Allow',
          Action: Match.arrayWith(['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite']),
          Condition: Match.objectLike({ StringEquals: { 'elasticfilesystem:AccessPointArn': Match.anyValue() } }),
        })]),
      },
    });
    expect(nagErrors(stack)).toEqual([]);
  });

  test('with the file system in another stack, the port rule goes to the probe\'s stack (no dependency cycle)', () => {
    // Strong references, as aws-cdk-lib asks an app with references across stacks to choose.
    const app = new App({ context: { '@aws-cdk/core:defaultCrossStackReferences': 'strong' } });
    const storage = new Stack(app, 'Storage');
    const shared = new ec2.Vpc(storage, 'Vpc', { maxAzs: 2, natGateways: 1 });
    const plain = new efs.FileSystem(storage, 'Plain', { vpc: shared, encrypted: true });
    const probes = new Stack(app, 'Probes');
    new BenchmarkProbe(probes, 'Probe', { fileSystem: wrap(storage, plain, shared) });
    expect(() => app.synth()).not.toThrow();
    Template.fromStack(probes).resourceCountIs('AWS::EC2::SecurityGroupIngress', 1);
    // The only rule in the file system's stack is its readiness gate's, which is there too.
    const storageRules = Object.values(Template.fromStack(storage).findResources('AWS::EC2::SecurityGroupIngress')).map((r: any) => r.Properties.Description);
    expect(storageRules).toEqual([expect.stringMatching(/MountTargetsReady/)]);
    Annotations.fromStack(probes).hasNoWarning('*', Match.anyValue());
  });

  test('in a VPC with isolated subnets only, the function goes into those (it needs no egress)', () => {
    const isolated = new ec2.Vpc(stack, 'Isolated', { natGateways: 0, subnetConfiguration: [{ name: 'data', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
    const plain = new efs.FileSystem(stack, 'Plain', { vpc: isolated, encrypted: true });
    new BenchmarkProbe(stack, 'Probe', { fileSystem: wrap(stack, plain, isolated) });
    const subnets = probeFunction()[0].Properties.VpcConfig.SubnetIds.map((id: { Ref: string }) => id.Ref);
    expect(subnets).toEqual(isolated.isolatedSubnets.map((subnet) => stack.getLogicalId(subnet.node.defaultChild as ec2.CfnSubnet)));
  });

  test('a file system that is neither kind of this package fails, naming the way to wrap it', () => {
    const plain = new efs.FileSystem(stack, 'Plain', { vpc, encrypted: true });
    const unwrapped = Object.assign(Object.create(plain), { fileSystemKind: FileSystemKind.EFS });
    expect(() => new BenchmarkProbe(stack, 'Probe', { fileSystem: unwrapped })).toThrow(
      'BenchmarkProbe(Test/Probe): fileSystem (file_system) must be a SharedFileSystem (wrap any efs.IFileSystem with SharedFileSystem.fromFileSystem) or an S3FilesFileSystem, got Test/Plain.');
  });
});

describe('validation', () => {
  test('fails when reserved concurrency is below 1', () => {
    expect(() => files.addProbe('Probe', { reservedConcurrentExecutions: 0 })).toThrow('BenchmarkProbe(Test/Files/Probe): reservedConcurrentExecutions (reserved_concurrent_executions) must be an integer of at least 1, got 0');
  });

  test('fails when the timeout leaves no margin', () => {
    expect(() => files.addProbe('Probe', { timeout: Duration.seconds(30) })).toThrow(/timeout must be at least 1 minute .*got "30 seconds"/);
  });

  test('fails when the canary interval is not whole minutes', () => {
    expect(() => files.addProbe('Probe', { canary: { interval: Duration.seconds(90) } })).toThrow(/canary.interval must be a whole number of minutes, at least 1, got "1 minute 30 seconds"/);
  });
});

describe('on an S3 Files file system', () => {
  let s3Files: S3FilesFileSystem;
  beforeEach(() => { s3Files = new S3FilesFileSystem(stack, 'S3Files', { vpc, prefix: 'data/' }); });
  /** The statements of the probe function's own policy. */
  const statements = (): any[] => Object.entries(template().findResources('AWS::IAM::Policy'))
    .filter(([id]) => id.startsWith('S3FilesProbeFunction')).flatMap(([, p]: [string, any]) => p.Properties.PolicyDocument.Statement);

  test('mounts an access point of its own with S3FilesConfig, and tells the handler the bucket and prefix that access point is', () => {
    const probe = s3Files.addProbe('Probe');
    expect(probe.fileSystemKind).toBe(FileSystemKind.S3_FILES);
    template().resourceCountIs('AWS::S3Files::AccessPoint', 1);
    template().hasResourceProperties('AWS::S3Files::AccessPoint', {
      PosixUser: { Uid: '1000', Gid: '1000' }, RootDirectory: { Path: '/cdk-efs-kit-probe', CreationPermissions: { OwnerUid: '1000', OwnerGid: '1000', Permissions: '750' } },
    });
    const [fn] = probeFunction();
    expect(fn.Properties.FileSystemConfigs).toEqual([{ Arn: { 'Fn::GetAtt': [expect.stringMatching(/^S3FilesProbeAccessPoint/), 'AccessPointArn'] }, LocalMountPath: '/mnt/probe', S3FilesConfig: { DirectS3Read: 'AUTO' } }]);
    expect(stack.resolve(fn.Properties.Environment.Variables.PROBE_BUCKET_URL)).toEqual({ 'Fn::Join': ['', ['s3://', { Ref: expect.stringMatching(/^S3FilesBucket/) }, '/data/cdk-efs-kit-probe/']] });
    expect(fn.Properties.Environment.Variables).toMatchObject({ PROBE_ACCESS_POINT_POSIX_USER: '1000:1000', UV_THREADPOOL_SIZE: '256', PROBE_MOUNT_PATH: '/mnt/probe' });
  });

  test('may put, list and delete objects under its own key prefix only, and mount through its access point only', () => {
    s3Files.addProbe('Probe');
    const all = statements();
    const objects = all.find((s) => [s.Action].flat().includes('s3:PutObject'));
    expect(objects.Action).toEqual(['s3:PutObject', 's3:DeleteObject', 's3:DeleteObjectVersion']);
    expect(objects.Resource).toEqual({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^S3FilesBucket/), 'Arn'] }, '/data/cdk-efs-kit-probe/*']] });
    const list = all.find((s) => s.Action === 's3:ListBucket');
    expect(list.Condition).toEqual({ StringLike: { 's3:prefix': 'data/cdk-efs-kit-probe/*' } });
    expect(all.filter((s) => JSON.stringify(s.Action).includes('s3:Delete'))).toHaveLength(1);
    const client = all.find((s) => JSON.stringify(s.Action).includes('s3files:ClientWrite'));
    expect(client.Condition).toEqual({ StringEquals: { 's3files:AccessPointArn': { 'Fn::GetAtt': [expect.stringMatching(/^S3FilesProbeAccessPoint/), 'AccessPointArn'] } } });
    expect(nagErrors(stack)).toEqual([]);
  });

  test('its canary runs S3 Files\' own scenarios beside the small operations, which the latency alarm still watches', () => {
    const probe = s3Files.addProbe('Probe', { canary: { interval: Duration.minutes(15) } });
    const [rule] = Object.values(template().findResources('AWS::Events::Rule'));
    const request = JSON.parse((rule as any).Properties.Targets[0].Input);
    expect(Object.keys(request.scenarios)).toEqual(['write-sizes', 'create-files', 'metadata', 'import', 'direct-read', 'export-lag']);
    expect(request).toEqual(S3_FILES_CANARY_REQUEST);
    expect(probe.canarySmallOperations).toHaveLength(4);
  });

  test('the canary request is one the handler takes on an S3 Files mount, and light', () => {
    const { request, errors } = parseRequest(S3_FILES_CANARY_REQUEST, { maxBytes: DEFAULT_MAX_BYTES, maxSeconds: 840, bucket: true });
    expect(errors).toEqual([]);
    const plans = request!.scenarios.map((s) => s.scenario.plan(s.params));
    // 5 MiB or so, and about two minutes of waiting on the sync (the import, and the write-back window).
    expect(plans.reduce((sum, p) => sum + p.bytes, 0)).toBeLessThan(6 * 1024 * 1024);
    expect(plans.reduce((sum, p) => sum + (p.waitSeconds ?? 0), 0)).toBeLessThan(150);
  });

  test('subnets with no route to S3 fail synth, naming the fix; an S3 gateway endpoint added later satisfies it', () => {
    const isolated = new ec2.Vpc(stack, 'Isolated', { natGateways: 0, subnetConfiguration: [{ name: 'data', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
    const inIsolated = new S3FilesFileSystem(stack, 'InIsolated', { vpc: isolated });
    inIsolated.addProbe('Probe');
    expect(() => Template.fromStack(stack)).toThrow(/BenchmarkProbe\(Test\/InIsolated\/Probe\): the probe runs in its subnets and its S3 Files scenarios call S3, but .* no route to S3 .*vpc.addGatewayEndpoint\('S3'/);
    isolated.addGatewayEndpoint('S3', { service: ec2.GatewayVpcEndpointAwsService.S3 });
    expect(() => Template.fromStack(stack)).not.toThrow();
  });

  test('an EFS access point does not apply: refused, saying the probe makes its own', () => {
    const efsAccessPoint = files.addAccessPoint('Efs');
    expect(() => s3Files.addProbe('Probe', { accessPoint: efsAccessPoint })).toThrow(
      'BenchmarkProbe(Test/S3Files/Probe): accessPoint (access_point) is an EFS access point and does not apply to S3 Files: the probe makes its own at /cdk-efs-kit-probe, so that its grants on the bucket reach that prefix only; leave accessPoint unset.');
  });

  test('with IPv6 mount targets, the function\'s group allows HTTPS out (the bucket) besides 2049', () => {
    const mixed = vpcWithEveryFamily(stack, 'Mixed');
    mixed.addGatewayEndpoint('S3', { service: ec2.GatewayVpcEndpointAwsService.S3 });
    new S3FilesFileSystem(stack, 'Dual', { vpc: mixed, vpcSubnets: { subnetGroupName: 'DualStack' }, ipAddressType: MountTargetIpAddressType.DUAL_STACK })
      .addProbe('Probe', { vpcSubnets: { subnetGroupName: 'DualStack' } });
    const group = Object.values(template().findResources('AWS::EC2::SecurityGroup', { Properties: { GroupDescription: Match.stringLikeRegexp('HTTPS to S3') } }));
    expect(group).toHaveLength(1);
    expect((group[0] as any).Properties.SecurityGroupEgress).toEqual(expect.arrayContaining([
      expect.objectContaining({ CidrIp: '0.0.0.0/0', FromPort: 443, ToPort: 443 }),
      expect.objectContaining({ CidrIpv6: '::/0', FromPort: 443, ToPort: 443 }),
    ]));
  });

  test('is strict-clean: no warnings, no cdk-nag or cfn-lint errors', () => {
    s3Files.addProbe('Probe', { canary: { interval: Duration.minutes(15) } });
    Annotations.fromStack(stack).hasNoWarning('*', Match.anyValue());
    expect(nagErrors(stack)).toEqual([]);
    expect(cfnLintErrors(template().toJSON())).toEqual([]);
  });
});
