import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AccessPointPreset, DataSyncVerifyMode, S3FilesFileSystem, S3FilesSeed, SeedEngine, SeedSource, SeedThrough } from '../../../lib';
import { seedPropertyProblems } from '../../../lib/seed/contract/resource-properties';
import { s3FilesSeedPropertyProblems } from '../../../lib/seed/contract/s3-files-seed-properties';
import { cfnLintErrors, nagErrors } from '../../helpers/checks';

// S3FilesSeed at synth: its resource's properties (the contract its handler checks again), its
// functions' mount and grants (under its key prefix only), the clients that wait for it, and the
// settings it refuses.
let stack: Stack;
let vpc: ec2.Vpc;
let files: S3FilesFileSystem;
let sourceBucket: s3.Bucket;

beforeEach(() => {
  stack = new Stack(new App(), 'Test', { env: { account: '123456789012', region: 'us-east-1' } });
  vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
  files = new S3FilesFileSystem(stack, 'Files', { vpc, prefix: 'data/' });
  sourceBucket = new s3.Bucket(stack, 'Source', { enforceSSL: true });
});

const template = () => Template.fromStack(stack);
const seeds = () => Object.values(template().findResources('Custom::CdkEfsKitS3FilesSeed')) as any[];
const statements = () => Object.values(template().findResources('AWS::IAM::Policy')).flatMap((p: any) => p.Properties.PolicyDocument.Statement) as any[];

test('writes under the file system\'s prefix and target path, and checks visibility through a read-only mount of the root', () => {
  const seed = files.addSeed('Site', { source: SeedSource.s3(sourceBucket, 'site/'), targetPath: '/www/html', prune: true });
  expect(seed.keyPrefix).toBe('data/www/html/');
  const [resource] = seeds();
  expect(resource.Properties).toMatchObject({
    Key: 'site/', Format: 's3-objects', TargetPrefix: 'data/www/html/', MountPath: '/mnt/seed', VisiblePath: 'www/html',
    VisibilityTimeoutSeconds: '300', Concurrency: '64', Prune: 'true', RemoveOnDelete: 'false', InvocationTimeoutSeconds: '900',
  });
  // The handler's own checks pass on what the construct wrote (tokens aside).
  expect(s3FilesSeedPropertyProblems(resource.Properties, (v) => typeof v !== 'string')).toEqual([]);
  // The seed function mounts an access point at the root, read only: ClientMount, never ClientWrite.
  template().hasResourceProperties('AWS::S3Files::AccessPoint', Match.objectLike({ FileSystemId: Match.anyValue() }));
  const fn = Object.values(template().findResources('AWS::Lambda::Function')).find((f: any) => /S3 Files seed handler/.test(f.Properties.Description)) as any;
  expect(fn.Properties.FileSystemConfigs[0].LocalMountPath).toBe('/mnt/seed');
  const client = statements().filter((s) => JSON.stringify(s.Action).includes('s3files:Client'));
  expect(client.some((s) => JSON.stringify(s.Action).includes('ClientWrite'))).toBe(false);
});

test('its grants on the file system\'s bucket reach its key prefix only', () => {
  files.addSeed('Site', { source: SeedSource.s3(sourceBucket, 'site/'), targetPath: '/www' });
  // The seed functions' policies (the file system's service role has its own, on the whole prefix).
  const seedPolicies = Object.entries(template().findResources('AWS::IAM::Policy')).filter(([id]) => id.startsWith('CdkEfsKitSeedS3Files'));
  const onBucket = seedPolicies.flatMap(([, p]: [string, any]) => p.Properties.PolicyDocument.Statement).filter((s: any) => JSON.stringify(s).includes('FilesBucket'));
  expect(onBucket.length).toBeGreaterThan(0);
  const objects = onBucket.find((s: any) => JSON.stringify(s.Action).includes('s3:PutObject'));
  expect(objects.Action).toEqual(['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:DeleteObjectVersion']);
  expect(JSON.stringify(objects.Resource)).toContain('/data/www/*');
  const listing = onBucket.find((s: any) => JSON.stringify(s.Action).includes('s3:ListBucketVersions'));
  expect(listing.Condition).toEqual({ StringLike: { 's3:prefix': ['data/www/*'] } });
  expect(onBucket.every((s: any) => !JSON.stringify(s.Action).includes('*'))).toBe(true);
  // Its mount only looks files up: no direct reads, so no read of the file system's other objects.
  expect(JSON.stringify(onBucket)).not.toContain('s3:GetObjectVersion');
});

test('seeds on one file system share their functions; each keeps its own resource and settings', () => {
  files.addSeed('A', { source: SeedSource.s3(sourceBucket, 'a/'), targetPath: '/a', concurrency: 8 });
  files.addSeed('B', { source: SeedSource.s3(sourceBucket, 'b/'), targetPath: '/b', visibilityTimeout: Duration.minutes(2) });
  const [a, b] = seeds();
  expect(a.Properties.ServiceToken).toEqual(b.Properties.ServiceToken);
  expect([a.Properties.Concurrency, b.Properties.VisibilityTimeoutSeconds]).toEqual(['8', '120']);
  template().resourceCountIs('AWS::S3Files::AccessPoint', 1);
});

test('every per-seed setting changes in place: the ServiceToken stays (CloudFormation refuses to change it)', () => {
  const tokenOf = (options: Record<string, unknown>) => {
    const app = new App();
    const s = new Stack(app, 'Test', { env: { account: '123456789012', region: 'us-east-1' } });
    const f = new S3FilesFileSystem(s, 'Files', { vpc: new ec2.Vpc(s, 'Vpc', { maxAzs: 2, natGateways: 1 }), prefix: 'data/' });
    f.addSeed('Site', { source: SeedSource.s3(new s3.Bucket(s, 'Source'), 'site/'), ...options });
    const resources = Template.fromStack(s).toJSON().Resources;
    return Object.values<any>(resources).filter((r) => /^Custom::CdkEfsKit(S3Files|DataSync)Seed$/.test(r.Type)).map((r) => JSON.stringify(r.Properties.ServiceToken)).sort();
  };
  const base = tokenOf({});
  for (const change of [{ concurrency: 8 }, { prune: true }, { removeOnDelete: true }, { visibilityTimeout: Duration.minutes(2) }, { targetPath: '/elsewhere' }]) {
    expect(tokenOf(change)).toEqual(base);
  }
  // A DataSync seed's run and check: its options are its task's and its properties', never the shared functions'.
  const dataSync = tokenOf({ engine: SeedEngine.dataSync() });
  expect(dataSync).toContain(base[0]);
  expect(tokenOf({ engine: SeedEngine.dataSync({ transferAll: true, verifyMode: DataSyncVerifyMode.NONE }), targetPath: '/elsewhere' })).toEqual(dataSync);
});

test('clients mounted with the helpers start after the seed, whichever was declared first', () => {
  const early = new lambda.Function(stack, 'Early', { runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => 1;'), vpc });
  const ap = files.addAccessPoint('App');
  files.mountOnLambda(early, ap);
  const seed = files.addSeed('Site', { source: SeedSource.s3(sourceBucket, 'site/') });
  const late = new lambda.Function(stack, 'Late', { runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => 1;'), vpc });
  files.mountOnLambda(late, ap);
  const optOut = new lambda.Function(stack, 'OptOut', { runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => 1;'), vpc });
  files.mountOnLambda(optOut, ap, { waitForSeeds: false });
  const seedId = stack.getLogicalId(seed.resource.node.defaultChild as any);
  const dependsOn = (id: string) => (Object.entries(template().findResources('AWS::Lambda::Function')).find(([logicalId]) => logicalId.startsWith(id))![1] as any).DependsOn ?? [];
  expect(dependsOn('Early')).toContain(seedId);
  expect(dependsOn('Late')).toContain(seedId);
  expect(dependsOn('OptOut')).not.toContain(seedId);
  // The seed's own functions never wait for it.
  expect(JSON.stringify(Object.values(template().findResources('AWS::Lambda::Function')).filter((f: any) => /S3 Files seed handler/.test(f.Properties.Description)))).not.toContain(seedId);
});

test('an app of seeds is clean for cdk-nag and cfn-lint', () => {
  files.addSeed('Site', { source: SeedSource.s3(sourceBucket, 'site/'), targetPath: '/www', removeOnDelete: true });
  files.addSeed('Release', { source: SeedSource.archive(sourceBucket, 'release.tar.gz'), targetPath: '/app' });
  // The test's own VPC and source bucket aside.
  expect(nagErrors(stack).filter((f) => !/ at Test\/(Vpc|Source)\//.test(f))).toEqual([]);
  expect(cfnLintErrors(template().toJSON())).toEqual([]);
});

describe('through the mount (SeedThrough.MOUNT)', () => {
  test('runs the EFS seed\'s copier on the access point, read and write, as its POSIX user; its place is under the access point\'s root', () => {
    const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
    const seed = files.addSeed('Site', { source: SeedSource.s3(sourceBucket, 'site/'), through: SeedThrough.MOUNT, accessPoint: web, targetPath: '/html', removeOnDelete: true });
    expect(seed.keyPrefix).toBe('data/web/html/');
    const [resource] = Object.values(template().findResources('Custom::CdkEfsKitSeed')) as any[];
    expect(resource.Properties).toMatchObject({ MountPath: '/mnt/seed', TargetSubPath: 'html', Prune: 'false', RemoveOnDelete: 'true', Concurrency: '64' });
    expect(seedPropertyProblems(resource.Properties, (v) => typeof v !== 'string')).toEqual([]);
    expect(resource.Metadata['cdk-efs-kit:seedPlace']).toBeDefined();
    const fn = Object.values(template().findResources('AWS::Lambda::Function')).find((f: any) => /seed handler for the seeds through Test\/Files\/Web/.test(f.Properties.Description)) as any;
    expect(fn.Properties.FileSystemConfigs[0].LocalMountPath).toBe('/mnt/seed');
    expect(statements().some((st) => JSON.stringify(st.Action).includes('s3files:ClientWrite'))).toBe(true);
    // Nothing of the bucket: S3 Files exports what it writes.
    const seedPolicies = Object.entries(template().findResources('AWS::IAM::Policy')).filter(([id]) => id.startsWith('CdkEfsKitSeedS3FilesMount'));
    expect(JSON.stringify(seedPolicies)).not.toContain('FilesBucket');
    expect(JSON.stringify(seedPolicies)).toContain('cloudformation:DescribeStackResource');
  });

  test('a seed through the bucket and one through the mount on overlapping places are refused', () => {
    const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
    files.addSeed('Objects', { source: SeedSource.s3(sourceBucket, 'a/'), targetPath: '/web/img' });
    expect(() => files.addSeed('Files', { source: SeedSource.s3(sourceBucket, 'b/'), through: SeedThrough.MOUNT, accessPoint: web })).toThrow(/one place inside the other/);
  });

  test('options of the other path are refused, named', () => {
    const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
    expect(() => files.addSeed('NoAp', { source: SeedSource.s3(sourceBucket, 'a/'), through: SeedThrough.MOUNT }))
      .toThrow(/accessPoint \(access_point\) is required with through SeedThrough.MOUNT/);
    expect(() => files.addSeed('Wait', { source: SeedSource.s3(sourceBucket, 'a/'), through: SeedThrough.MOUNT, accessPoint: web, visibilityTimeout: Duration.minutes(2) }))
      .toThrow(/visibilityTimeout \(visibility_timeout\) applies to SeedThrough.BUCKET only/);
    expect(() => files.addSeed('Ap', { source: SeedSource.s3(sourceBucket, 'a/'), targetPath: '/x', accessPoint: web }))
      .toThrow(/accessPoint \(access_point\) applies to through SeedThrough.MOUNT only/);
  });
});

describe('with SeedEngine.dataSync(): an Enhanced-mode task from the source prefix into the seed\'s key prefix', () => {
  let seeded = 0;
  const dataSyncSeed = (options: Record<string, unknown> = {}, engineOptions = {}) => files.addSeed(`Large${seeded++}`, {
    source: SeedSource.s3(sourceBucket, 'datasets/', { version: 'v1' }), targetPath: '/datasets', engine: SeedEngine.dataSync(engineOptions), ...options,
  });

  test('an S3 to S3 task in Enhanced mode that never removes, then the seed\'s resource checks the files show through the mount', () => {
    const seed = dataSyncSeed();
    const task = Object.values(template().findResources('AWS::DataSync::Task'))[0] as any;
    expect(task.Properties).toMatchObject({
      TaskMode: 'ENHANCED',
      Options: { VerifyMode: 'ONLY_FILES_TRANSFERRED', TransferMode: 'CHANGED', PreserveDeletedFiles: 'PRESERVE', OverwriteMode: 'ALWAYS', ObjectTags: 'NONE' },
      Excludes: [{ FilterType: 'SIMPLE_PATTERN', Value: '/.cdk-efs-kit*|*/.cdk-efs-kit*' }],
    });
    // Enhanced mode logs to /aws/datasync by itself and takes no bandwidth limit.
    expect(task.Properties.CloudWatchLogGroupArn).toBeUndefined();
    expect(task.Properties.Options.BytesPerSecond).toBeUndefined();
    const locations = template().findResources('AWS::DataSync::LocationS3');
    expect(Object.values(locations).map((l: any) => l.Properties.Subdirectory).sort()).toEqual(['/data/datasets/', '/datasets/']);
    template().resourceCountIs('AWS::DataSync::LocationEFS', 0);
    // The seed's resource: the visibility check on the shared functions, after the run.
    const [resource] = seeds();
    expect(resource.Properties).toMatchObject({ CopiedBy: 'dataSync', TargetPrefix: 'data/datasets/', Prune: 'false', RemoveOnDelete: 'false' });
    expect(s3FilesSeedPropertyProblems(resource.Properties, (v) => typeof v !== 'string')).toEqual([]);
    // The handler refuses what DataSync cannot have done, whoever wrote the properties.
    expect(s3FilesSeedPropertyProblems({ ...resource.Properties, Format: 'zip', Prune: 'true', RemoveOnDelete: 'true' }, (v) => typeof v !== 'string')).toEqual([
      'Format must be s3-objects with CopiedBy dataSync (DataSync extracts no archive), got "zip"',
      'Prune must be \'false\' with CopiedBy dataSync, got "true"',
      'RemoveOnDelete must be \'false\' with CopiedBy dataSync, got "true"',
    ]);
    expect(s3FilesSeedPropertyProblems({ ...resource.Properties, CopiedBy: 'rsync' }, (v) => typeof v !== 'string')).toEqual(['CopiedBy must be \'dataSync\' where given, got "rsync"']);
    const run = Object.entries(template().findResources('Custom::CdkEfsKitDataSyncSeed'))[0];
    expect(resource.DependsOn).toContain(run[0]);
    expect((run[1] as any).Properties).toMatchObject({ Target: { 'Fn::Join': ['', ['s3://', { Ref: expect.stringMatching(/^FilesBucket/) }, '/data/datasets/']] }, WaitForCompletion: 'true' });
    expect(seed.dataSyncTask).toBeDefined();
    expect(JSON.stringify(stack.resolve(seed.metricFailures().toMetricConfig()))).toContain('failed_executions');
    expect(stack.resolve(seed.metricFilesWritten().namespace)).toBe('AWS/DataSync');
  });

  test('DataSync may write the seed\'s prefix and list the bucket, never delete or write the seed\'s own names; the check function may touch only the claim', () => {
    dataSyncSeed();
    const roles = Object.entries(template().findResources('AWS::IAM::Policy')).filter(([id]) => id.includes('DestinationAccessRole'));
    expect(roles).toHaveLength(1);
    const destination = (roles[0][1] as any).Properties.PolicyDocument.Statement as any[];
    const writes = destination.find((st) => st.Effect === 'Allow' && JSON.stringify(st.Action).includes('s3:PutObject'));
    expect(writes.Action).toEqual(['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts']);
    expect(JSON.stringify(writes.Resource)).toContain('/data/datasets/*');
    expect(JSON.stringify(destination)).not.toMatch(/DeleteObject|Tagging/);
    const deny = destination.find((st) => st.Effect === 'Deny');
    expect(JSON.stringify(deny.Resource)).toMatch(/data\/datasets\/\.cdk-efs-kit\*.*data\/datasets\/\*\/\.cdk-efs-kit\*/);
    const check = Object.entries(template().findResources('AWS::IAM::Policy')).filter(([id]) => id.startsWith('CdkEfsKitSeedS3Files'));
    const onBucket = check.flatMap(([, p]: [string, any]) => p.Properties.PolicyDocument.Statement).filter((st: any) => JSON.stringify(st).includes('FilesBucket'));
    // The same two statements on each of the two functions (onEvent and its resume function).
    expect(new Set(onBucket.map((st: any) => JSON.stringify(st.Action)))).toEqual(new Set(['["s3:GetObject","s3:PutObject"]', '"s3:ListBucket"']));
    expect(JSON.stringify(onBucket)).toContain('data/datasets/.cdk-efs-kit/claim.json');
  });

  test('shares the check functions with the single-function seeds of the file system; the app is clean for cdk-nag and cfn-lint', () => {
    dataSyncSeed();
    files.addSeed('Site', { source: SeedSource.s3(sourceBucket, 'site/'), targetPath: '/www' });
    const [a, b] = seeds();
    expect(a.Properties.ServiceToken).toEqual(b.Properties.ServiceToken);
    expect(nagErrors(stack).filter((f) => !/ at Test\/(Vpc|Source)\//.test(f))).toEqual([]);
    expect(cfnLintErrors(template().toJSON())).toEqual([]);
  });

  test('what DataSync cannot do on S3 Files is refused, named', () => {
    expect(() => dataSyncSeed({ prune: true })).toThrow(/prune does not apply to SeedEngine.dataSync\(\) on S3 Files: DataSync would remove every object .* the application's too/);
    expect(() => dataSyncSeed({ removeOnDelete: true, targetPath: '/r' })).toThrow(/removeOnDelete \(remove_on_delete\) does not apply .* keeps no record/);
    expect(() => dataSyncSeed({ concurrency: 8, targetPath: '/c' })).toThrow(/concurrency does not apply/);
    expect(() => dataSyncSeed({ targetPath: '/m' }, { removeDeletedFiles: true })).toThrow(/removeDeletedFiles \(remove_deleted_files\) does not apply on S3 Files/);
    expect(() => dataSyncSeed({ targetPath: '/b' }, { bytesPerSecond: 1e6 })).toThrow(/bytesPerSecond \(bytes_per_second\) does not apply on S3 Files: Enhanced mode/);
    expect(() => dataSyncSeed({ targetPath: '/e' }, { excludes: ['*.tmp'] })).toThrow(/excludes does not apply on S3 Files/);
    expect(() => dataSyncSeed({ targetPath: '/l' }, { logRetention: 7 })).toThrow(/logRetention \(log_retention\) does not apply/);
    expect(() => dataSyncSeed({ targetPath: '/v' }, { verifyMode: 'POINT_IN_TIME_CONSISTENT' })).toThrow(/POINT_IN_TIME_CONSISTENT is not supported in Enhanced mode/);
    expect(() => files.addSeed('Archive', { source: SeedSource.archive(sourceBucket, 'a.zip'), targetPath: '/z', engine: SeedEngine.dataSync() }))
      .toThrow(/cannot extract archives or upload assets; use SeedSource.s3\(bucket, prefix\)/);
    const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
    expect(() => files.addSeed('Mount', { source: SeedSource.s3(sourceBucket, 'a/'), through: SeedThrough.MOUNT, accessPoint: web, engine: SeedEngine.dataSync() }))
      .toThrow(/writes the bucket only \(DataSync has no S3 Files location\)/);
  });
});

describe('refused at synth, naming the problem', () => {
  test('two seeds on one place, or one inside the other', () => {
    files.addSeed('A', { source: SeedSource.s3(sourceBucket, 'a/'), targetPath: '/www' });
    expect(() => files.addSeed('B', { source: SeedSource.s3(sourceBucket, 'b/'), targetPath: '/www/' })).toThrow(/S3FilesSeed\(Test\/Files\/B\) and S3FilesSeed\(Test\/Files\/A\) both write to \/www .* the same place/);
    expect(() => files.addSeed('C', { source: SeedSource.s3(sourceBucket, 'c/'), targetPath: '/www/img' })).toThrow(/one place inside the other/);
    expect(() => files.addSeed('D', { source: SeedSource.s3(sourceBucket, 'd/') })).toThrow(/one place inside the other/);
  });

  test('an engine that does not serve S3 Files, a bad target path, visibility timeout or concurrency', () => {
    expect(() => files.addSeed('Dm', { source: SeedSource.s3(sourceBucket, 'a/'), engine: SeedEngine.distributedMap() })).toThrow(/SeedEngine.distributedMap\(\) does not serve S3 Files; use SeedEngine.dataSync\(\)/);
    expect(() => files.addSeed('Dots', { source: SeedSource.s3(sourceBucket, 'a/'), targetPath: '/a/../b' })).toThrow(/targetPath \(target_path\) must be an absolute path of the file system/);
    expect(() => files.addSeed('Own', { source: SeedSource.s3(sourceBucket, 'a/'), targetPath: '/.cdk-efs-kit' })).toThrow(/targetPath/);
    expect(() => files.addSeed('Short', { source: SeedSource.s3(sourceBucket, 'a/'), targetPath: '/s', visibilityTimeout: Duration.seconds(10) })).toThrow(/visibilityTimeout \(visibility_timeout\) must be from 1 minute to 2 minutes less than the engine's timeout \(15 minutes\).*got "10 s"/);
    expect(() => files.addSeed('Long', { source: SeedSource.s3(sourceBucket, 'a/'), targetPath: '/long', engine: SeedEngine.singleFunction({ timeout: Duration.minutes(5) }), visibilityTimeout: Duration.minutes(4) }))
      .toThrow(/2 minutes less than the engine's timeout \(5 minutes\).*got "240 s"/);
    const imported = S3FilesFileSystem.fromFileSystemAttributes(stack, 'Imported', {
      fileSystemId: 'fs-0123456789abcdef0', bucket: sourceBucket, vpc, prefix: 'data', securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'Sg', 'sg-0123456789abcdef0'),
    });
    expect(() => imported.addSeed('Prefix', { source: SeedSource.s3(sourceBucket, 'a/') })).toThrow(/fileSystem.prefix .* must be '' or a key prefix ending in '\/'/);
    expect(() => files.addSeed('Wide', { source: SeedSource.s3(sourceBucket, 'a/'), targetPath: '/w', concurrency: 0 })).toThrow(/concurrency must be an integer from 1 to 1024/);
    expect(() => files.addSeed('Limits', { source: SeedSource.s3(sourceBucket, 'a/'), targetPath: '/l', archiveLimits: { maxEntries: 5 } })).toThrow(/archiveLimits \(archive_limits\) applies to archive sources/);
  });

  test('no route to S3 from the seed\'s subnets', () => {
    const isolated = new ec2.Vpc(stack, 'Isolated', { maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'i', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
    const islandFiles = new S3FilesFileSystem(stack, 'IslandFiles', { vpc: isolated });
    islandFiles.addSeed('Site', { source: SeedSource.s3(sourceBucket, 'site/') });
    expect(() => Template.fromStack(stack)).toThrow(/have no route to S3 .* add an S3 gateway endpoint/);
  });
});

test('S3FilesSeed is an S3FilesSeed', () => {
  expect(S3FilesSeed.isS3FilesSeed(files.addSeed('Site', { source: SeedSource.s3(sourceBucket, 'site/') }))).toBe(true);
});
