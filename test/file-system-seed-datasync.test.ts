import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AccessPointPreset, DataSyncVerifyMode, SeedEngine, SeedSource, SharedFileSystem } from '../lib';
import { nagErrors } from './helpers/checks';

let stack: Stack;
let files: SharedFileSystem;
let bucket: s3.Bucket;

beforeEach(() => {
  stack = new Stack(new App(), 'Test');
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
  files = new SharedFileSystem(stack, 'Files', { vpc });
  bucket = new s3.Bucket(stack, 'Source');
});

function seedWithDataSync(options = {}) {
  const ap = files.addAccessPoint('Content', AccessPointPreset.applicationUser('/data'));
  return files.addSeed('Seed', { accessPoint: ap, source: SeedSource.s3(bucket, 'site/', { version: 'v1' }), engine: SeedEngine.dataSync(options), targetPath: '/www' });
}

test('creates an S3 -> EFS task with verification, changed-only transfers and nothing deleted', () => {
  seedWithDataSync();
  const template = Template.fromStack(stack);
  template.hasResourceProperties('AWS::DataSync::Task', {
    Options: Match.objectLike({
      VerifyMode: 'ONLY_FILES_TRANSFERRED', TransferMode: 'CHANGED', PreserveDeletedFiles: 'PRESERVE', LogLevel: 'BASIC',
    }),
    CloudWatchLogGroupArn: Match.anyValue(),
  });
  template.hasResourceProperties('AWS::DataSync::LocationS3', { Subdirectory: '/site/' });
});

test('writes through the access point with TLS and a file system access role', () => {
  seedWithDataSync();
  Template.fromStack(stack).hasResourceProperties('AWS::DataSync::LocationEFS', {
    InTransitEncryption: 'TLS1_2',
    AccessPointArn: Match.anyValue(),
    FileSystemAccessRoleArn: Match.anyValue(),
    Subdirectory: '/www',
    Ec2Config: { SubnetArn: Match.anyValue(), SecurityGroupArns: [Match.anyValue()] },
  });
});

test('opens NFS from DataSync\'s security group to the mount targets', () => {
  seedWithDataSync();
  Template.fromStack(stack).hasResourceProperties('AWS::EC2::SecurityGroupIngress', {
    FromPort: 2049, ToPort: 2049, SourceSecurityGroupId: Match.anyValue(),
  });
});

test('runs the task at deploy time and waits for it, re-running when the source version changes', () => {
  seedWithDataSync();
  const template = Template.fromStack(stack);
  template.hasResourceProperties('Custom::CdkEfsKitDataSyncSeed', { TaskArn: Match.anyValue(), Trigger: 's3-objects:site/:v1' });
  template.hasResourceProperties('AWS::Lambda::Function', { Handler: 'index.isComplete', Runtime: 'nodejs22.x' });
});

test('scopes the starter\'s IAM to the task and its executions', () => {
  seedWithDataSync();
  Template.fromStack(stack).hasResourceProperties('AWS::IAM::Policy', {
    PolicyDocument: { Statement: Match.arrayWith([
      Match.objectLike({ Action: 'datasync:StartTaskExecution', Resource: { 'Fn::GetAtt': [Match.anyValue(), 'TaskArn'] } }),
      Match.objectLike({ Action: 'datasync:DescribeTaskExecution' }),
    ]) },
  });
});

test('passes options through: verification, includes, excludes, schedule, bandwidth', () => {
  seedWithDataSync({
    verifyMode: DataSyncVerifyMode.POINT_IN_TIME_CONSISTENT, includes: ['/img*', '/css*'], excludes: ['*.tmp'],
    scheduleExpression: 'rate(12 hours)', bytesPerSecond: 50 * 1024 * 1024, removeDeletedFiles: true,
  });
  Template.fromStack(stack).hasResourceProperties('AWS::DataSync::Task', {
    Options: Match.objectLike({ VerifyMode: 'POINT_IN_TIME_CONSISTENT', PreserveDeletedFiles: 'REMOVE', BytesPerSecond: 52428800 }),
    Includes: [{ FilterType: 'SIMPLE_PATTERN', Value: '/img*|/css*' }],
    Excludes: [{ FilterType: 'SIMPLE_PATTERN', Value: '*.tmp' }],
    Schedule: { ScheduleExpression: 'rate(12 hours)' },
  });
});

test('without waiting, only starts the execution', () => {
  seedWithDataSync({ waitForCompletion: false });
  const handlers = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function')).map((f: any) => f.Properties.Handler);
  expect(handlers).not.toContain('index.isComplete');
});

test('fails when DataSync is asked to extract an archive', () => {
  const ap = files.addAccessPoint('Content', AccessPointPreset.applicationUser('/data'));
  expect(() => files.addSeed('Seed', { accessPoint: ap, source: SeedSource.archive(bucket, 'site.tar.gz'), engine: SeedEngine.dataSync() }))
    .toThrow(/SeedEngine.dataSync\(\) copies S3 objects as they are and cannot extract archives/);
});

test('has no unacknowledged cdk-nag findings of its own', () => {
  seedWithDataSync();
  const findings = nagErrors(stack).filter((f) => f.includes('/Seed/'));
  expect(findings).toEqual([]);
});
