import { App, RemovalPolicy, Size, Stack, Token } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AccessLevel, AccessPointPreset, SharedFileSystem, StorageLifecycle } from '../../../lib';

let stack: Stack;
let vpc: ec2.Vpc;

beforeEach(() => {
  stack = new Stack(new App(), 'Test');
  vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
});

const fileSystem = () => Template.fromStack(stack).findResources('AWS::EFS::FileSystem');
const onlyFileSystem = () => Object.values(fileSystem())[0];

function newFunction(id = 'Fn', inVpc = true): lambda.Function {
  return new lambda.Function(stack, id, {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => 1;'),
    vpc: inVpc ? vpc : undefined,
  });
}

function newService(): ecs.FargateService {
  const cluster = new ecs.Cluster(stack, 'Cluster', { vpc });
  const task = new ecs.FargateTaskDefinition(stack, 'Task');
  task.addContainer('app', { image: ecs.ContainerImage.fromRegistry('public.ecr.aws/nginx/nginx:stable') });
  return new ecs.FargateService(stack, 'Service', { cluster, taskDefinition: task });
}

describe('defaults', () => {
  beforeEach(() => new SharedFileSystem(stack, 'Files', { vpc }));

  test('uses Elastic throughput and General Purpose', () => {
    Template.fromStack(stack).hasResourceProperties('AWS::EFS::FileSystem', {
      ThroughputMode: 'elastic', PerformanceMode: 'generalPurpose',
    });
  });

  test('encrypts at rest with backups on', () => {
    Template.fromStack(stack).hasResourceProperties('AWS::EFS::FileSystem', {
      Encrypted: true, BackupPolicy: { Status: 'ENABLED' },
    });
  });

  test('retains the file system when it leaves the stack', () => {
    expect(onlyFileSystem()).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  test('tiers to Infrequent Access after 30 days and back on first access', () => {
    Template.fromStack(stack).hasResourceProperties('AWS::EFS::FileSystem', {
      LifecyclePolicies: [{ TransitionToIA: 'AFTER_30_DAYS' }, { TransitionToPrimaryStorageClass: 'AFTER_1_ACCESS' }],
    });
  });

  test('denies every request without TLS', () => {
    Template.fromStack(stack).hasResourceProperties('AWS::EFS::FileSystem', {
      FileSystemPolicy: {
        Statement: Match.arrayWith([{
          Sid: 'DenyWithoutTls', Effect: 'Deny', Principal: { AWS: '*' }, Action: '*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }]),
      },
    });
  });

  test('allows nothing to anonymous clients (no Allow statement at all)', () => {
    const statements: any[] = onlyFileSystem().Properties.FileSystemPolicy.Statement;
    expect(statements.filter((s) => s.Effect !== 'Deny')).toEqual([]);
  });

  test('puts one mount target in each private subnet', () => {
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::EFS::MountTarget', 2);
    const privateIds = vpc.privateSubnets.map((s) => stack.resolve(s.subnetId));
    for (const mt of Object.values(template.findResources('AWS::EFS::MountTarget'))) {
      expect(privateIds).toContainEqual(mt.Properties.SubnetId);
    }
  });

  test('adds no warnings', () => {
    Annotations.fromStack(stack).hasNoWarning('*', Match.stringLikeRegexp('cdk-efs-kit'));
  });
});

describe('file system policy and grants', () => {
  test('does not repeat aws-cdk\'s mount-breaking default even with its denyAnonymousAccess flag on', () => {
    const app = new App({ context: { '@aws-cdk/aws-efs:denyAnonymousAccess': true } });
    stack = new Stack(app, 'Flagged');
    vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2 });
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    files.grantReadWrite(new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') }));
    const statements: any[] = onlyFileSystem().Properties.FileSystemPolicy.Statement;
    // aws-cdk's default allows ClientWrite/ClientRootAccess to '*' but not ClientMount (aws/aws-cdk#33669).
    expect(statements.filter((s) => s.Effect === 'Allow')).toEqual([]);
  });

  test('lets a granted principal mount and write through an access point, via its identity policy', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    const ap = files.addAccessPoint('App', AccessPointPreset.applicationUser('/app'));
    const role = new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com') });
    files.grantAccess(role, AccessLevel.READ_WRITE, ap);
    Template.fromStack(stack).hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: [{
          Effect: 'Allow',
          Action: ['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite'],
          Resource: stack.resolve(files.fileSystemArn),
          Condition: {
            Bool: { 'elasticfilesystem:AccessedViaMountTarget': 'true' },
            StringEquals: { 'elasticfilesystem:AccessPointArn': stack.resolve(ap.accessPointArn) },
          },
        }],
      },
    });
  });

  test('grants root access only when asked', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    const role = new iam.Role(stack, 'Role', { assumedBy: new iam.AccountRootPrincipal() });
    files.grantRootAccess(role);
    Template.fromStack(stack).hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: [Match.objectLike({
        Action: ['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite', 'elasticfilesystem:ClientRootAccess'],
      })] },
    });
  });

  test('allowAnonymousAccess adds an Allow for mount and write, still behind TLS', () => {
    new SharedFileSystem(stack, 'Files', { vpc, allowAnonymousAccess: true });
    const statements: any[] = onlyFileSystem().Properties.FileSystemPolicy.Statement;
    expect(statements.map((s) => s.Sid)).toEqual(['DenyWithoutTls', 'AllowAnonymousMountAndWrite']);
    expect(statements[1].Action).toEqual(['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite']);
  });

  test('enforceTls false drops the TLS statement', () => {
    new SharedFileSystem(stack, 'Files', { vpc, enforceTls: false, allowAnonymousAccess: true });
    const statements: any[] = onlyFileSystem().Properties.FileSystemPolicy.Statement;
    expect(statements.map((s) => s.Sid)).toEqual(['AllowAnonymousMountAndWrite']);
  });
});

describe('overrides', () => {
  test('takes a customer managed KMS key', () => {
    const key = new kms.Key(stack, 'Key', { enableKeyRotation: true });
    new SharedFileSystem(stack, 'Files', { vpc, kmsKey: key });
    Template.fromStack(stack).hasResourceProperties('AWS::EFS::FileSystem', {
      Encrypted: true, KmsKeyId: stack.resolve(key.keyArn),
    });
  });

  test('provisioned throughput in MiB/s', () => {
    new SharedFileSystem(stack, 'Files', {
      vpc, throughputMode: efs.ThroughputMode.PROVISIONED, provisionedThroughputPerSecond: Size.mebibytes(200),
    });
    Template.fromStack(stack).hasResourceProperties('AWS::EFS::FileSystem', {
      ThroughputMode: 'provisioned', ProvisionedThroughputInMibps: 200,
    });
  });

  test('lifecycle off', () => {
    new SharedFileSystem(stack, 'Files', { vpc, lifecycle: StorageLifecycle.none() });
    expect(onlyFileSystem().Properties.LifecyclePolicies).toBeUndefined();
  });

  test('to IA without coming back on first access, then to Archive', () => {
    new SharedFileSystem(stack, 'Files', {
      vpc,
      lifecycle: StorageLifecycle.infrequentAccess({
        after: efs.LifecyclePolicy.AFTER_7_DAYS, backOnFirstAccess: false, archiveAfter: efs.LifecyclePolicy.AFTER_90_DAYS,
      }),
    });
    expect(onlyFileSystem().Properties.LifecyclePolicies).toEqual([{ TransitionToIA: 'AFTER_7_DAYS' }, { TransitionToArchive: 'AFTER_90_DAYS' }]);
  });

  test('One Zone puts a single mount target in the first AZ', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc, oneZone: true });
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::EFS::MountTarget', 1);
    template.hasResourceProperties('AWS::EFS::FileSystem', { AvailabilityZoneName: stack.resolve(vpc.availabilityZones[0]) });
    expect(files.mountTargetSubnets.subnets).toHaveLength(1);
  });

  test('isolated subnets when the VPC has no private ones', () => {
    stack = new Stack(new App(), 'Isolated');
    vpc = new ec2.Vpc(stack, 'Vpc', {
      maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'iso', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
    });
    new SharedFileSystem(stack, 'Files', { vpc });
    Template.fromStack(stack).resourceCountIs('AWS::EFS::MountTarget', 2);
  });

  test.each([
    ['removalPolicyDestroy', { removalPolicy: RemovalPolicy.DESTROY }],
    ['backupsDisabled', { enableAutomaticBackups: false }],
    ['burstingThroughput', { throughputMode: efs.ThroughputMode.BURSTING }],
    ['unencrypted', { encrypted: false }],
    ['tlsNotEnforced', { enforceTls: false }],
    ['anonymousAccess', { allowAnonymousAccess: true }],
    ['publicSubnets', { vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC } }],
  ])('warns with id cdk-efs-kit:%s for a risky choice', (id, props) => {
    new SharedFileSystem(stack, 'Files', { vpc, ...props });
    Annotations.fromStack(stack).hasWarning('/Test/Files', Match.stringLikeRegexp(`\\[ack: cdk-efs-kit:${id}\\]`));
  });
});

describe('validation', () => {
  test('fails when PROVISIONED has no provisionedThroughputPerSecond', () => {
    expect(() => new SharedFileSystem(stack, 'Files', { vpc, throughputMode: efs.ThroughputMode.PROVISIONED }))
      .toThrow(/throughputMode \(throughput_mode\) PROVISIONED needs provisionedThroughputPerSecond \(provisioned_throughput_per_second\)/);
  });

  test('fails when provisionedThroughputPerSecond is given without PROVISIONED', () => {
    expect(() => new SharedFileSystem(stack, 'Files', { vpc, provisionedThroughputPerSecond: Size.mebibytes(10) }))
      .toThrow(/provisionedThroughputPerSecond \(provisioned_throughput_per_second\) is only allowed with throughputMode \(throughput_mode\) PROVISIONED, got throughputMode elastic/);
  });

  test('fails when provisioned throughput is below 1 MiB/s', () => {
    expect(() => new SharedFileSystem(stack, 'Files', {
      vpc, throughputMode: efs.ThroughputMode.PROVISIONED, provisionedThroughputPerSecond: Size.kibibytes(512),
    })).toThrow(/provisionedThroughputPerSecond \(provisioned_throughput_per_second\) \(MiB\/s\) must be at least 1, got 0.5/);
  });

  test('fails when MAX_IO is combined with Elastic throughput', () => {
    expect(() => new SharedFileSystem(stack, 'Files', { vpc, performanceMode: efs.PerformanceMode.MAX_IO }))
      .toThrow(/performanceMode \(performance_mode\) MAX_IO does not support throughputMode \(throughput_mode\) ELASTIC/);
  });

  test('fails when MAX_IO is combined with One Zone', () => {
    expect(() => new SharedFileSystem(stack, 'Files', {
      vpc, performanceMode: efs.PerformanceMode.MAX_IO, throughputMode: efs.ThroughputMode.BURSTING, oneZone: true,
    })).toThrow(/MAX_IO is not available for One Zone/);
  });

  test('fails when a KMS key is given for an unencrypted file system', () => {
    const key = new kms.Key(stack, 'Key');
    expect(() => new SharedFileSystem(stack, 'Files', { vpc, encrypted: false, kmsKey: key }))
      .toThrow(/kmsKey \(kms_key\) is given but encrypted is false/);
  });

  test('fails when the VPC has only public subnets and no vpcSubnets is given', () => {
    stack = new Stack(new App(), 'PublicOnly');
    vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, subnetConfiguration: [{ name: 'pub', subnetType: ec2.SubnetType.PUBLIC }] });
    expect(() => new SharedFileSystem(stack, 'Files', { vpc })).toThrow(/vpc has no private or isolated subnets/);
  });

  describe('addAccessPoint', () => {
    let files: SharedFileSystem;
    beforeEach(() => { files = new SharedFileSystem(stack, 'Files', { vpc }); });

    test.each([
      ['relative', 'app'], ['with ..', '/app/../etc'], ['with an empty part', '/app//x'], ['with a trailing slash', '/app/'],
    ])('fails when the path is %s', (_, path) => {
      expect(() => files.addAccessPoint('Ap', AccessPointPreset.custom({ path })))
        .toThrow(`SharedFileSystem(Test/Files).addAccessPoint('Ap'): path must be an absolute path without empty, '.' or '..' parts, got "${path}".`);
    });

    test('fails when the path is longer than 100 characters', () => {
      expect(() => files.addAccessPoint('Ap', AccessPointPreset.custom({ path: '/' + 'a'.repeat(100) }))).toThrow(/path must be at most 100 characters/);
    });

    test('fails when a POSIX uid is not an integer', () => {
      expect(() => files.addAccessPoint('Ap', AccessPointPreset.custom({ path: '/a', posixUser: { uid: 'app', gid: '1000' } })))
        .toThrow(`posixUser.uid (posix_user.uid) must be an integer from 0 to 4294967295, got "app".`);
    });

    test('fails when a gid is out of range', () => {
      expect(() => files.addAccessPoint('Ap', AccessPointPreset.custom({ path: '/a', posixUser: { uid: '1', gid: '4294967296' } })))
        .toThrow(/posixUser.gid \(posix_user\.gid\) must be an integer/);
    });

    test('fails when createAcl permissions are not octal', () => {
      expect(() => files.addAccessPoint('Ap', AccessPointPreset.applicationUser('/a', { permissions: '789' })))
        .toThrow(`createAcl.permissions (create_acl.permissions) must be an octal mode such as '750', got "789".`);
    });

    test('skips validation of tokens', () => {
      expect(() => files.addAccessPoint('Ap', AccessPointPreset.custom({ path: Token.asString({ Ref: 'PathParam' }) }))).not.toThrow();
    });

    test('the application-user preset creates /path as 1000:1000 mode 750', () => {
      files.addAccessPoint('Ap', AccessPointPreset.applicationUser('/srv'));
      Template.fromStack(stack).hasResourceProperties('AWS::EFS::AccessPoint', {
        PosixUser: { Uid: '1000', Gid: '1000' },
        RootDirectory: { Path: '/srv', CreationInfo: { OwnerUid: '1000', OwnerGid: '1000', Permissions: '750' } },
      });
    });

    test('warns when a sub-directory access point has no createAcl', () => {
      files.addAccessPoint('Ap', AccessPointPreset.custom({ path: '/data' }));
      Annotations.fromStack(stack).hasWarning('/Test/Files', Match.stringLikeRegexp('accessPointWithoutCreateAcl'));
    });
  });
});

describe('mountOnLambda', () => {
  let files: SharedFileSystem;
  let ap: efs.AccessPoint;
  beforeEach(() => {
    files = new SharedFileSystem(stack, 'Files', { vpc });
    ap = files.addAccessPoint('Ap', AccessPointPreset.applicationUser('/lambda'));
  });

  test('configures the access point, UV_THREADPOOL_SIZE and the mount target dependency', () => {
    const client = newFunction();
    files.mountOnLambda(client, ap, { mountPath: '/mnt/data' });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Lambda::Function', {
      FileSystemConfigs: [{ Arn: stack.resolve(ap.accessPointArn), LocalMountPath: '/mnt/data' }],
      Environment: { Variables: { UV_THREADPOOL_SIZE: '64' } },
    });
    const fn = template.toJSON().Resources[stack.getLogicalId(client.node.defaultChild as lambda.CfnFunction)];
    expect(fn.DependsOn).toEqual(expect.arrayContaining(
      Object.keys(template.findResources('AWS::EFS::MountTarget'))));
  });

  test('opens port 2049 from the function', () => {
    files.mountOnLambda(newFunction(), ap);
    Template.fromStack(stack).hasResourceProperties('AWS::EC2::SecurityGroupIngress', {
      IpProtocol: 'tcp', FromPort: 2049, ToPort: 2049,
    });
  });

  test('the function waits for its port 2049 rules, in and out: it mounts as soon as it runs', () => {
    const sg = new ec2.SecurityGroup(stack, 'FnGroup', { vpc, allowAllOutbound: false });
    const fn = new lambda.Function(stack, 'Fn', {
      runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => 1;'), vpc, securityGroups: [sg],
    });
    files.mountOnLambda(fn, ap);
    const template = Template.fromStack(stack);
    const fromFn = { Properties: { FromPort: 2049 } };
    // The rules between this function's group and the file system's (the readiness gate has its own).
    const rules = [...Object.keys(template.findResources('AWS::EC2::SecurityGroupIngress', fromFn)),
      ...Object.keys(template.findResources('AWS::EC2::SecurityGroupEgress', fromFn))].filter((id) => id.includes('FnGroup'));
    expect(rules).toHaveLength(2);
    const cfnFunction = template.toJSON().Resources[stack.getLogicalId(fn.node.defaultChild as lambda.CfnFunction)];
    expect(cfnFunction.DependsOn).toEqual(expect.arrayContaining(rules));
  });

  test('read-only grants only ClientMount', () => {
    files.mountOnLambda(newFunction(), ap, { readOnly: true });
    Template.fromStack(stack).hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 'elasticfilesystem:ClientMount' })]) },
    });
  });

  test('fails when the mount path is outside /mnt/', () => {
    expect(() => files.mountOnLambda(newFunction(), ap, { mountPath: '/data' }))
      .toThrow(`SharedFileSystem(Test/Files).mountOnLambda(Test/Fn): mountPath (mount_path) must match /mnt/<name> (letters, digits, - _ .), as Lambda requires, got "/data".`);
  });

  test('fails when the thread pool size is above libuv\'s 1024', () => {
    expect(() => files.mountOnLambda(newFunction(), ap, { threadPoolSize: 2048 })).toThrow(/threadPoolSize \(thread_pool_size\) must be an integer from 1 to 1024/);
  });

  test('fails when the function is not in a VPC', () => {
    expect(() => files.mountOnLambda(newFunction('Out', false), ap)).toThrow(/the function is not in a VPC/);
  });

  test('fails when the function already mounts a file system', () => {
    const fn = newFunction();
    files.mountOnLambda(fn, ap);
    expect(() => files.mountOnLambda(fn, ap)).toThrow(/already mounts a file system; Lambda allows one/);
  });

  test('fails when the access point belongs to another file system', () => {
    const other = new SharedFileSystem(stack, 'Other', { vpc });
    const foreign = other.addAccessPoint('Foreign', AccessPointPreset.applicationUser('/x'));
    expect(() => files.mountOnLambda(newFunction(), foreign)).toThrow(/belongs to file system .* not this one/);
  });
});

describe('mountOnEcsService', () => {
  test('adds an encrypted, IAM-authorized volume through the access point, and grants the task role', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    const ap = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
    const service = newService();
    files.mountOnEcsService(service, ap, { containerPath: '/var/www' });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      Volumes: [{
        Name: 'efs-Web',
        EFSVolumeConfiguration: {
          FilesystemId: stack.resolve(files.fileSystemId),
          TransitEncryption: 'ENABLED',
          AuthorizationConfig: { AccessPointId: stack.resolve(ap.accessPointId), IAM: 'ENABLED' },
        },
      }],
      ContainerDefinitions: [Match.objectLike({ MountPoints: [{ SourceVolume: 'efs-Web', ContainerPath: '/var/www', ReadOnly: false }] })],
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [stack.resolve((service.taskDefinition.taskRole as iam.Role).roleName)],
      PolicyDocument: { Statement: [Match.objectLike({ Action: ['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite'] })] },
    });
    template.hasResourceProperties('AWS::EC2::SecurityGroupIngress', { FromPort: 2049, ToPort: 2049 });
    const svc = Object.values(template.findResources('AWS::ECS::Service'))[0];
    expect(svc.DependsOn).toEqual(expect.arrayContaining(Object.keys(template.findResources('AWS::EFS::MountTarget'))));
  });

  test('fails when the task definition has no container', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    const ap = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
    const task = new ecs.FargateTaskDefinition(stack, 'Empty');
    expect(() => files.mountOnEcsTask(task, ap, { containerPath: '/data' })).toThrow(/has no container yet/);
  });

  test('fails when the container path is relative', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    const ap = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
    expect(() => files.mountOnEcsService(newService(), ap, { containerPath: 'data' })).toThrow(/containerPath \(container_path\) must be an absolute path other than \/, got "data"/);
  });
});

describe('mountOnEc2', () => {
  function userDataOf(template: Template, type: string, prop: string): string {
    const res = Object.values(template.findResources(type))[0];
    return JSON.stringify(res.Properties[prop]);
  }

  test('installs efs-utils and mounts with tls,iam,accesspoint from fstab with _netdev,nofail', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    const ap = files.addAccessPoint('Host', AccessPointPreset.applicationUser('/host'));
    const instance = new ec2.Instance(stack, 'Host', {
      vpc, instanceType: new ec2.InstanceType('t3.micro'), machineImage: ec2.MachineImage.latestAmazonLinux2023(),
    });
    files.mountOnEc2(instance, { accessPoint: ap, mountPoint: '/srv/efs' });
    const template = Template.fromStack(stack);
    const userData = userDataOf(template, 'AWS::EC2::Instance', 'UserData');
    expect(userData).toContain('install -y amazon-efs-utils');
    expect(userData).toMatch(/:\/ \/srv\/efs efs tls,iam,accesspoint=.*,_netdev,nofail 0 0/);
    // TLS and IAM are required by the policy, so there is no plain-NFS fallback.
    expect(userData).toContain('amazon-efs-utils is not available');
    expect(userData).not.toContain(' nfs4 ');
    template.hasResourceProperties('AWS::EC2::SecurityGroupIngress', { FromPort: 2049 });
  });

  test('falls back to NFSv4.1 with the recommended options where the policy allows plain NFS', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc, enforceTls: false, allowAnonymousAccess: true });
    const asg = new autoscaling.AutoScalingGroup(stack, 'Asg', {
      vpc, instanceType: new ec2.InstanceType('t3.micro'), machineImage: ec2.MachineImage.latestAmazonLinux2023(),
    });
    files.mountOnEc2(asg);
    const userData = JSON.stringify(Template.fromStack(stack).toJSON());
    expect(userData).toContain('nfs4 nfsvers=4.1,rsize=1048576,wsize=1048576,hard,timeo=600,retrans=2,noresvport,_netdev,nofail 0 0');
    expect(userData).toContain('.efs.');
  });

  test('fails when the mount point is /', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    const instance = new ec2.Instance(stack, 'Host', {
      vpc, instanceType: new ec2.InstanceType('t3.micro'), machineImage: ec2.MachineImage.latestAmazonLinux2023(),
    });
    expect(() => files.mountOnEc2(instance, { mountPoint: '/' })).toThrow(/mountPoint \(mount_point\) must be an absolute path other than \//);
  });
});

describe('One Zone\'s Availability Zone', () => {
  const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
  beforeEach(() => {
    stack = new Stack(new App(), 'Zoned');
    vpc = new ec2.Vpc(stack, 'Vpc', { availabilityZones: ZONES, natGateways: 1 });
  });
  const zoneOf = (files: SharedFileSystem) => files.mountTargetSubnets.subnets.map((s) => s.availabilityZone);

  test('availabilityZone puts the file system and its one mount target there', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc, oneZone: true, availabilityZone: 'us-east-1b' });
    Template.fromStack(stack).hasResourceProperties('AWS::EFS::FileSystem', { AvailabilityZoneName: 'us-east-1b' });
    Template.fromStack(stack).resourceCountIs('AWS::EFS::MountTarget', 1);
    expect(zoneOf(files)).toEqual(['us-east-1b']);
  });

  test('aws-efs\'s way, one zone in vpcSubnets.availabilityZones, works too', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc, oneZone: true, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, availabilityZones: ['us-east-1c'] } });
    Template.fromStack(stack).hasResourceProperties('AWS::EFS::FileSystem', { AvailabilityZoneName: 'us-east-1c' });
    expect(zoneOf(files)).toEqual(['us-east-1c']);
  });

  test('fails when availabilityZone is given without oneZone', () => {
    expect(() => new SharedFileSystem(stack, 'Files', { vpc, availabilityZone: 'us-east-1b' }))
      .toThrow('SharedFileSystem(Zoned/Files): availabilityZone (availability_zone) applies to One Zone file systems only (oneZone (one_zone) true), got availabilityZone "us-east-1b" without oneZone.');
  });

  test('fails when vpcSubnets names two zones', () => {
    expect(() => new SharedFileSystem(stack, 'Files', { vpc, oneZone: true, vpcSubnets: { availabilityZones: ['us-east-1a', 'us-east-1b'] } }))
      .toThrow(/vpcSubnets.availabilityZones \(vpc_subnets\.availability_zones\) must name exactly one, got \["us-east-1a","us-east-1b"\]/);
  });

  test('fails when availabilityZone and vpcSubnets disagree', () => {
    expect(() => new SharedFileSystem(stack, 'Files', { vpc, oneZone: true, availabilityZone: 'us-east-1a', vpcSubnets: { availabilityZones: ['us-east-1b'] } }))
      .toThrow(/availabilityZone \(availability_zone\) "us-east-1a" and vpcSubnets.availabilityZones \(vpc_subnets\.availability_zones\) \["us-east-1b"\] disagree/);
  });

  test('fails when the zone is not one of the VPC\'s', () => {
    expect(() => new SharedFileSystem(stack, 'Files', { vpc, oneZone: true, availabilityZone: 'us-west-2a' }))
      .toThrow('SharedFileSystem(Zoned/Files): availabilityZone (availability_zone) must be one of the VPC\'s zones (us-east-1a, us-east-1b, us-east-1c), got "us-west-2a".');
  });
});

describe('fileSystemPolicy, merged with the secure defaults', () => {
  const reader = () => new iam.ArnPrincipal('arn:aws:iam::111122223333:role/EfsReadOnly');
  const statementsOf = () => onlyFileSystem().Properties.FileSystemPolicy.Statement as any[];
  const policyWarnings = () => Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('cdk-efs-kit:policy'));

  test('adds its statements after the TLS deny, without a warning', () => {
    new SharedFileSystem(stack, 'Files', {
      vpc,
      fileSystemPolicy: new iam.PolicyDocument({
        statements: [new iam.PolicyStatement({ sid: 'AllowReadOnlyClientAccess', principals: [reader()], actions: ['elasticfilesystem:ClientMount'] })],
      }),
    });
    expect(statementsOf()).toEqual([
      expect.objectContaining({ Sid: 'DenyWithoutTls', Effect: 'Deny' }),
      { Sid: 'AllowReadOnlyClientAccess', Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::111122223333:role/EfsReadOnly' }, Action: 'elasticfilesystem:ClientMount' },
    ]);
    expect(policyWarnings()).toEqual([]);
  });

  test('warns that an Allow for requests without TLS never takes effect under the deny', () => {
    new SharedFileSystem(stack, 'Files', {
      vpc,
      fileSystemPolicy: new iam.PolicyDocument({
        statements: [new iam.PolicyStatement({
          sid: 'PlainNfs', principals: [reader()], actions: ['elasticfilesystem:ClientMount'], conditions: { Bool: { 'aws:SecureTransport': 'false' } },
        })],
      }),
    });
    Annotations.fromStack(stack).hasWarning('/Test/Files', Match.stringLikeRegexp('statement PlainNfs: allows requests without TLS .* never takes effect.*policyAllowsWithoutTls'));
    expect(statementsOf().map((s) => s.Sid)).toEqual(['DenyWithoutTls', 'PlainNfs']);
  });

  test('with enforceTls false, warns that such an Allow lets plain NFS in', () => {
    new SharedFileSystem(stack, 'Files', {
      vpc,
      enforceTls: false,
      fileSystemPolicy: new iam.PolicyDocument({
        statements: [new iam.PolicyStatement({
          principals: [reader()], actions: ['elasticfilesystem:ClientMount'], conditions: { BoolIfExists: { 'AWS:SecureTransport': false } },
        })],
      }),
    });
    Annotations.fromStack(stack).hasWarning('/Test/Files', Match.stringLikeRegexp('statement 0: allows requests without TLS .*enforceTls is false.*policyAllowsWithoutTls'));
  });

  test('warns when a statement allows every principal', () => {
    new SharedFileSystem(stack, 'Files', {
      vpc,
      fileSystemPolicy: new iam.PolicyDocument({
        statements: [new iam.PolicyStatement({ sid: 'Everyone', principals: [new iam.AnyPrincipal()], actions: ['elasticfilesystem:ClientMount'] })],
      }),
    });
    Annotations.fromStack(stack).hasWarning('/Test/Files', Match.stringLikeRegexp('statement Everyone: allows every principal.*policyAllowsAnyone'));
  });

  test('fails when a statement reuses a secure default\'s Sid', () => {
    expect(() => new SharedFileSystem(stack, 'Files', {
      vpc,
      fileSystemPolicy: new iam.PolicyDocument({
        statements: [new iam.PolicyStatement({ sid: 'DenyWithoutTls', principals: [reader()], actions: ['elasticfilesystem:ClientMount'] })],
      }),
    })).toThrow('SharedFileSystem(Test/Files): fileSystemPolicy statement DenyWithoutTls: Sid DenyWithoutTls is the secure defaults\' own; choose another, got "DenyWithoutTls".');
  });

  test('fails when a statement has no principal', () => {
    expect(() => new SharedFileSystem(stack, 'Files', {
      vpc,
      fileSystemPolicy: new iam.PolicyDocument({ statements: [new iam.PolicyStatement({ actions: ['elasticfilesystem:ClientMount'] })] }),
    })).toThrow('SharedFileSystem(Test/Files): fileSystemPolicy statement 0: a file system policy statement needs a principal (Principal or NotPrincipal), got none.');
  });
});

describe('addAccessPointWithOptions (aws-efs\'s AccessPointOptions)', () => {
  test('takes the options aws-efs\'s addAccessPoint takes', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    const options: efs.AccessPointOptions = {
      path: '/reports',
      posixUser: { uid: '1001', gid: '1001', secondaryGids: ['2000'] },
      createAcl: { ownerUid: '1001', ownerGid: '1001', permissions: '750' },
      clientToken: 'reports',
    };
    const ap = files.addAccessPointWithOptions('Reports', options);
    Template.fromStack(stack).hasResourceProperties('AWS::EFS::AccessPoint', {
      FileSystemId: stack.resolve(files.fileSystemId),
      ClientToken: 'reports',
      PosixUser: { Uid: '1001', Gid: '1001', SecondaryGids: ['2000'] },
      RootDirectory: { Path: '/reports', CreationInfo: { OwnerUid: '1001', OwnerGid: '1001', Permissions: '750' } },
    });
    expect(ap.fileSystem).toBe(files);
  });

  test('checks them as addAccessPoint checks a preset', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    expect(() => files.addAccessPointWithOptions('Ap', { path: 'reports' }))
      .toThrow(`SharedFileSystem(Test/Files).addAccessPoint('Ap'): path must be an absolute path without empty, '.' or '..' parts, got "reports".`);
  });
});

// docs/file-system.md's table says these carry over from efs.FileSystem unchanged: each row checked here
// where no other test of this file does.
describe('what efs.FileSystem has, as docs/file-system.md\'s table says', () => {
  test('fileSystemName names the file system', () => {
    new SharedFileSystem(stack, 'Files', { vpc, fileSystemName: 'shared-data' });
    expect(onlyFileSystem().Properties.FileSystemTags).toEqual([{ Key: 'Name', Value: 'shared-data' }]);
  });

  test('securityGroup is the mount targets\' group, and the connections the helpers open', () => {
    const sg = new ec2.SecurityGroup(stack, 'Sg', { vpc });
    const files = new SharedFileSystem(stack, 'Files', { vpc, securityGroup: sg });
    Template.fromStack(stack).allResourcesProperties('AWS::EFS::MountTarget', { SecurityGroups: [stack.resolve(sg.securityGroupId)] });
    expect(files.connections.securityGroups).toEqual([sg]);
  });

  test('applyRemovalPolicy changes the file system\'s deletion policy', () => {
    new SharedFileSystem(stack, 'Files', { vpc }).applyRemovalPolicy(RemovalPolicy.DESTROY);
    expect([onlyFileSystem().DeletionPolicy, onlyFileSystem().UpdateReplacePolicy]).toEqual(['Delete', 'Delete']);
  });

  test('grant gives the actions named on the file system; grantRead gives ClientMount through mount targets', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    const role = new iam.Role(stack, 'Role', { assumedBy: new iam.AccountRootPrincipal() });
    files.grant(role, 'elasticfilesystem:DescribeMountTargets');
    files.grantRead(role);
    Template.fromStack(stack).hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: [
          { Effect: 'Allow', Action: 'elasticfilesystem:DescribeMountTargets', Resource: stack.resolve(files.fileSystemArn) },
          {
            Effect: 'Allow', Action: 'elasticfilesystem:ClientMount', Resource: stack.resolve(files.fileSystemArn),
            Condition: { Bool: { 'elasticfilesystem:AccessedViaMountTarget': 'true' } },
          },
        ],
      },
    });
  });

  test('addToResourcePolicy adds to the file system policy, after the TLS deny', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    const result = files.addToResourcePolicy(new iam.PolicyStatement({
      sid: 'BackupReads', principals: [new iam.ServicePrincipal('backup.amazonaws.com')], actions: ['elasticfilesystem:ClientMount'],
    }));
    expect(result.statementAdded).toBe(true);
    expect(onlyFileSystem().Properties.FileSystemPolicy.Statement.map((s: any) => s.Sid)).toEqual(['DenyWithoutTls', 'BackupReads']);
  });

  test('mountTargetsAvailable: what depends on it is created after every mount target', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    const fn = newFunction();
    fn.node.addDependency(files.mountTargetsAvailable);
    const mountTargets = Object.keys(Template.fromStack(stack).findResources('AWS::EFS::MountTarget'));
    expect(mountTargets).toHaveLength(2);
    const [func] = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function'));
    expect(func.DependsOn).toEqual(expect.arrayContaining(mountTargets));
  });
});
