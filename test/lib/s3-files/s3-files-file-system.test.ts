import { App, Duration, RemovalPolicy, Size, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import {
  AccessLevel, AccessPointPreset, DirectS3Read, FileSystemKind, ImportTrigger, MountTargetIpAddressType, S3FilesFileSystem,
} from '../../../lib';
import { nagErrors } from '../../helpers/checks';

let stack: Stack;
let vpc: ec2.Vpc;

beforeEach(() => {
  stack = new Stack(new App(), 'Test');
  vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
});

const template = () => Template.fromStack(stack);

function newFunction(memorySize?: number): lambda.Function {
  return new lambda.Function(stack, 'Fn', {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => 1;'),
    vpc,
    memorySize,
  });
}

/** The statements of every IAM policy in the template. */
function statements(): any[] {
  return Object.values(template().findResources('AWS::IAM::Policy')).flatMap((p: any) => p.Properties.PolicyDocument.Statement);
}

describe('file system and service role', () => {
  beforeEach(() => new S3FilesFileSystem(stack, 'Files', { vpc }));

  test('makes a versioned, retained bucket with a noncurrent-version rule', () => {
    template().hasResource('AWS::S3::Bucket', {
      Properties: Match.objectLike({
        VersioningConfiguration: { Status: 'Enabled' },
        LifecycleConfiguration: { Rules: [Match.objectLike({ NoncurrentVersionExpiration: { NoncurrentDays: 30 }, Status: 'Enabled' })] },
      }),
      DeletionPolicy: 'Retain',
    });
  });

  test('the file system is retained and names the bucket and the role', () => {
    template().hasResource('AWS::S3Files::FileSystem', {
      Properties: { Bucket: { 'Fn::GetAtt': [Match.stringLikeRegexp('FilesBucket'), 'Arn'] }, RoleArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('FilesServiceRole'), 'Arn'] } },
      DeletionPolicy: 'Retain',
    });
  });

  test('the role trusts elasticfilesystem.amazonaws.com for this account\'s S3 Files file systems only', () => {
    template().hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: { Statement: [Match.objectLike({
        Principal: { Service: 'elasticfilesystem.amazonaws.com' },
        Condition: {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          ArnLike: { 'aws:SourceArn': { 'Fn::Join': ['', Match.arrayWith([':s3files:', ':file-system/*'])] } },
        },
      })] },
    });
  });

  test('EventBridge rule permissions are on DO-NOT-DELETE-S3-Files* with the ManagedBy condition', () => {
    const rule = statements().find((s) => s.Sid === 'ManagedEventRules');
    expect(rule.Action).toEqual(['events:PutRule', 'events:PutTargets', 'events:DeleteRule', 'events:EnableRule', 'events:DisableRule', 'events:RemoveTargets']);
    expect(rule.Condition).toEqual({ StringEquals: { 'events:ManagedBy': 'elasticfilesystem.amazonaws.com' } });
    expect(JSON.stringify(rule.Resource)).toContain(':rule/DO-NOT-DELETE-S3-Files*');
  });

  test('S3 object permissions are scoped to the prefix, listing to the bucket, and no KMS without a key', () => {
    const objects = statements().find((s) => s.Sid === 'ObjectsUnderPrefix');
    expect(JSON.stringify(objects.Resource)).toContain('/*');
    expect(statements().find((s) => s.Sid === 'ListBucket').Action).toEqual(['s3:ListBucket', 's3:ListBucketVersions']);
    expect(statements().find((s) => s.Sid === 'BucketKeyThroughS3')).toBeUndefined();
  });

  test('one mount target per zone, in the mount target security group, and a TLS deny policy', () => {
    template().resourceCountIs('AWS::S3Files::MountTarget', 2);
    template().hasResourceProperties('AWS::S3Files::MountTarget', { SecurityGroups: [{ 'Fn::GetAtt': [Match.stringLikeRegexp('FilesSecurityGroup'), 'GroupId'] }] });
    template().hasResourceProperties('AWS::S3Files::FileSystemPolicy', {
      Policy: { Statement: [Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })] },
    });
  });
});

describe('bucket', () => {
  test('fails when a bucket of the app is not versioned, naming the prop', () => {
    const bucket = new s3.Bucket(stack, 'Plain');
    expect(() => new S3FilesFileSystem(stack, 'Files', { vpc, bucket })).toThrow(/requires a versioned bucket.*bucket.*versioned/);
  });

  test('warns for an imported bucket, whose versioning it cannot see', () => {
    new S3FilesFileSystem(stack, 'Files', { vpc, bucket: s3.Bucket.fromBucketName(stack, 'Imported', 'my-bucket') });
    Annotations.fromStack(stack).hasWarning('/Test/Files', Match.stringLikeRegexp('s3FilesBucketVersioningUnknown'));
  });

  test('warns when a bucket of the app would be deleted with the stack', () => {
    const bucket = new s3.Bucket(stack, 'B', { versioned: true, removalPolicy: RemovalPolicy.DESTROY });
    new S3FilesFileSystem(stack, 'Files', { vpc, bucket });
    Annotations.fromStack(stack).hasWarning('/Test/Files', Match.stringLikeRegexp('BucketHasS3FileSystemAttached'));
  });

  test('an SSE-KMS bucket: the role gets its key through S3 only', () => {
    const bucket = new s3.Bucket(stack, 'B', { versioned: true, encryptionKey: new kms.Key(stack, 'Key'), removalPolicy: RemovalPolicy.RETAIN });
    new S3FilesFileSystem(stack, 'Files', { vpc, bucket, prefix: 'data/' });
    const kmsStatement = statements().find((s) => s.Sid === 'BucketKeyThroughS3');
    expect(kmsStatement.Condition.StringEquals['kms:ViaService']).toEqual({ 'Fn::Join': ['', ['s3.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]] });
    expect(JSON.stringify(statements().find((s) => s.Sid === 'ObjectsUnderPrefix').Resource)).toContain('/data/*');
    template().hasResourceProperties('AWS::S3Files::FileSystem', { Prefix: 'data/' });
  });

  test('fails when the prefix does not end with a slash: the grants would reach keys beside it', () => {
    expect(() => new S3FilesFileSystem(stack, 'Files', { vpc, prefix: 'data' })).toThrow(/prefix.*must end with '\/'.*got "data"/);
  });

  test('fails when noncurrentVersionExpiration comes with a bucket of the user', () => {
    const bucket = new s3.Bucket(stack, 'B', { versioned: true, removalPolicy: RemovalPolicy.RETAIN });
    expect(() => new S3FilesFileSystem(stack, 'Files', { vpc, bucket, noncurrentVersionExpiration: Duration.days(7) })).toThrow(/noncurrentVersionExpiration/);
  });
});

describe('synchronization', () => {
  test('typed rules render with the defaults written out', () => {
    new S3FilesFileSystem(stack, 'Files', {
      vpc, acceptBucketWarning: true,
      synchronization: {
        importDataRules: [{ prefix: '' }, { prefix: 'hot/', sizeLessThan: Size.mebibytes(1), trigger: ImportTrigger.ON_FILE_ACCESS }],
        expireDataAfterLastAccess: Duration.days(7),
      },
    });
    template().hasResourceProperties('AWS::S3Files::FileSystem', {
      AcceptBucketWarning: true,
      SynchronizationConfiguration: {
        ImportDataRules: [
          { Prefix: '', SizeLessThan: 131072, Trigger: 'ON_DIRECTORY_FIRST_ACCESS' },
          { Prefix: 'hot/', SizeLessThan: 1048576, Trigger: 'ON_FILE_ACCESS' },
        ],
        ExpirationDataRules: [{ DaysAfterLastAccess: 7 }],
      },
    });
  });

  test('acceptBucketWarning is never set unless asked', () => {
    new S3FilesFileSystem(stack, 'Files', { vpc });
    template().hasResourceProperties('AWS::S3Files::FileSystem', { AcceptBucketWarning: Match.absent(), SynchronizationConfiguration: Match.absent() });
  });

  test('fails without exactly one root rule', () => {
    expect(() => new S3FilesFileSystem(stack, 'Files', { vpc, synchronization: { importDataRules: [{ prefix: 'a/' }] } }))
      .toThrow(/synchronization\.importDataRules.*exactly one rule for the root/);
  });

  test('fails with more than 10 import rules', () => {
    const rules = [{ prefix: '' }, ...Array.from({ length: 10 }, (_, i) => ({ prefix: `p${i}/` }))];
    expect(() => new S3FilesFileSystem(stack, 'Files', { vpc, synchronization: { importDataRules: rules } })).toThrow(/importDataRules.*1 to 10/);
  });

  test('fails when the expiration is outside 1-365 whole days', () => {
    expect(() => new S3FilesFileSystem(stack, 'Files', { vpc, synchronization: { expireDataAfterLastAccess: Duration.days(400) } }))
      .toThrow(/expireDataAfterLastAccess.*1 to 365.*400/);
    expect(() => new S3FilesFileSystem(stack, 'Other', { vpc, synchronization: { expireDataAfterLastAccess: Duration.hours(12) } }))
      .toThrow(/expireDataAfterLastAccess/);
  });
});

describe('mount targets', () => {
  test('dual-stack mount targets in dual-stack subnets', () => {
    const dual = new ec2.Vpc(stack, 'Dual', { maxAzs: 3, natGateways: 0, ipProtocol: ec2.IpProtocol.DUAL_STACK, subnetConfiguration: [{ name: 'p', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
    new S3FilesFileSystem(stack, 'Files', { vpc: dual, ipAddressType: MountTargetIpAddressType.DUAL_STACK });
    template().resourcePropertiesCountIs('AWS::S3Files::MountTarget', { IpAddressType: 'DUAL_STACK' }, 2); // an environment-agnostic stack sees 2 zones
  });

  test('fails when dual-stack mount targets are asked of IPv4-only subnets, naming the prop', () => {
    expect(() => new S3FilesFileSystem(stack, 'Files', { vpc, ipAddressType: MountTargetIpAddressType.DUAL_STACK })).toThrow(/ipAddressType.* DUAL_STACK needs dual-stack subnets/);
  });

  test('fails when two selected subnets share a zone', () => {
    const subnet = (id: string) => ec2.Subnet.fromSubnetAttributes(stack, id, { subnetId: `subnet-${id}`, availabilityZone: 'us-east-1a' });
    expect(() => new S3FilesFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnets: [subnet('a'), subnet('b')] } })).toThrow(/vpcSubnets.*one mount target per Availability Zone/);
  });
});

describe('access points and grants', () => {
  test('an access point from the EFS presets: POSIX user and root directory with creation permissions', () => {
    const files = new S3FilesFileSystem(stack, 'Files', { vpc });
    files.addAccessPoint('Shared', AccessPointPreset.applicationUser('/shared'));
    template().hasResourceProperties('AWS::S3Files::AccessPoint', {
      FileSystemId: { 'Fn::GetAtt': [Match.stringLikeRegexp('Files'), 'FileSystemId'] },
      PosixUser: { Uid: '1000', Gid: '1000' },
      RootDirectory: { Path: '/shared', CreationPermissions: { OwnerUid: '1000', OwnerGid: '1000', Permissions: '750' } },
    });
  });

  test('fails on a bad access point path, naming the prop', () => {
    const files = new S3FilesFileSystem(stack, 'Files', { vpc });
    expect(() => files.addAccessPoint('Bad', AccessPointPreset.applicationUser('relative'))).toThrow(/S3FilesFileSystem.*addAccessPoint\('Bad'\).*path/);
  });

  test('grantAccess: s3files client actions on the file system, conditioned on the access point', () => {
    const files = new S3FilesFileSystem(stack, 'Files', { vpc });
    const ap = files.addAccessPoint('Shared', AccessPointPreset.applicationUser('/shared'));
    files.grantAccess(newFunction(), AccessLevel.READ_WRITE, ap);
    const grant = statements().find((s) => JSON.stringify(s.Action).includes('s3files:ClientMount'));
    expect(grant.Action).toEqual(['s3files:ClientMount', 's3files:ClientWrite']);
    expect(Object.keys(grant.Condition.StringEquals)).toEqual(['s3files:AccessPointArn']);
  });

  test('names and kind', () => {
    const files = new S3FilesFileSystem(stack, 'Files', { vpc });
    expect(files.fileSystemKind).toBe(FileSystemKind.S3_FILES);
    expect(stack.resolve(files.fileSystemDnsName)['Fn::Join'][1]).toEqual(expect.arrayContaining(['.s3files.', '.on.aws']));
  });

  test('names in the China Regions end in on.amazonwebservices.com.cn, as efs-utils spells them', () => {
    const china = new Stack(new App(), 'China', { env: { account: '123456789012', region: 'cn-north-1' } });
    const files = new S3FilesFileSystem(china, 'Files', { vpc: new ec2.Vpc(china, 'Vpc', { maxAzs: 2 }) });
    expect(china.resolve(files.fileSystemDnsName)['Fn::Join'][1]).toEqual([{ 'Fn::GetAtt': [china.getLogicalId(files.resource), 'FileSystemId'] }, '.s3files.cn-north-1.on.amazonwebservices.com.cn']);
    expect(china.resolve(files.mountTargetDnsName('cnn1-az1'))['Fn::Join'][1]).toEqual(['cnn1-az1.', { 'Fn::GetAtt': [china.getLogicalId(files.resource), 'FileSystemId'] }, '.s3files.cn-north-1.on.amazonwebservices.com.cn']);
  });
});

describe('Lambda', () => {
  let files: S3FilesFileSystem;
  beforeEach(() => { files = new S3FilesFileSystem(stack, 'Files', { vpc }); });
  const ap = () => files.addAccessPoint('Shared', AccessPointPreset.applicationUser('/shared'));
  const directReadGrant = () => statements().find((s) => JSON.stringify(s.Action) === JSON.stringify(['s3:GetObject', 's3:GetObjectVersion']));

  test('FileSystemConfigs with S3FilesConfig, port 2049 and the readiness gate first', () => {
    files.mountOnLambda(newFunction(1024), ap(), { mountPath: '/mnt/shared' });
    template().hasResource('AWS::Lambda::Function', {
      Properties: Match.objectLike({
        FileSystemConfigs: [{ Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('FilesShared'), 'AccessPointArn'] }, LocalMountPath: '/mnt/shared', S3FilesConfig: { DirectS3Read: 'AUTO' } }],
      }),
      DependsOn: Match.arrayWith([Match.stringLikeRegexp('^FilesMountTargetsReady')]),
    });
    template().hasResourceProperties('AWS::EC2::SecurityGroupIngress', { FromPort: 2049, ToPort: 2049 });
    expect(directReadGrant()).toBeDefined();
    const onAccessPoint = statements().find((s) => JSON.stringify(s.Resource).includes('AccessPointArn') && s.Condition === undefined);
    expect(onAccessPoint.Action).toBe('s3files:ClientMount');
  });

  test('AUTO on a function under 512 MB: direct reads cannot happen, no S3 grant', () => {
    files.mountOnLambda(newFunction(256), ap());
    expect(directReadGrant()).toBeUndefined();
  });

  test('ENABLED grants direct reads whatever the memory; DISABLED never', () => {
    files.mountOnLambda(newFunction(128), ap(), { directS3Read: DirectS3Read.ENABLED });
    expect(directReadGrant()).toBeDefined();
    const other = new Stack(new App(), 'Other');
    const otherVpc = new ec2.Vpc(other, 'Vpc', { maxAzs: 2 });
    const otherFiles = new S3FilesFileSystem(other, 'Files', { vpc: otherVpc });
    const fn = new lambda.Function(other, 'Fn', { runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('x'), vpc: otherVpc, memorySize: 2048 });
    otherFiles.mountOnLambda(fn, otherFiles.addAccessPoint('A'), { directS3Read: DirectS3Read.DISABLED });
    const otherStatements = Object.values(Template.fromStack(other).findResources('AWS::IAM::Policy')).flatMap((p: any) => p.Properties.PolicyDocument.Statement);
    expect(otherStatements.some((s) => JSON.stringify(s.Action) === JSON.stringify(['s3:GetObject', 's3:GetObjectVersion']))).toBe(false);
  });

  test('direct reads on an SSE-KMS bucket also get kms:Decrypt', () => {
    const bucket = new s3.Bucket(stack, 'B', { versioned: true, encryptionKey: new kms.Key(stack, 'Key'), removalPolicy: RemovalPolicy.RETAIN });
    const kmsFiles = new S3FilesFileSystem(stack, 'KmsFiles', { vpc, bucket });
    kmsFiles.mountOnLambda(newFunction(1024), kmsFiles.addAccessPoint('A'));
    expect(statements().some((s) => JSON.stringify(s.Action).includes('kms:Decrypt'))).toBe(true);
  });
});

describe('ECS', () => {
  test('an S3FilesVolumeConfiguration, the mount point and the task role grant', () => {
    const files = new S3FilesFileSystem(stack, 'Files', { vpc });
    const cluster = new ecs.Cluster(stack, 'Cluster', { vpc });
    const task = new ecs.FargateTaskDefinition(stack, 'Task');
    task.addContainer('app', { image: ecs.ContainerImage.fromRegistry('public.ecr.aws/nginx/nginx:stable') });
    const service = new ecs.FargateService(stack, 'Service', { cluster, taskDefinition: task });
    files.mountOnEcsService(service, files.addAccessPoint('Shared', AccessPointPreset.applicationUser('/shared')), { containerPath: '/data' });
    template().hasResourceProperties('AWS::ECS::TaskDefinition', {
      Volumes: [{
        Name: 's3files-Shared',
        S3FilesVolumeConfiguration: {
          FileSystemArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('Files'), 'FileSystemArn'] },
          AccessPointArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('FilesShared'), 'AccessPointArn'] },
        },
      }],
      ContainerDefinitions: [Match.objectLike({ MountPoints: [{ SourceVolume: 's3files-Shared', ContainerPath: '/data', ReadOnly: false }] })],
    });
    const grant = statements().find((s) => JSON.stringify(s.Action).includes('s3files:ClientMount'));
    expect(grant.Action).toEqual(['s3files:ClientMount', 's3files:ClientWrite']);
  });

  test('rootAccess adds ClientRootAccess', () => {
    const files = new S3FilesFileSystem(stack, 'Files', { vpc });
    const task = new ecs.FargateTaskDefinition(stack, 'Task');
    task.addContainer('app', { image: ecs.ContainerImage.fromRegistry('x') });
    files.mountOnEcsTask(task, files.addAccessPoint('A'), { containerPath: '/data', rootAccess: true });
    expect(statements().find((s) => JSON.stringify(s.Action).includes('s3files:ClientMount')).Action).toContain('s3files:ClientRootAccess');
  });

  test('fails on a task definition of the EC2 launch type', () => {
    const files = new S3FilesFileSystem(stack, 'Files', { vpc });
    const task = new ecs.Ec2TaskDefinition(stack, 'Task');
    task.addContainer('app', { image: ecs.ContainerImage.fromRegistry('x'), memoryLimitMiB: 256 });
    expect(() => files.mountOnEcsTask(task, files.addAccessPoint('A'), { containerPath: '/data' })).toThrow(/not on the EC2 launch type.*compatibility/);
  });
});

describe('EC2', () => {
  test('user data installs efs-utils 3.1.2+, mounts -t s3files through the access point from fstab with _netdev', () => {
    const files = new S3FilesFileSystem(stack, 'Files', { vpc });
    const group = new autoscaling.AutoScalingGroup(stack, 'Hosts', {
      vpc, instanceType: new ec2.InstanceType('t3.micro'), machineImage: ec2.MachineImage.latestAmazonLinux2023(),
    });
    files.mountOnEc2(group, { mountPoint: '/mnt/shared', accessPoint: files.addAccessPoint('A') });
    const script = group.userData.render();
    expect(script).toContain('3.1.2');
    expect(script).toContain('mount.s3files');
    expect(script).toMatch(/:\/ \/mnt\/shared s3files _netdev,nofail,accesspoint=\$\{Token\[[^\]]+\]\} 0 0/);
    expect(statements().some((s) => JSON.stringify(s.Action).includes('s3files:ClientWrite'))).toBe(true);
  });
});

describe('helpers that do not serve S3 Files', () => {
  test('addMonitoring refuses, naming the construct that does', () => {
    const files = new S3FilesFileSystem(stack, 'Files', { vpc });
    expect(() => files.addMonitoring('Monitoring')).toThrow(/FileSystemMonitoring watches EFS's metrics .* use new S3FilesMonitoring\(scope, 'Monitoring', \{ fileSystem \}\)/);
  });
});

describe('imported', () => {
  test('fromFileSystemAttributes mounts and grants on the s3files ARN', () => {
    const files = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Imported', {
      fileSystemId: 'fs-0123456789abcdef0', bucket: s3.Bucket.fromBucketName(stack, 'B', 'my-bucket'), vpc,
      securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'Sg', 'sg-0123456789abcdef0'),
    });
    files.grantAccess(newFunction(), AccessLevel.READ_ONLY);
    const grant = statements().find((s) => JSON.stringify(s.Action).includes('s3files:ClientMount'));
    expect(JSON.stringify(grant.Resource)).toContain(':s3files:');
    expect(JSON.stringify(grant.Resource)).toContain('file-system/fs-0123456789abcdef0');
  });
});

describe('cdk-nag', () => {
  test('the construct adds no unacknowledged AwsSolutions finding, with its own bucket or an SSE-KMS one', () => {
    const files = new S3FilesFileSystem(stack, 'Files', { vpc });
    const bucket = new s3.Bucket(stack, 'B', { versioned: true, encryptionKey: new kms.Key(stack, 'Key', { enableKeyRotation: true }), removalPolicy: RemovalPolicy.RETAIN });
    const kmsFiles = new S3FilesFileSystem(stack, 'KmsFiles', { vpc, bucket });
    files.addAccessPoint('A');
    kmsFiles.addAccessPoint('B');
    expect(nagErrors(files)).toEqual([]);
    expect(nagErrors(kmsFiles)).toEqual([]);
  });
});
