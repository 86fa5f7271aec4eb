import { Annotations as CoreAnnotations, App, Duration, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AccessPointPreset, MountTargetIpAddressType, MountTargetsReady, SeedSource, SharedFileSystem } from '../../../lib';
import { cfnLintErrors, nagErrors } from '../../helpers/checks';

// The readiness gate's construct side: one gate per file system, every mount helper's client
// depending on it, its IAM and network, and the owner warnings of the ECS and EC2 helpers.
// The gate's handler is tested in mount-readiness.test.ts.

const GATE = 'Custom::CdkEfsKitMountTargetsReady';
let stack: Stack;
let vpc: ec2.Vpc;
let files: SharedFileSystem;
let ap: efs.AccessPoint;

beforeEach(() => {
  stack = new Stack(new App(), 'Test');
  vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
  files = new SharedFileSystem(stack, 'Files', { vpc });
  ap = files.addAccessPoint('App', AccessPointPreset.applicationUser('/app')); // uid/gid 1000
});

function newFunction(id = 'Fn'): lambda.Function {
  return new lambda.Function(stack, id, {
    runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => 1;'), vpc,
  });
}

function newTask(id = 'Task', user?: string): ecs.FargateTaskDefinition {
  const task = new ecs.FargateTaskDefinition(stack, id);
  task.addContainer('app', { image: ecs.ContainerImage.fromRegistry('public.ecr.aws/nginx/nginx:stable'), user });
  return task;
}

function newService(user?: string): ecs.FargateService {
  const cluster = new ecs.Cluster(stack, 'Cluster', { vpc });
  return new ecs.FargateService(stack, 'Service', { cluster, taskDefinition: newTask('Task', user), minHealthyPercent: 100 });
}

function newInstance(id = 'Host'): ec2.Instance {
  return new ec2.Instance(stack, id, { vpc, instanceType: new ec2.InstanceType('t3.micro'), machineImage: ec2.MachineImage.latestAmazonLinux2023() });
}

const gateIds = (template: Template) => Object.keys(template.findResources(GATE));
const dependsOnOf = (template: Template, type: string) => Object.values(template.findResources(type)).map((r) => r.DependsOn ?? []);
const gateResources = (template: Template) => Object.entries(template.toJSON().Resources as Record<string, any>)
  .filter(([id]) => id.startsWith('FilesMountTargetsReady'));

describe('clients depend on the gate', () => {
  test('a Lambda function', () => {
    files.mountOnLambda(newFunction(), ap);
    const template = Template.fromStack(stack);
    expect(dependsOnOf(template, 'AWS::Lambda::Function').filter((d) => d.includes(gateIds(template)[0]))).toHaveLength(1);
  });

  test('an ECS service, and its task definition', () => {
    files.mountOnEcsService(newService(), ap, { containerPath: '/data' });
    const template = Template.fromStack(stack);
    const [gate] = gateIds(template);
    expect(dependsOnOf(template, 'AWS::ECS::Service')[0]).toContain(gate);
    expect(dependsOnOf(template, 'AWS::ECS::TaskDefinition')[0]).toContain(gate);
  });

  test('an ECS task definition mounted on its own: whatever runs its tasks comes after it', () => {
    files.mountOnEcsTask(newTask(), ap, { containerPath: '/data' });
    const template = Template.fromStack(stack);
    expect(dependsOnOf(template, 'AWS::ECS::TaskDefinition')[0]).toContain(gateIds(template)[0]);
  });

  test('an EC2 instance and an Auto Scaling group', () => {
    files.mountOnEc2(newInstance(), { accessPoint: ap });
    const asg = new autoscaling.AutoScalingGroup(stack, 'Asg', {
      vpc, instanceType: new ec2.InstanceType('t3.micro'), machineImage: ec2.MachineImage.latestAmazonLinux2023(),
    });
    files.mountOnEc2(asg);
    const template = Template.fromStack(stack);
    const [gate] = gateIds(template);
    expect(dependsOnOf(template, 'AWS::EC2::Instance')[0]).toContain(gate);
    expect(dependsOnOf(template, 'AWS::AutoScaling::AutoScalingGroup')[0]).toContain(gate);
  });

  test('a dependency on the gate is one on its custom resource only', () => {
    files.mountOnLambda(newFunction(), ap);
    const template = Template.fromStack(stack);
    const fnDependsOn: string[] = dependsOnOf(template, 'AWS::Lambda::Function').find((d) => d.includes(gateIds(template)[0]))!;
    expect(fnDependsOn.filter((id) => id.startsWith('FilesMountTargetsReady'))).toEqual(gateIds(template));
  });

  test('one gate for every client of a file system, the seed\'s functions included', () => {
    files.mountOnLambda(newFunction('A'), ap);
    files.mountOnLambda(newFunction('B'), ap, { mountPath: '/mnt/b' });
    files.mountOnEcsService(newService(), ap, { containerPath: '/data' });
    files.mountOnEc2(newInstance());
    files.addSeed('Content', { accessPoint: ap, source: SeedSource.asset(`${__dirname}/../../../examples/site`) });
    const template = Template.fromStack(stack);
    template.resourceCountIs(GATE, 1);
    const [gate] = gateIds(template);
    const seedFunctions = Object.entries(template.findResources('AWS::Lambda::Function')).filter(([id]) => id.startsWith('CdkEfsKitSeedSingleFunction') && !id.includes('Provider'));
    expect(seedFunctions.length).toBeGreaterThan(0);
    for (const [, fn] of seedFunctions) expect(fn.DependsOn).toContain(gate);
    expect(files.mountTargetsReady).toBe(files.mountTargetsReady);
  });

  test('a file system no client mounts gets no gate', () => {
    Template.fromStack(stack).resourceCountIs(GATE, 0);
  });

  test('a gate of each file system', () => {
    const other = new SharedFileSystem(stack, 'Other', { vpc });
    files.mountOnLambda(newFunction('A'), ap);
    other.mountOnLambda(newFunction('B'), other.addAccessPoint('OtherApp', AccessPointPreset.applicationUser('/other')));
    Template.fromStack(stack).resourceCountIs(GATE, 2);
  });
});

describe('the gate of a SharedFileSystem', () => {
  beforeEach(() => files.mountOnLambda(newFunction(), ap));

  test('waits for each mount target by id, zone and IPv4 address from CloudFormation, for 10 minutes', () => {
    const template = Template.fromStack(stack);
    const mountTargets = Object.keys(template.findResources('AWS::EFS::MountTarget'));
    template.hasResourceProperties(GATE, {
      FileSystemId: stack.resolve(files.fileSystemId),
      Region: { Ref: 'AWS::Region' },
      MountTargets: mountTargets.map((id, i) => ({
        MountTargetId: { Ref: id },
        AvailabilityZone: stack.resolve(vpc.privateSubnets[i].availabilityZone),
        IpAddress: { 'Fn::GetAtt': [id, 'IpAddress'] },
      })),
      TimeLimitSeconds: '600',
    });
  });

  test('runs in the mount targets\' subnets with a security group that reaches them on 2049 only', () => {
    const template = Template.fromStack(stack);
    const gateFunctions = gateResources(template).filter(([id, r]) => r.Type === 'AWS::Lambda::Function' && !id.includes('Providerframework'));
    expect(gateFunctions.map(([, r]) => r.Properties.Handler)).toEqual(['index.onEvent']);
    const subnetIds = vpc.privateSubnets.map((s) => stack.resolve(s.subnetId));
    const [[groupId]] = gateResources(template).filter(([, r]) => r.Type === 'AWS::EC2::SecurityGroup');
    for (const [, fn] of gateFunctions) {
      expect(fn.Properties.VpcConfig).toEqual({ SubnetIds: subnetIds, SecurityGroupIds: [{ 'Fn::GetAtt': [groupId, 'GroupId'] }] });
    }
    const fsGroup = stack.resolve(files.connections.securityGroups[0].securityGroupId);
    // No egress but 2049 to the mount targets' group.
    template.hasResourceProperties('AWS::EC2::SecurityGroup', {
      GroupDescription: Match.stringLikeRegexp('mount readiness gate'), SecurityGroupEgress: Match.absent(),
    });
    template.hasResourceProperties('AWS::EC2::SecurityGroupEgress', {
      GroupId: { 'Fn::GetAtt': [groupId, 'GroupId'] }, DestinationSecurityGroupId: fsGroup, FromPort: 2049, ToPort: 2049, IpProtocol: 'tcp',
    });
    template.hasResourceProperties('AWS::EC2::SecurityGroupIngress', {
      GroupId: fsGroup, SourceSecurityGroupId: { 'Fn::GetAtt': [groupId, 'GroupId'] }, FromPort: 2049, ToPort: 2049,
    });
  });

  test('starts only once its port 2049 rules exist', () => {
    const template = Template.fromStack(stack);
    const rules = gateResources(template).filter(([, r]) => /SecurityGroup(Ingress|Egress)$/.test(r.Type)).map(([id]) => id);
    const rulesFromGate = Object.entries(template.findResources('AWS::EC2::SecurityGroupIngress')).filter(([id]) => id.includes('MountTargetsReady')).map(([id]) => id);
    const [gate] = Object.values(template.findResources(GATE));
    expect(gate.DependsOn.sort()).toEqual([...rules, ...rulesFromGate].sort());
  });

  test('its function has the Lambda execution and VPC access policies and nothing else: no EFS API call', () => {
    const template = Template.fromStack(stack);
    const roles = gateResources(template).filter(([id, r]) => r.Type === 'AWS::IAM::Role' && !id.includes('Provider'));
    expect(roles).toHaveLength(1);
    for (const [, role] of roles) {
      expect(JSON.stringify(role.Properties.ManagedPolicyArns)).toMatch(/AWSLambdaBasicExecutionRole.*AWSLambdaVPCAccessExecutionRole/);
      expect(role.Properties.Policies).toBeUndefined();
    }
    const policies = gateResources(template).filter(([id, r]) => r.Type === 'AWS::IAM::Policy' && !id.includes('Provider'));
    expect(policies).toEqual([]);
    expect(JSON.stringify(template.toJSON())).not.toContain('elasticfilesystem:DescribeMountTargets');
  });

  test('waits within one invocation: its function has a minute more than the limit, CloudFormation five more', () => {
    const template = Template.fromStack(stack);
    const [, fn] = gateResources(template).find(([id, r]) => r.Type === 'AWS::Lambda::Function' && !id.includes('Providerframework'))!;
    expect(fn.Properties.Timeout).toBe(660); // 600 + 60
    template.hasResourceProperties(GATE, { ServiceTimeout: '960' });
  });

  test('adds two Lambda functions (its own and the framework\'s onEvent) and no state machine, once per file system', () => {
    const only = new Stack(new App(), 'Only');
    const onlyVpc = new ec2.Vpc(only, 'Vpc', { maxAzs: 2, natGateways: 1 });
    for (const id of ['A', 'B']) new SharedFileSystem(only, id, { vpc: onlyVpc }).mountTargetsReady;
    const template = Template.fromStack(only);
    template.resourceCountIs(GATE, 2);
    template.resourceCountIs('AWS::Lambda::Function', 4);
    template.resourceCountIs('AWS::StepFunctions::StateMachine', 0);
    const frameworkHandlers = Object.values(template.findResources('AWS::Lambda::Function')).map((r) => r.Properties.Handler).filter((h) => h.startsWith('framework.'));
    expect(frameworkHandlers).toEqual(['framework.onEvent', 'framework.onEvent']);
  });

  test('has no unacknowledged cdk-nag findings and passes cfn-lint, with Lambda, ECS and EC2 clients', () => {
    files.mountOnEcsService(newService('1000:1000'), ap, { containerPath: '/data' });
    files.mountOnEc2(newInstance(), { accessPoint: ap, mountPoint: '/mnt/app' });
    expect(nagErrors(stack).filter((f) => f.includes('/Files/'))).toEqual([]);
    expect(cfnLintErrors(Template.fromStack(stack).toJSON())).toEqual([]);
  });
});

describe('a gate of a file system made elsewhere (mount targets unknown at synth)', () => {
  let imported: efs.IFileSystem;
  beforeEach(() => {
    imported = efs.FileSystem.fromFileSystemAttributes(stack, 'Imported', {
      fileSystemId: 'fs-0123456789abcdef0',
      securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'ImportedSg', 'sg-0123456789abcdef0'),
    });
  });

  test('lists no mount targets, may call DescribeMountTargets on that file system only, and reach the EFS API on 443', () => {
    new MountTargetsReady(stack, 'Ready', { fileSystem: imported, vpc, timeLimit: Duration.minutes(5) });
    const template = Template.fromStack(stack);
    template.hasResourceProperties(GATE, { FileSystemId: 'fs-0123456789abcdef0', MountTargets: Match.absent(), TimeLimitSeconds: '300' });
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .flatMap((p) => p.Properties.PolicyDocument.Statement)
      .filter((s) => JSON.stringify(s.Action).includes('elasticfilesystem'));
    expect(statements).toHaveLength(1);
    for (const s of statements) expect(s).toEqual({ Effect: 'Allow', Action: 'elasticfilesystem:DescribeMountTargets', Resource: stack.resolve(imported.fileSystemArn) });
    template.hasResourceProperties('AWS::EC2::SecurityGroup', {
      GroupDescription: Match.stringLikeRegexp('mount readiness gate'),
      SecurityGroupEgress: [{ CidrIp: '0.0.0.0/0', Description: 'DescribeMountTargets (the EFS API)', FromPort: 443, ToPort: 443, IpProtocol: 'tcp' }],
    });
    template.hasResourceProperties('AWS::EC2::SecurityGroupIngress', { GroupId: 'sg-0123456789abcdef0', FromPort: 2049, ToPort: 2049 });
    expect(nagErrors(stack).filter((f) => f.includes('/Ready/'))).toEqual([]);
    expect(cfnLintErrors(template.toJSON())).toEqual([]);
  });

  const dualStackMountTarget = { mountTargetId: 'fsmt-0123456789abcdef0', availabilityZone: 'us-east-1a', ipAddressType: MountTargetIpAddressType.DUAL_STACK, ipAddress: '10.0.1.25' };

  test('describes what the given mount targets leave out: a dual-stack one\'s IPv6 address, which it may reach', () => {
    const dualStackVpc = new ec2.Vpc(stack, 'DualStackVpc', { maxAzs: 2, natGateways: 1, ipProtocol: ec2.IpProtocol.DUAL_STACK });
    new MountTargetsReady(stack, 'Ready', { fileSystem: imported, vpc: dualStackVpc, mountTargets: [dualStackMountTarget] });
    const template = Template.fromStack(stack);
    template.hasResourceProperties(GATE, {
      MountTargets: [{ MountTargetId: 'fsmt-0123456789abcdef0', AvailabilityZone: 'us-east-1a', IpAddressType: 'DUAL_STACK', IpAddress: '10.0.1.25' }],
    });
    expect(JSON.stringify(template.toJSON())).toContain('elasticfilesystem:DescribeMountTargets');
    template.hasResourceProperties('AWS::Lambda::Function', { Handler: 'index.onEvent', VpcConfig: Match.objectLike({ Ipv6AllowedForDualStack: true }) });
  });

  test('fails when a dual-stack mount target\'s gate would run in subnets without IPv6, naming vpcSubnets', () => {
    expect(() => new MountTargetsReady(stack, 'Ready', { fileSystem: imported, vpc, mountTargets: [dualStackMountTarget] })).toThrow(
      'MountTargetsReady(Test/Ready): vpcSubnets (vpc_subnets) must be dual-stack subnets of the mount targets\' VPC (Lambda cannot run in IPv6-only subnets, and reaches IPv6 mount targets only from dual-stack ones), '
      + 'but Test/Vpc/PrivateSubnet1 has no IPv6 CIDR, Test/Vpc/PrivateSubnet2 has no IPv6 CIDR, got ["Test/Vpc/PrivateSubnet1","Test/Vpc/PrivateSubnet2"].');
  });

  test('IPv4-only mount targets: the function sends no IPv6 traffic', () => {
    new MountTargetsReady(stack, 'Ready', { fileSystem: imported, vpc });
    const [fn] = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function', { Properties: { Handler: 'index.onEvent' } }));
    expect(fn.Properties.VpcConfig.Ipv6AllowedForDualStack).toBeUndefined();
  });

  test('needs no EFS API when every mount target is given whole', () => {
    new MountTargetsReady(stack, 'Ready', {
      fileSystem: imported, vpc,
      mountTargets: [{ mountTargetId: 'fsmt-0123456789abcdef0', availabilityZone: 'us-east-1a', ipAddress: '10.0.1.25' }],
    });
    const template = Template.fromStack(stack);
    expect(JSON.stringify(template.toJSON())).not.toContain('elasticfilesystem:DescribeMountTargets');
    expect(JSON.stringify(template.toJSON())).not.toContain('"FromPort":443');
  });

  // CloudFormation refuses a custom resource another ServiceToken ("Modifying service token is not
  // allowed"): each setting of a gate must reach its one provider as an Update of the same resource.
  test.each<[string, (scope: Stack, fileSystem: efs.IFileSystem, network: ec2.Vpc) => MountTargetsReady]>([
    ['timeLimit', (scope, fileSystem, network) => new MountTargetsReady(scope, 'Ready', { fileSystem, vpc: network, timeLimit: Duration.minutes(3) })],
    ['vpcSubnets', (scope, fileSystem, network) => new MountTargetsReady(scope, 'Ready', { fileSystem, vpc: network, vpcSubnets: { subnets: [network.privateSubnets[0]] } })],
    ['mountTargets', (scope, fileSystem, network) => new MountTargetsReady(scope, 'Ready', {
      fileSystem, vpc: network, mountTargets: [{ mountTargetId: 'fsmt-0123456789abcdef0', availabilityZone: network.availabilityZones[0], ipAddress: '10.0.1.25' }],
    })],
  ])('changing %s is an Update of the same resource, with the same ServiceToken', (_setting, changed) => {
    const synth = (make: (scope: Stack, fileSystem: efs.IFileSystem, network: ec2.Vpc) => MountTargetsReady) => {
      const scope = new Stack(new App(), 'Test');
      const network = new ec2.Vpc(scope, 'Vpc', { maxAzs: 2, natGateways: 1 });
      const fileSystem = efs.FileSystem.fromFileSystemAttributes(scope, 'Imported', {
        fileSystemId: 'fs-0123456789abcdef0', securityGroup: ec2.SecurityGroup.fromSecurityGroupId(scope, 'ImportedSg', 'sg-0123456789abcdef0'),
      });
      make(scope, fileSystem, network);
      return Template.fromStack(scope).findResources(GATE);
    };
    const before = synth((scope, fileSystem, network) => new MountTargetsReady(scope, 'Ready', { fileSystem, vpc: network }));
    const after = synth(changed);
    expect(Object.keys(after)).toEqual(Object.keys(before));
    const [id] = Object.keys(before);
    expect(after[id].Properties.ServiceToken).toEqual(before[id].Properties.ServiceToken);
  });

  test('takes a time limit of 13 minutes, its function then having 14', () => {
    new MountTargetsReady(stack, 'Ready', { fileSystem: imported, vpc, timeLimit: Duration.minutes(13) });
    const template = Template.fromStack(stack);
    template.hasResourceProperties(GATE, { TimeLimitSeconds: '780', ServiceTimeout: '1140' });
    template.hasResourceProperties('AWS::Lambda::Function', { Handler: 'index.onEvent', Timeout: 840 });
  });

  test('fails when the time limit is past 13 minutes (the wait fits one invocation)', () => {
    expect(() => new MountTargetsReady(stack, 'Ready', { fileSystem: imported, vpc, timeLimit: Duration.minutes(14) }))
      .toThrow(/MountTargetsReady\(Test\/Ready\): timeLimit \(time_limit\) \(seconds\) must be whole seconds from 1 to 780 .*got 840/);
  });

  test('fails when mountTargets is empty', () => {
    expect(() => new MountTargetsReady(stack, 'Ready', { fileSystem: imported, vpc, mountTargets: [] })).toThrow(/mountTargets \(mount_targets\) must list at least one mount target, or be left out/);
  });

  test('fails when a mount target id is not one', () => {
    expect(() => new MountTargetsReady(stack, 'Ready', { fileSystem: imported, vpc, mountTargets: [{ mountTargetId: 'fs-0123456789abcdef0' }] }))
      .toThrow(/mountTargets\[0\]: mountTargetId \(mount_target_id\) must be a mount target id \(fsmt- and 8 to 40 hex digits\), got "fs-0123456789abcdef0"/);
  });

  test('fails when an IPv6-only mount target is given an IPv4 address', () => {
    expect(() => new MountTargetsReady(stack, 'Ready', {
      fileSystem: imported, vpc, mountTargets: [{ mountTargetId: 'fsmt-0123456789abcdef0', ipAddressType: MountTargetIpAddressType.IPV6_ONLY, ipAddress: '10.0.1.25' }],
    })).toThrow(/ipAddress \(ip_address\) does not apply to an IPV6_ONLY mount target/);
  });
});

describe('owners at synth: ECS', () => {
  const ownerWarnings = () => Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('cdk-efs-kit:mountOwnerMismatch'));

  test('warns when the container runs as another uid than the access point enforces, naming both and the fix', () => {
    files.mountOnEcsService(newService('1001:1001'), ap, { containerPath: '/data' });
    const warnings = ownerWarnings();
    expect(warnings).toHaveLength(1);
    expect(warnings[0].id).toBe('/Test/Task/app');
    expect(warnings[0].entry.data).toMatch(/container 'app' runs as user '1001:1001' \(1001:1001\), but access point Test\/Files\/App enforces uid 1000 and gid 1000 on its read-write mount at \/data: .*Set the container's user to '1000:1000', or mount through an access point whose posixUser is 1001:1001/);
  });

  test('warns when only the group differs', () => {
    files.mountOnEcsTask(newTask('Task', '1000:2000'), ap, { containerPath: '/data' });
    expect(ownerWarnings()).toHaveLength(1);
  });

  test.each([
    ['no user (the image\'s, root for most)', undefined],
    ['root by name', 'root'],
    ['uid 0', '0:0'],
    ['the access point\'s user', '1000:1000'],
    ['the access point\'s uid, group left to the image', '1000'],
    ['a name only the image knows', 'nginx'],
  ])('says nothing for %s', (_, user) => {
    files.mountOnEcsTask(newTask('Task', user), ap, { containerPath: '/data' });
    expect(ownerWarnings()).toEqual([]);
  });

  test('says nothing on a read-only mount', () => {
    files.mountOnEcsTask(newTask('Task', '1001'), ap, { containerPath: '/data', readOnly: true });
    expect(ownerWarnings()).toEqual([]);
  });

  test('says nothing when the access point enforces no user', () => {
    const open = files.addAccessPoint('Open', AccessPointPreset.custom({ path: '/open', createAcl: { ownerUid: '1001', ownerGid: '1001', permissions: '750' } }));
    files.mountOnEcsTask(newTask('Task', '1001'), open, { containerPath: '/data' });
    expect(ownerWarnings()).toEqual([]);
  });

  test('is acknowledged on the task definition before mounting, or on the container after', () => {
    const first = newTask('First', '1001');
    CoreAnnotations.of(first).acknowledgeWarning('cdk-efs-kit:mountOwnerMismatch', 'the image chowns nothing');
    files.mountOnEcsTask(first, ap, { containerPath: '/data' });
    const second = newTask('Second', '1001');
    files.mountOnEcsTask(second, ap, { containerPath: '/data' });
    CoreAnnotations.of(second.defaultContainer!).acknowledgeWarning('cdk-efs-kit:mountOwnerMismatch', 'the image chowns nothing');
    expect(ownerWarnings()).toEqual([]);
  });
});

describe('owners at synth: EC2', () => {
  const ownerWarnings = () => Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('cdk-efs-kit:mountOwnerMismatch'));

  test('warns when the user data, after the mount, chowns a path in it to another owner than the access point enforces', () => {
    const host = newInstance();
    files.mountOnEc2(host, { accessPoint: ap, mountPoint: '/mnt/app' });
    host.userData.addCommands('useradd -u 2000 app', 'chown -R 2000:2000 /mnt/app/data && systemctl start app');
    const warnings = ownerWarnings();
    expect(warnings).toHaveLength(1);
    expect(warnings[0].id).toBe('/Test/Host/Resource');
    expect(warnings[0].entry.data).toMatch(/the user data of Test\/Host runs 'chown -R 2000:2000 \/mnt\/app\/data' \(owner 2000:2000\), but access point Test\/Files\/App enforces uid 1000 and gid 1000 on its read-write mount at \/mnt\/app: the chown fails \(EPERM\)/);
  });

  test.each([
    ['the access point\'s user', 'chown -R 1000:1000 /mnt/app'],
    ['the access point\'s uid only', 'chown 1000 /mnt/app/x'],
    ['a path outside the mount', 'chown 2000:2000 /mnt/application'],
    ['a named user only the image knows', 'chown app /mnt/app'],
  ])('says nothing for a chown to %s', (_, command) => {
    const host = newInstance();
    files.mountOnEc2(host, { accessPoint: ap, mountPoint: '/mnt/app' });
    host.userData.addCommands(command);
    expect(ownerWarnings()).toEqual([]);
  });

  test('says nothing without an access point, or on a read-only mount', () => {
    const host = newInstance();
    files.mountOnEc2(host, { mountPoint: '/mnt/root' });
    files.mountOnEc2(host, { accessPoint: ap, mountPoint: '/mnt/app', readOnly: true });
    host.userData.addCommands('chown 2000:2000 /mnt/root /mnt/app');
    expect(ownerWarnings()).toEqual([]);
  });

  test('is acknowledged on the host, before the commands are added', () => {
    const host = newInstance();
    files.mountOnEc2(host, { accessPoint: ap, mountPoint: '/mnt/app' });
    CoreAnnotations.of(host).acknowledgeWarning('cdk-efs-kit:mountOwnerMismatch', 'the chown is allowed to fail');
    host.userData.addCommands('chown 2000:2000 /mnt/app');
    expect(ownerWarnings()).toEqual([]);
  });
});
