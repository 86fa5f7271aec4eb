import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AccessPointPreset, DataSyncEngineOptions, DataSyncVerifyMode, SeedEngine, SeedOptions, SeedSource, SharedFileSystem } from '../../../../lib';
import { propName } from '../../../../lib/core/contract/prop-name';
import { nagErrors } from '../../../helpers/checks';

let stack: Stack;
let files: SharedFileSystem;
let bucket: s3.Bucket;

beforeEach(() => {
  stack = new Stack(new App(), 'Test');
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
  files = new SharedFileSystem(stack, 'Files', { vpc });
  bucket = new s3.Bucket(stack, 'Source');
});

function seedWithDataSync(options: DataSyncEngineOptions = {}, seed: Partial<SeedOptions> = {}) {
  const ap = files.addAccessPoint('Content', AccessPointPreset.applicationUser('/data'));
  return files.addSeed('Seed', { accessPoint: ap, source: SeedSource.s3(bucket, 'site/', { version: 'v1' }), engine: SeedEngine.dataSync(options), targetPath: '/www', ...seed });
}

/** The logical ids a resource of `type` waits for (DependsOn), and the template's resources. */
function dependsOn(type: string) {
  const template = Template.fromStack(stack).toJSON();
  const [resource] = Object.values<any>(template.Resources).filter((r) => r.Type === type);
  return { on: (resource.DependsOn ?? []) as string[], resources: template.Resources as Record<string, any> };
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
  const executions = { 'Fn::Join': ['', [{ 'Fn::GetAtt': [Match.anyValue(), 'TaskArn'] }, '/execution/*']] };
  Template.fromStack(stack).hasResourceProperties('AWS::IAM::Policy', {
    PolicyDocument: { Statement: Match.arrayWith([
      Match.objectLike({ Action: ['datasync:StartTaskExecution', 'datasync:DescribeTask'], Resource: { 'Fn::GetAtt': [Match.anyValue(), 'TaskArn'] } }),
      // Tagging at start needs TagResource (DataSync's tag-on-create rule); the tags say which source, place and request an
      // execution is for; a newer request cancels a deploy's execution of another, and a Delete what still runs.
      Match.objectLike({
        Action: ['datasync:TagResource', 'datasync:ListTagsForResource', 'datasync:CancelTaskExecution', 'datasync:DescribeTaskExecution'],
        Resource: executions,
      }),
    ]) },
  });
  // No resource-level permissions for this one (Service Authorization Reference).
  Template.fromStack(stack).hasResourceProperties('AWS::IAM::Policy', {
    PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 'datasync:ListTaskExecutions', Resource: '*' })]) },
  });
  Template.fromStack(stack).hasResourceProperties('AWS::IAM::Policy', {
    PolicyDocument: { Statement: [Match.objectLike({ Action: ['datasync:DescribeTaskExecution', 'datasync:CancelTaskExecution'], Resource: executions })] },
  });
});

test('the run names the place it copies into: a new access point or path updates the EFS location in place, keeping the task\'s ARN', () => {
  seedWithDataSync();
  Template.fromStack(stack).hasResourceProperties('Custom::CdkEfsKitDataSyncSeed', {
    Target: { 'Fn::Join': ['', [{ Ref: Match.stringLikeRegexp('^Files') }, ':', { Ref: Match.stringLikeRegexp('Content') }, ':/www']] },
  });
});

test('the S3 location is created after its role\'s policy: CreateLocationS3 tests access with the role', () => {
  seedWithDataSync();
  const { on, resources } = dependsOn('AWS::DataSync::LocationS3');
  const policy = Object.keys(resources).find((id) => resources[id].Type === 'AWS::IAM::Policy' && /S3AccessRole/.test(id))!;
  expect(resources[policy].Properties.PolicyDocument.Statement.map((st: any) => st.Action)).toContainEqual(['s3:GetBucketLocation', 's3:ListBucket', 's3:ListBucketMultipartUploads']);
  expect(on).toContain(policy);
});

test('the EFS location is created after the NFS rules between DataSync\'s security group and the mount targets\'', () => {
  seedWithDataSync();
  const { on, resources } = dependsOn('AWS::DataSync::LocationEFS');
  const rules = Object.keys(resources).filter((id) => ['AWS::EC2::SecurityGroupIngress', 'AWS::EC2::SecurityGroupEgress'].includes(resources[id].Type) && /DataSync/.test(id));
  expect(rules.map((id) => resources[id].Type).sort()).toEqual(['AWS::EC2::SecurityGroupEgress', 'AWS::EC2::SecurityGroupIngress']);
  expect(on).toEqual(expect.arrayContaining(rules));
});

test('the EFS location waits for the file system\'s readiness gate: the task made from it creates network interfaces in its subnet and mounts from them', () => {
  seedWithDataSync();
  const { on, resources } = dependsOn('AWS::DataSync::LocationEFS');
  const gates = Object.keys(resources).filter((id) => resources[id].Type === 'Custom::CdkEfsKitMountTargetsReady');
  expect(gates).toHaveLength(1);
  expect(on).toContain(gates[0]);
  // The task, and so the deploy-time run, come after the location.
  expect(Object.values<any>(resources).find((r) => r.Type === 'AWS::DataSync::Task').Properties.DestinationLocationArn['Fn::GetAtt'][0])
    .toBe(Object.keys(resources).find((id) => resources[id].Type === 'AWS::DataSync::LocationEFS'));
});

test('copies no ownership: the access point sets the owner, and verifying a copied owner would fail', () => {
  // DataSync user guide, "Providing DataSync access to Amazon EFS file systems": through an access point
  // that enforces a user, copied ownership is replaced by the access point's, and verification fails.
  seedWithDataSync();
  Template.fromStack(stack).hasResourceProperties('AWS::DataSync::Task', {
    Options: Match.objectLike({ Uid: 'NONE', Gid: 'NONE', VerifyMode: 'ONLY_FILES_TRANSFERRED' }),
  });
});

test.each([
  ['removeDeletedFiles', { transferAll: true, removeDeletedFiles: true }, {}],
  ['prune', { transferAll: true }, { prune: true }],
])('fails when transferAll is combined with %s: DataSync refuses TransferMode ALL with PreserveDeletedFiles REMOVE', (option, options, seed) => {
  expect(() => seedWithDataSync(options, seed)).toThrow(
    `FileSystemSeed(Test/Files/Seed): transferAll (transfer_all) cannot be combined with ${propName(option)} in SeedEngine.dataSync(): DataSync refuses TransferMode ALL with PreserveDeletedFiles REMOVE`);
});

test('transferAll alone is accepted', () => {
  seedWithDataSync({ transferAll: true });
  Template.fromStack(stack).hasResourceProperties('AWS::DataSync::Task', { Options: Match.objectLike({ TransferMode: 'ALL', PreserveDeletedFiles: 'PRESERVE' }) });
});

describe('the access point\'s POSIX user: DataSync writes as it, without ClientRootAccess', () => {
  test('the file system role has ClientMount and ClientWrite through the access point, and no ClientRootAccess', () => {
    seedWithDataSync();
    const policies = Object.entries<any>(Template.fromStack(stack).findResources('AWS::IAM::Policy')).filter(([id]) => /FileSystemAccessRole/.test(id));
    expect(policies.flatMap(([, p]) => p.Properties.PolicyDocument.Statement.map((st: any) => st.Action))).toEqual([['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite']]);
  });

  test.each([
    ['enforces no POSIX user', AccessPointPreset.custom({ path: '/data' })],
    ['enforces uid 0 and gid 0 (root)', AccessPointPreset.custom({ path: '/data', posixUser: { uid: '0', gid: '0' } })],
    ['enforces uid 1000 and gid 0 (root)', AccessPointPreset.applicationUser('/data', { gid: 0 })],
  ])('fails when the access point %s', (problem, preset) => {
    const ap = files.addAccessPoint('Root', preset);
    expect(() => files.addSeed('Seed', { accessPoint: ap, source: SeedSource.s3(bucket, 'site/'), engine: SeedEngine.dataSync() })).toThrow(
      `FileSystemSeed(Test/Files/Seed): accessPoint (access_point) Test/Files/Root ${problem}; SeedEngine.dataSync() writes through the access point as its POSIX user `
      + 'and is not granted ClientRootAccess, so that user must not be root: give the access point a non-root posixUser, e.g. AccessPointPreset.applicationUser(path).');
  });
});

test('a bucket imported with its customer KMS key: the bucket-access role may decrypt, and the location waits for that grant', () => {
  const key = kms.Key.fromKeyArn(stack, 'SourceKey', 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab');
  const imported = s3.Bucket.fromBucketAttributes(stack, 'Imported', { bucketName: 'migration-source', encryptionKey: key });
  const ap = files.addAccessPoint('Content', AccessPointPreset.applicationUser('/data'));
  files.addSeed('Seed', { accessPoint: ap, source: SeedSource.s3(imported, 'site/'), engine: SeedEngine.dataSync() });
  const { on, resources } = dependsOn('AWS::DataSync::LocationS3');
  const [policy] = Object.keys(resources).filter((id) => resources[id].Type === 'AWS::IAM::Policy' && /S3AccessRole/.test(id));
  expect(resources[policy].Properties.PolicyDocument.Statement).toContainEqual(expect.objectContaining({
    Action: 'kms:Decrypt', Resource: 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
  }));
  expect(on).toContain(policy);
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

test('without waiting, the request says so: the handlers are those of waited seeds, whose isComplete answers it at once', () => {
  seedWithDataSync({}, { waitForCompletion: false });
  const template = Template.fromStack(stack);
  const handlers = Object.values(template.findResources('AWS::Lambda::Function')).map((f: any) => f.Properties.Handler);
  expect(handlers).toContain('index.isComplete');
  expect(Object.values<any>(template.findResources('Custom::CdkEfsKitDataSyncSeed'))[0].Properties.WaitForCompletion).toBe('false');
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

describe('examples/migration.ts', () => {
  const migration = (context: Record<string, string> = {}) => {
    const { createApp } = require('../../../../examples/migration') as { createApp: (app: App) => App };
    return Template.fromStack(createApp(new App({ context })).node.findChild('EfsKitMigration') as Stack);
  };

  test('its task would verify against its access point: the access point enforces uid/gid 1000, and the task copies no ownership', () => {
    const template = migration();
    const [ap] = Object.keys(template.findResources('AWS::EFS::AccessPoint', { Properties: { PosixUser: { Uid: '1000', Gid: '1000' } } }));
    template.hasResourceProperties('AWS::DataSync::LocationEFS', { AccessPointArn: Match.objectLike({ 'Fn::Join': ['', Match.arrayWith([{ Ref: ap }])] }) });
    template.hasResourceProperties('AWS::DataSync::Task', { Options: Match.objectLike({ Uid: 'NONE', Gid: 'NONE', VerifyMode: 'ONLY_FILES_TRANSFERRED' }) });
  });

  test('with sourceKeyArn, DataSync may decrypt the source bucket\'s objects', () => {
    const key = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    migration({ sourceKeyArn: key }).hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 'kms:Decrypt', Resource: key })]) },
    });
  });
});
