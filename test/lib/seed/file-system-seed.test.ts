import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Size, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { AccessPointPreset, SeedEngine, SeedSource, SeedSourceConfig, SeedSourceFormat, SharedFileSystem } from '../../../lib';
import { propName } from '../../../lib/core/contract/prop-name';
import { SEED_PLACE_METADATA, SEED_RESOURCE_TYPES } from '../../../lib/seed/contract/seed-place';
import { nagErrors } from '../../helpers/checks';
import { definitionOf } from '../../helpers/state-machines';

let stack: Stack;
let files: SharedFileSystem;
let siteDir: string;

beforeAll(() => {
  siteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-'));
  fs.writeFileSync(path.join(siteDir, 'index.html'), '<h1>hello</h1>');
});
afterAll(() => fs.rmSync(siteDir, { recursive: true, force: true }));

beforeEach(() => {
  stack = new Stack(new App(), 'Test');
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
  files = new SharedFileSystem(stack, 'Files', { vpc });
});

const web = () => files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));

describe('single-function engine (default)', () => {
  test('runs the bundled seed handler in the VPC with the access point mounted and the pool sized', () => {
    files.addSeed('Content', { accessPoint: web(), source: SeedSource.asset(siteDir), concurrency: 128 });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.onEvent', Runtime: 'nodejs22.x', MemorySize: 2048, Timeout: 900,
      FileSystemConfigs: [{ LocalMountPath: '/mnt/seed', Arn: Match.anyValue() }],
      Environment: { Variables: { UV_THREADPOOL_SIZE: '128' } },
      VpcConfig: Match.anyValue(),
    });
    template.hasResourceProperties('AWS::Lambda::Function', { Handler: 'index.isComplete', FileSystemConfigs: Match.anyValue() });
  });

  test('passes the source, target and options to the handler', () => {
    files.addSeed('Content', { accessPoint: web(), source: SeedSource.asset(siteDir), targetPath: '/www/', prune: true });
    Template.fromStack(stack).hasResourceProperties('Custom::CdkEfsKitSeed', {
      Bucket: Match.anyValue(), Key: Match.stringLikeRegexp('\\.zip$'), Format: 'zip', Fingerprint: Match.stringLikeRegexp('^[0-9a-f]{64}$'),
      MountPath: '/mnt/seed', TargetSubPath: 'www', Concurrency: '64', Prune: 'true', RemoveOnDelete: 'false',
    });
  });

  test('an S3 archive source is read-only granted on exactly that key', () => {
    const bucket = new s3.Bucket(stack, 'Releases');
    files.addSeed('Content', { accessPoint: web(), source: SeedSource.archive(bucket, 'releases/site-1.4.tar.gz', { version: '1.4' }) });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('Custom::CdkEfsKitSeed', { Format: 'tar.gz', Key: 'releases/site-1.4.tar.gz', Fingerprint: 'tar.gz:releases/site-1.4.tar.gz:1.4' });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({
        Action: 's3:GetObject',
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [Match.stringLikeRegexp('Releases'), 'Arn'] }, '/releases/site-1.4.tar.gz']] },
      })]) },
    });
  });

  test('a service can wait for the seed', () => {
    const seed = files.addSeed('Content', { accessPoint: web(), source: SeedSource.asset(siteDir) });
    const waiter = new s3.Bucket(stack, 'DependsOnSeed');
    waiter.node.addDependency(seed);
    const template = Template.fromStack(stack);
    const [seedResource] = Object.keys(template.findResources('Custom::CdkEfsKitSeed'));
    expect(template.findResources('AWS::S3::Bucket', { DependsOn: Match.arrayWith([seedResource]) })).not.toEqual({});
  });

  test('has no unacknowledged cdk-nag findings of its own, nor of the handlers it shares', () => {
    files.addSeed('Content', { accessPoint: web(), source: SeedSource.asset(siteDir) });
    expect(nagErrors(stack).filter((f) => f.includes('/Content/') || f.includes('/CdkEfsKitSeed'))).toEqual([]);
  });

  test.each([
    ['a relative targetPath', { targetPath: 'www' }, /targetPath \(target_path\) must be an absolute path under the access point's root, without empty, '\.' or '\.\.' parts or names starting with \.cdk-efs-kit, got "www"/],
    ['a targetPath with ..', { targetPath: '/www/../..' }, /targetPath \(target_path\) must be an absolute path/],
    ['a targetPath in the seed\'s own state', { targetPath: '/www/.cdk-efs-kit' }, /targetPath \(target_path\) must be an absolute path/],
    ['a concurrency above 1024', { concurrency: 4096 }, /concurrency must be an integer from 1 to 1024, got 4096/],
    ['archive limits of zero', { archiveLimits: { maxEntries: 0 } }, /archiveLimits.maxEntries \(archive_limits\.max_entries\) must be a positive integer, got 0/],
  ])('fails when given %s', (_, props, message) => {
    expect(() => files.addSeed('Content', { accessPoint: web(), source: SeedSource.asset(siteDir), ...props })).toThrow(message);
  });

  test('passes archive limits to the handler, in bytes', () => {
    files.addSeed('Content', {
      accessPoint: web(), source: SeedSource.asset(siteDir),
      archiveLimits: { maxMemberSize: Size.gibibytes(1), maxTotalSize: Size.gibibytes(10), maxEntries: 50_000, maxCompressionRatio: 20 },
    });
    Template.fromStack(stack).hasResourceProperties('Custom::CdkEfsKitSeed', {
      MaxMemberBytes: String(1024 ** 3), MaxTotalBytes: String(10 * 1024 ** 3), MaxEntries: '50000', MaxCompressionRatio: '20',
    });
  });

  test('fails when given archive limits for a source of S3 objects', () => {
    const bucket = new s3.Bucket(stack, 'Lake');
    expect(() => files.addSeed('Content', { accessPoint: web(), source: SeedSource.s3(bucket, 'data/'), archiveLimits: { maxEntries: 10 } }))
      .toThrow(/archiveLimits \(archive_limits\) applies to archive sources \(SeedSource.asset, SeedSource.archive\), not to the S3 objects of SeedSource.s3/);
  });

  test('fails when an asset file is not an archive', () => {
    const file = path.join(siteDir, 'index.html');
    expect(() => files.addSeed('Content', { accessPoint: web(), source: SeedSource.asset(file) }))
      .toThrow('SeedSource.asset: localPath (local_path) must be a directory or end in .zip, .tar, .tar.gz or .tgz, got "index.html".');
  });
});

describe('vCPUs for the seed functions', () => {
  // The functions that mount the file system: the seed's, not the readiness gate's.
  const functionOf = (handler: string) => Object.values<any>(Template.fromStack(stack).findResources('AWS::Lambda::Function'))
    .find((f) => f.Properties.Handler === handler && f.Properties.FileSystemConfigs).Properties;
  const sizeOf = (handler: string) => ({ mb: functionOf(handler).MemorySize, workers: functionOf(handler).Environment.Variables.SEED_WORKERS });

  // One copy worker per vCPU beyond the first, which the engine's own thread keeps; none below 3.
  test.each([[1, 1769, '0'], [2, 3538, '0'], [4, 7076, '3'], [6, 10240, '5']])('%i vCPUs size the single function at %i MB with %s copy workers', (vcpus, mb, workers) => {
    files.addSeed('Content', { accessPoint: web(), source: SeedSource.asset(siteDir), engine: SeedEngine.singleFunction({ vcpus }) });
    expect(sizeOf('index.onEvent')).toEqual({ mb, workers });
    expect(sizeOf('index.isComplete')).toEqual({ mb, workers });
  });

  test('the default 2,048 MB is one vCPU, with no copy workers', () => {
    files.addSeed('Content', { accessPoint: web(), source: SeedSource.asset(siteDir) });
    expect(sizeOf('index.onEvent')).toEqual({ mb: 2048, workers: '0' });
  });

  test('Distributed Map workers are sized the same way', () => {
    files.addSeed('Bulk', { accessPoint: web(), source: SeedSource.s3(new s3.Bucket(stack, 'Lake'), 'data/'), engine: SeedEngine.distributedMap({ vcpus: 3 }) });
    expect(sizeOf('index.copyBatch')).toEqual({ mb: 5307, workers: '2' });
  });

  test.each([
    ['vcpus and memorySize together', { vcpus: 2, memorySize: Size.gibibytes(4) }, /SeedEngine.singleFunction\(\) takes memorySize \(memory_size\) or vcpus, not both/],
    ['7 vCPUs', { vcpus: 7 }, /vcpus must be an integer from 1 to 6 \(Lambda's most\), got 7/],
    ['half a vCPU', { vcpus: 0.5 }, /vcpus must be an integer from 1 to 6/],
  ])('fails with %s', (_name, options, message) => {
    expect(() => files.addSeed('Content', { accessPoint: web(), source: SeedSource.asset(siteDir), engine: SeedEngine.singleFunction(options) })).toThrow(message);
  });
});

describe('Distributed Map engine', () => {
  let bucket: s3.Bucket;
  beforeEach(() => {
    bucket = new s3.Bucket(stack, 'Lake');
    files.addSeed('Bulk', {
      accessPoint: web(), source: SeedSource.s3(bucket, 'data/'),
      engine: SeedEngine.distributedMap({ maxConcurrency: 500, maxItemsPerBatch: 200, toleratedFailurePercentage: 5 }),
    });
  });

  const definition = () => definitionOf(Template.fromStack(stack), 'CopyObjects');

  test('lists the prefix with the S3 reader, batches by count and bytes, and caps concurrency', () => {
    const map = Object.values<any>(definition().States)[0];
    expect(map).toMatchObject({
      Type: 'Map',
      ItemReader: { Resource: expect.stringContaining(':states:::s3:listObjectsV2'), Parameters: { Bucket: 'TOKEN', Prefix: 'data/' } },
      ItemBatcher: { MaxItemsPerBatch: 200, MaxInputBytesPerBatch: 262144, BatchInput: expect.objectContaining({ Format: 's3-objects', Key: 'data/', MountPath: '/mnt/seed' }) },
      MaxConcurrency: 500,
      ToleratedFailurePercentage: 5,
      ResultWriter: expect.objectContaining({ Resource: expect.stringContaining(':states:::s3:putObject') }),
      ItemProcessor: expect.objectContaining({ ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' } }),
    });
  });

  test.each([undefined, true, false])('writes results with ResultWriterV2, no deprecated API and no warning, with the app\'s ResultWriterV2 flag %s', (flag) => {
    const context = flag === undefined ? {} : { '@aws-cdk/aws-stepfunctions:useDistributedMapResultWriterV2': flag };
    const before = process.env.JSII_DEPRECATED;
    process.env.JSII_DEPRECATED = 'fail'; // jsii throws on a deprecated aws-cdk-lib API, reading this at each call
    try {
      const own = new Stack(new App({ context }), 'Own');
      const ownFiles = new SharedFileSystem(own, 'Files', { vpc: new ec2.Vpc(own, 'Vpc', { maxAzs: 2, natGateways: 1 }) });
      ownFiles.addSeed('Bulk', {
        accessPoint: ownFiles.addAccessPoint('Web', AccessPointPreset.applicationUser('/web')),
        source: SeedSource.s3(new s3.Bucket(own, 'Lake'), 'data/'), engine: SeedEngine.distributedMap(),
      });
      const map = Object.values<any>(definitionOf(Template.fromStack(own), 'CopyObjects').States)[0];
      expect(map.ResultWriter).toEqual({ Resource: expect.stringContaining(':states:::s3:putObject'), Parameters: { Bucket: 'TOKEN', Prefix: 'seed-results' } });
      Annotations.fromStack(own).hasNoWarning('*', Match.anyValue());
    } finally {
      if (before === undefined) delete process.env.JSII_DEPRECATED;
      else process.env.JSII_DEPRECATED = before;
    }
  });

  test('scopes the state machine\'s S3 read to the bucket and prefix', () => {
    const policies = Object.values<any>(Template.fromStack(stack).findResources('AWS::IAM::Policy'));
    const statements = policies.flatMap((p) => p.Properties.PolicyDocument.Statement);
    const listing = statements.filter((s) => JSON.stringify(s.Action) === '"s3:ListBucket"');
    expect(listing).toEqual(expect.arrayContaining([
      expect.objectContaining({ Effect: 'Deny', Condition: { StringNotLike: { 's3:prefix': ['data/*'] } } }),
      expect.objectContaining({ Effect: 'Allow', Condition: { StringLike: { 's3:prefix': ['data/*'] } } }),
    ]));
    const reads = statements.filter((s) => JSON.stringify(s.Action) === '"s3:GetObject"');
    for (const read of reads) expect(JSON.stringify(read.Resource)).toContain('/data/*');
  });

  test('the worker is the bundled seed handler\'s copyBatch, mounted through the access point', () => {
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.copyBatch', FileSystemConfigs: [{ LocalMountPath: '/mnt/seed', Arn: Match.anyValue() }],
    });
  });

  test('runs at deploy time through a custom resource', () => {
    Template.fromStack(stack).hasResourceProperties('Custom::CdkEfsKitDistributedMapSeed', { StateMachineArn: Match.anyValue(), Trigger: 's3-objects:data/:' });
  });

  test('the run starts only once the state machine\'s policies exist, the one for its child executions included', () => {
    const template = Template.fromStack(stack);
    const policies = Object.entries<any>(template.findResources('AWS::IAM::Policy'))
      .filter(([, p]) => JSON.stringify(p.Properties.PolicyDocument).includes('states:StartExecution') && JSON.stringify(p.Properties.Roles).includes('StateMachineRole'));
    expect(policies).toHaveLength(1);
    const [run] = Object.values<any>(template.findResources('Custom::CdkEfsKitDistributedMapSeed'));
    expect(run.DependsOn).toEqual(expect.arrayContaining([policies[0][0]]));
  });

  test('a batch is retried on Lambda errors and throttling, when its worker ran out of time, and once or twice when keys failed or the worker crashed', () => {
    const map = Object.values<any>(definition().States)[0];
    const task = Object.values<any>(map.ItemProcessor.States)[0];
    expect(task.Retry).toEqual([
      { ErrorEquals: ['Lambda.ClientExecutionTimeoutException', 'Lambda.ServiceException', 'Lambda.AWSLambdaException', 'Lambda.SdkClientException'], IntervalSeconds: 2, MaxAttempts: 6, BackoffRate: 2 },
      { ErrorEquals: ['Lambda.TooManyRequestsException'], IntervalSeconds: 5, MaxAttempts: 8, BackoffRate: 2, MaxDelaySeconds: 120, JitterStrategy: 'FULL' },
      { ErrorEquals: ['SeedBatchUnfinished'], IntervalSeconds: 1, MaxAttempts: 10, BackoffRate: 1 },
      { ErrorEquals: ['SeedBatchFailed', 'Lambda.Unknown'], IntervalSeconds: 10, MaxAttempts: 2, BackoffRate: 3 },
    ]);
  });

  test('has no unacknowledged cdk-nag findings of its own, nor of the run handlers it shares', () => {
    expect(nagErrors(stack).filter((f) => f.includes('/Bulk/') || f.includes('/CdkEfsKitSeed'))).toEqual([]);
  });
});

describe('Distributed Map engine over an S3 Inventory report', () => {
  test('reads the keys from the manifest, tells the worker they are URL-encoded, and stays nag-clean', () => {
    const bucket = new s3.Bucket(stack, 'Lake');
    const reports = new s3.Bucket(stack, 'Reports', { enforceSSL: true });
    files.addSeed('Bulk', {
      accessPoint: web(), source: SeedSource.s3(bucket, 'data/'),
      engine: SeedEngine.distributedMap({ inventory: { bucket: reports, manifestKey: 'inv/lake/daily/2026-11-22T01-00Z/manifest.json' } }),
    });
    const map = Object.values<any>(definitionOf(Template.fromStack(stack), 'CopyObjects').States)[0];
    expect(map.ItemReader).toEqual({
      Resource: expect.stringContaining(':states:::s3:getObject'), ReaderConfig: { InputType: 'MANIFEST' },
      Parameters: { Bucket: 'TOKEN', Key: 'inv/lake/daily/2026-11-22T01-00Z/manifest.json' },
    });
    expect(map.ItemBatcher.BatchInput).toMatchObject({ Key: 'data/', KeysUrlEncoded: 'true' });
    expect(nagErrors(stack).filter((f) => f.includes('/Bulk/'))).toEqual([]);
  });
});

test('warns when the Distributed Map concurrency exceeds the EFS connection burst', () => {
  const bucket = new s3.Bucket(stack, 'Lake');
  files.addSeed('Bulk', { accessPoint: web(), source: SeedSource.s3(bucket), engine: SeedEngine.distributedMap({ maxConcurrency: 5000 }) });
  Annotations.fromStack(stack).hasWarning('/Test/Files/Bulk', Match.stringLikeRegexp('seedConnectionBurst'));
});

test('fails when the Distributed Map concurrency is above 10,000', () => {
  const bucket = new s3.Bucket(stack, 'Lake');
  expect(() => files.addSeed('Bulk', { accessPoint: web(), source: SeedSource.s3(bucket), engine: SeedEngine.distributedMap({ maxConcurrency: 20000 }) }))
    .toThrow(/maxConcurrency \(max_concurrency\) must be an integer from 1 to 10,000 \(the Distributed Map limit\), got 20000/);
});

describe('options an engine cannot honour fail synth, naming the option and the engine', () => {
  let bucket: s3.Bucket;
  beforeEach(() => {
    bucket = new s3.Bucket(stack, 'Lake');
  });

  test.each([
    ['prune', 'SeedEngine.distributedMap()', { prune: true }, /keep no record of what earlier seeds wrote/],
    ['removeOnDelete', 'SeedEngine.distributedMap()', { removeOnDelete: true }, /keep no record of what they wrote/],
    ['archiveLimits', 'SeedEngine.distributedMap()', { archiveLimits: { maxEntries: 10 } }, /extracts no archive/],
    ['removeOnDelete', 'SeedEngine.dataSync()', { removeOnDelete: true }, /DataSync keeps no record of what it wrote/],
    ['concurrency', 'SeedEngine.dataSync()', { concurrency: 32 }, /DataSync sets its own parallelism/],
    ['archiveLimits', 'SeedEngine.dataSync()', { archiveLimits: { maxMemberSize: Size.gibibytes(1) } }, /extracts no archive/],
  ])('fails when given %s with %s', (option, engineName, props, why) => {
    const engine = engineName === 'SeedEngine.dataSync()' ? SeedEngine.dataSync() : SeedEngine.distributedMap();
    let message = '';
    try {
      files.addSeed('Bulk', { accessPoint: web(), source: SeedSource.s3(bucket, 'data/'), engine, ...props });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain(`FileSystemSeed(Test/Files/Bulk): ${propName(option)} is not supported by ${engineName}: `);
    expect(message).toMatch(why);
    expect(message).toMatch(/, got (true|32|\{ maxEntries \}|\{ maxMemberSize \})\.$/);
  });

  test('the defaults of those options are accepted: false is what the engine does anyway', () => {
    files.addSeed('Bulk', { accessPoint: web(), source: SeedSource.s3(bucket, 'data/'), engine: SeedEngine.distributedMap(), prune: false, removeOnDelete: false });
    Template.fromStack(stack).resourceCountIs('Custom::CdkEfsKitDistributedMapSeed', 1);
  });

  test('prune with DataSync deletes what the source no longer has', () => {
    files.addSeed('Bulk', { accessPoint: web(), source: SeedSource.s3(bucket, 'data/'), engine: SeedEngine.dataSync(), prune: true });
    Template.fromStack(stack).hasResourceProperties('AWS::DataSync::Task', { Options: Match.objectLike({ PreserveDeletedFiles: 'REMOVE' }) });
  });

  test('fails when archiveLimits is given for the S3 objects of SeedSource.s3', () => {
    expect(() => files.addSeed('Objects', { accessPoint: web(), source: SeedSource.s3(bucket, 'data/'), archiveLimits: { maxEntries: 10 } }))
      .toThrow('FileSystemSeed(Test/Files/Objects): archiveLimits (archive_limits) applies to archive sources (SeedSource.asset, SeedSource.archive), not to the S3 objects of SeedSource.s3.');
  });
});

test('a source of your own binds once, in the seed, and the seed reads only what it names', () => {
  class ReleaseArchive extends SeedSource {
    public readonly bound: string[] = [];
    constructor(private readonly bucket: s3.IBucket) {
      super();
    }
    public bind(scope: Construct): SeedSourceConfig {
      this.bound.push(scope.node.path);
      return { bucket: this.bucket, key: 'releases/current.zip', format: SeedSourceFormat.ZIP, fingerprint: 'release-7' };
    }
  }
  const source = new ReleaseArchive(new s3.Bucket(stack, 'Releases'));
  files.addSeed('Content', { accessPoint: web(), source });
  expect(source.bound).toEqual(['Test/Files/Content']);
  const template = Template.fromStack(stack);
  template.hasResourceProperties('Custom::CdkEfsKitSeed', { Key: 'releases/current.zip', Format: 'zip', Fingerprint: 'release-7' });
  template.hasResourceProperties('AWS::IAM::Policy', {
    PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 's3:GetObject', Resource: Match.objectLike({ 'Fn::Join': ['', Match.arrayWith(['/releases/current.zip'])] }) })]) },
  });
});

describe('deploy time: no waiter polls past CloudFormation\'s hour', () => {
  const engines = {
    'SeedEngine.singleFunction()': { engine: SeedEngine.singleFunction(), type: 'Custom::CdkEfsKitSeed' },
    'SeedEngine.dataSync()': { engine: SeedEngine.dataSync(), type: 'Custom::CdkEfsKitDataSyncSeed' },
    'SeedEngine.distributedMap()': { engine: SeedEngine.distributedMap(), type: 'Custom::CdkEfsKitDistributedMapSeed' },
  };

  test.each(Object.keys(engines))('%s: the handlers get a time limit inside the hour, the waiter polls no longer, and CloudFormation\'s ServiceTimeout is the hour', (name) => {
    const { engine, type } = engines[name as keyof typeof engines];
    const bucket = new s3.Bucket(stack, 'Lake');
    files.addSeed('Content', { accessPoint: web(), source: SeedSource.s3(bucket, 'data/'), engine });
    const template = Template.fromStack(stack);
    const [resource] = Object.values<any>(template.findResources(type));
    expect(resource.Properties.ServiceTimeout).toBe('3600');
    const limit = Number(resource.Properties.TimeLimitSeconds);
    // The handlers stop the run at the limit; the rest of the hour is for the framework's start,
    // a last slice's in-flight writes (60 s), one more poll, and the response.
    expect(limit).toBeGreaterThan(0);
    expect(limit + 60 + 30 + 60).toBeLessThanOrEqual(3600 - 300);
    const waiters = Object.entries<any>(template.findResources('AWS::StepFunctions::StateMachine')).filter(([id]) => /^CdkEfsKitSeed.*waiterstatemachine/.test(id));
    expect(waiters).toHaveLength(1);
    const retry = Object.values<any>(definitionOf(template, waiters[0][0]).States)[0].Retry[0];
    expect(retry.MaxAttempts * retry.IntervalSeconds).toBe(limit);
  });

  test.each(['SeedEngine.dataSync()', 'SeedEngine.distributedMap()'])('%s with waitForCompletion false: the request says the deploy only starts the run, on the handlers of waited seeds', (name) => {
    const { engine, type } = engines[name as keyof typeof engines];
    const bucket = new s3.Bucket(stack, 'Lake');
    files.addSeed('Content', { accessPoint: web(), source: SeedSource.s3(bucket, 'data/'), engine, waitForCompletion: false });
    const template = Template.fromStack(stack);
    const [resource] = Object.values<any>(template.findResources(type));
    // isComplete answers the request at once (lambda/shared/deploy-time-run.ts): the waiter asks it once.
    expect(resource.Properties.WaitForCompletion).toBe('false');
    expect(Object.keys(template.findResources('AWS::StepFunctions::StateMachine')).filter((id) => /^CdkEfsKitSeed.*waiterstatemachine/.test(id))).toHaveLength(1);
    expect(nagErrors(stack).filter((f) => f.includes('/Content/') || f.includes('/CdkEfsKitSeed'))).toEqual([]);
  });

  test('fails when the single-function engine is not to wait: its copy runs inside the deploy', () => {
    expect(() => files.addSeed('Content', { accessPoint: web(), source: SeedSource.asset(siteDir), waitForCompletion: false })).toThrow(
      'FileSystemSeed(Test/Files/Content): waitForCompletion (wait_for_completion) is not supported by SeedEngine.singleFunction(): its copy runs inside the deploy\'s custom resource, '
      + 'and must finish within the deploy\'s time limit of 50 minutes; to copy S3 objects for longer, use SeedEngine.distributedMap() or SeedEngine.dataSync(); leave it out, got false.');
  });

  test('waitForCompletion true is accepted by the single-function engine: it is what it does anyway', () => {
    files.addSeed('Content', { accessPoint: web(), source: SeedSource.asset(siteDir), waitForCompletion: true });
    Template.fromStack(stack).resourceCountIs('Custom::CdkEfsKitSeed', 1);
  });
});

describe('functions that mount the file system wait for their NFS rules', () => {
  test.each([
    ['the seed function and its resume function', SeedEngine.singleFunction(), 2],
    ['the Distributed Map worker', SeedEngine.distributedMap(), 1],
  ])('%s', (_, engine, count) => {
    const bucket = new s3.Bucket(stack, 'Lake');
    files.addSeed('Content', { accessPoint: web(), source: SeedSource.s3(bucket, 'data/'), engine });
    const template = Template.fromStack(stack);
    const mounting = Object.values<any>(template.findResources('AWS::Lambda::Function')).filter((f) => f.Properties.FileSystemConfigs);
    expect(mounting).toHaveLength(count);
    for (const fn of mounting) {
      const group = fn.Properties.VpcConfig.SecurityGroupIds[0]['Fn::GetAtt'][0];
      const [rule] = Object.keys(template.findResources('AWS::EC2::SecurityGroupIngress', { Properties: { SourceSecurityGroupId: { 'Fn::GetAtt': [group, 'GroupId'] } } }));
      expect(fn.DependsOn).toContain(rule);
    }
  });
});

describe('isolated subnets: the seed\'s functions read from S3', () => {
  let isolated: ec2.Vpc;
  let isolatedFiles: SharedFileSystem;
  beforeEach(() => {
    isolated = new ec2.Vpc(stack, 'Isolated', { maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'data', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
    isolatedFiles = new SharedFileSystem(stack, 'IsolatedFiles', { vpc: isolated });
  });
  const ap = () => isolatedFiles.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));

  test.each([
    ['the seed functions', SeedEngine.singleFunction()],
    ['the Distributed Map\'s workers', SeedEngine.distributedMap()],
  ])('fails at synth without an S3 endpoint, naming the fix: %s', (who, engine) => {
    const bucket = new s3.Bucket(stack, 'Lake');
    isolatedFiles.addSeed('Content', { accessPoint: ap(), source: SeedSource.s3(bucket, 'data/'), engine });
    expect(() => Template.fromStack(stack)).toThrow(
      `FileSystemSeed(Test/IsolatedFiles/Content): ${who} run in the file system's subnets and read the source from S3, but Test/Isolated/dataSubnet1, Test/Isolated/dataSubnet2 `
      + 'have no route to S3 (no egress, no S3 endpoint): add an S3 gateway endpoint to the VPC (free): '
      + "vpc.addGatewayEndpoint('S3', { service: ec2.GatewayVpcEndpointAwsService.S3 }), or give the file system vpcSubnets with egress.");
  });

  test('a directory asset is an S3 object too', () => {
    isolatedFiles.addSeed('Content', { accessPoint: ap(), source: SeedSource.asset(siteDir) });
    expect(() => Template.fromStack(stack)).toThrow(/have no route to S3/);
  });

  test('an S3 gateway endpoint on the subnets\' route tables, added before or after the seed, is a route', () => {
    isolatedFiles.addSeed('Content', { accessPoint: ap(), source: SeedSource.asset(siteDir) });
    isolated.addGatewayEndpoint('S3', { service: ec2.GatewayVpcEndpointAwsService.S3 });
    Template.fromStack(stack).resourceCountIs('Custom::CdkEfsKitSeed', 1);
  });

  test('a gateway endpoint that serves other subnets is not', () => {
    const mixed = new ec2.Vpc(stack, 'Mixed', {
      maxAzs: 1, natGateways: 0,
      subnetConfiguration: [{ name: 'data', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }, { name: 'other', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
    });
    mixed.addGatewayEndpoint('S3', { service: ec2.GatewayVpcEndpointAwsService.S3, subnets: [{ subnetGroupName: 'other' }] });
    const mixedFiles = new SharedFileSystem(stack, 'MixedFiles', { vpc: mixed, vpcSubnets: { subnetGroupName: 'data' } });
    mixedFiles.addSeed('Content', { accessPoint: mixedFiles.addAccessPoint('Web', AccessPointPreset.applicationUser('/web')), source: SeedSource.asset(siteDir) });
    expect(() => Template.fromStack(stack)).toThrow(/Test\/Mixed\/dataSubnet1 has no route to S3/);
  });

  test('DataSync needs none: the service reads S3 itself, and only reaches the mount targets from the VPC', () => {
    const bucket = new s3.Bucket(stack, 'Lake');
    isolatedFiles.addSeed('Content', { accessPoint: ap(), source: SeedSource.s3(bucket, 'data/'), engine: SeedEngine.dataSync() });
    Template.fromStack(stack).resourceCountIs('Custom::CdkEfsKitDataSyncSeed', 1);
  });

  test('an imported VPC, whose endpoints are not in the app, gets a warning instead', () => {
    const imported = ec2.Vpc.fromVpcAttributes(stack, 'Imported', {
      vpcId: 'vpc-0123456789abcdef0', availabilityZones: ['us-east-1a'], isolatedSubnetIds: ['subnet-0123456789abcdef0'], isolatedSubnetRouteTableIds: ['rtb-0123456789abcdef0'],
    });
    const importedFiles = new SharedFileSystem(stack, 'ImportedFiles', { vpc: imported });
    importedFiles.addSeed('Content', { accessPoint: importedFiles.addAccessPoint('Web', AccessPointPreset.applicationUser('/web')), source: SeedSource.asset(siteDir) });
    Annotations.fromStack(stack).hasWarning('/Test/ImportedFiles/Content', Match.stringLikeRegexp('cdk-efs-kit:seedS3Route'));
  });
});

describe('removeOnDelete: the seed\'s Delete reads which seeds of its stack are live', () => {
  let isolated: ec2.Vpc;
  let isolatedFiles: SharedFileSystem;
  beforeEach(() => {
    isolated = new ec2.Vpc(stack, 'Isolated', { maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'data', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
    isolated.addGatewayEndpoint('S3', { service: ec2.GatewayVpcEndpointAwsService.S3 });
    isolatedFiles = new SharedFileSystem(stack, 'IsolatedFiles', { vpc: isolated });
  });
  const seedOn = (fileSystem: SharedFileSystem, removeOnDelete?: boolean) =>
    fileSystem.addSeed('Content', { accessPoint: fileSystem.addAccessPoint('Web', AccessPointPreset.applicationUser('/web')), source: SeedSource.asset(siteDir), removeOnDelete });

  test('its function may read its own stack\'s resources, and nothing else of CloudFormation', () => {
    const accessPoint = web();
    const seed = files.addSeed('Content', { accessPoint, source: SeedSource.asset(siteDir), targetPath: '/site', removeOnDelete: true });
    // A second seed on the same functions: the statement once.
    files.addSeed('Docs', { accessPoint, source: SeedSource.asset(siteDir), targetPath: '/docs' });
    const statements = Template.fromStack(stack).findResources('AWS::IAM::Policy');
    const cloudFormation = Object.values<any>(statements).flatMap((p) => p.Properties.PolicyDocument.Statement)
      .filter((st: any) => [st.Action].flat().some((a: string) => a.startsWith('cloudformation:')));
    expect(cloudFormation).toEqual([{ Effect: 'Allow', Action: ['cloudformation:ListStackResources', 'cloudformation:DescribeStackResource'], Resource: { Ref: 'AWS::StackId' } }]);
    const role = stack.resolve((seed.function!.role!.node.defaultChild as iam.CfnRole).logicalId);
    const policy = Object.values<any>(statements).find((p) => p.Properties.Roles.some((r: any) => r.Ref === role));
    expect(JSON.stringify(policy.Properties.PolicyDocument)).toContain('cloudformation:ListStackResources');
  });

  test('without removeOnDelete, no route to CloudFormation is needed; the function may still read its stack, for an older seed\'s Delete', () => {
    seedOn(isolatedFiles);
    const template = Template.fromStack(stack);
    // The Delete runs with the old properties: a seed that had removeOnDelete may be deleted by functions whose seeds no longer ask it.
    expect(JSON.stringify(template.findResources('AWS::IAM::Policy'))).toContain('cloudformation:ListStackResources');
  });

  test('isolated subnets without a CloudFormation endpoint fail synth, naming the fix', () => {
    seedOn(isolatedFiles, true);
    expect(() => Template.fromStack(stack)).toThrow(
      'FileSystemSeed(Test/IsolatedFiles/Content): the seed functions run in the file system\'s subnets and read the stack\'s resources from CloudFormation '
      + `(with ${propName('removeOnDelete')}, a Delete leaves the place when another live seed resource of the stack serves it, as after an engine change), `
      + 'but Test/Isolated/dataSubnet1, Test/Isolated/dataSubnet2 have no route to CloudFormation (no egress, no CloudFormation endpoint): '
      + "add a CloudFormation interface endpoint to the VPC: vpc.addInterfaceEndpoint('CloudFormation', { service: ec2.InterfaceVpcEndpointAwsService.CLOUDFORMATION }), "
      + `give the file system vpcSubnets with egress, or leave ${propName('removeOnDelete')} unset.`);
  });

  test('a CloudFormation interface endpoint, added before or after the seed, is a route; an S3 one is not', () => {
    seedOn(isolatedFiles, true);
    isolated.addInterfaceEndpoint('S3Interface', { service: ec2.InterfaceVpcEndpointAwsService.S3 });
    expect(() => Template.fromStack(stack)).toThrow(/no route to CloudFormation/);
    isolated.addInterfaceEndpoint('CloudFormation', { service: ec2.InterfaceVpcEndpointAwsService.CLOUDFORMATION });
    Template.fromStack(stack).resourceCountIs('Custom::CdkEfsKitSeed', 1);
  });

  test('an imported VPC gets a warning instead', () => {
    const imported = ec2.Vpc.fromVpcAttributes(stack, 'Imported', {
      vpcId: 'vpc-0123456789abcdef0', availabilityZones: ['us-east-1a'], isolatedSubnetIds: ['subnet-0123456789abcdef0'], isolatedSubnetRouteTableIds: ['rtb-0123456789abcdef0'],
    });
    seedOn(new SharedFileSystem(stack, 'ImportedFiles', { vpc: imported }), true);
    Annotations.fromStack(stack).hasWarning('/Test/ImportedFiles/Content', Match.stringLikeRegexp('cdk-efs-kit:seedCloudFormationRoute'));
  });

  test.each([
    ['Custom::CdkEfsKitSeed', SeedEngine.singleFunction()],
    ['Custom::CdkEfsKitDistributedMapSeed', SeedEngine.distributedMap()],
    ['Custom::CdkEfsKitDataSyncSeed', SeedEngine.dataSync()],
  ])('every engine\'s resource (%s) names its place in its Metadata, as the single function\'s physical id does', (type, engine) => {
    files.addSeed('Content', { accessPoint: files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web')), source: SeedSource.s3(new s3.Bucket(stack, 'Lake'), 'data/'), engine, targetPath: '/www/site' });
    expect(SEED_RESOURCE_TYPES).toContain(type);
    const [resource] = Object.values<any>(Template.fromStack(stack).findResources(type));
    expect(resource.Metadata[SEED_PLACE_METADATA]).toEqual({
      'Fn::Join': ['', ['seed:', { Ref: expect.stringMatching(/^Files/) }, ':', { Ref: expect.stringMatching(/^FilesWeb/) }, ':/www/site']],
    });
  });
});

describe('each seed owns a place: two on one place fail synth, naming both', () => {
  const source = () => SeedSource.asset(siteDir);

  test('the place (file system, access point, target path) is in the seed\'s properties, so a new access point or file system sends an Update', () => {
    files.addSeed('Content', { accessPoint: web(), source: source(), targetPath: '/www' });
    Template.fromStack(stack).hasResourceProperties('Custom::CdkEfsKitSeed', {
      FileSystemId: { Ref: Match.stringLikeRegexp('^Files') }, AccessPointId: { Ref: Match.stringLikeRegexp('^FilesWeb') }, TargetSubPath: 'www',
    });
  });

  test.each([
    ['the same target path', '/www', '/www', 'the same place'],
    ['a target path inside the other\'s', '/www', '/www/assets', 'one place inside the other'],
    ['the access point\'s root and a path under it', '/', '/assets', 'one place inside the other'],
  ])('fails for two seeds through one access point at %s', (_what, first, second, overlap) => {
    const accessPoint = web();
    files.addSeed('First', { accessPoint, source: source(), targetPath: first });
    expect(() => files.addSeed('Second', { accessPoint, source: source(), targetPath: second })).toThrow(
      `FileSystemSeed(Test/Files/Second) and FileSystemSeed(Test/Files/First) both write to /web${second === '/' ? '' : second} on the same file system, ${overlap}: `
      + 'a seed\'s prune and removeOnDelete (remove_on_delete) would take the other\'s files. Give each seed a place of its own (another targetPath (target_path), or an access point with another root directory).');
  });

  test('fails for two access points whose roots make the places nested', () => {
    files.addSeed('First', { accessPoint: web(), source: source(), targetPath: '/assets' });
    const assets = files.addAccessPoint('Assets', AccessPointPreset.applicationUser('/web/assets/img'));
    expect(() => files.addSeed('Second', { accessPoint: assets, source: source() })).toThrow(/both write to \/web\/assets\/img on the same file system, one place inside the other/);
  });

  test('two places side by side, or on two file systems, are fine', () => {
    const accessPoint = web();
    files.addSeed('Site', { accessPoint, source: source(), targetPath: '/www' });
    files.addSeed('Docs', { accessPoint, source: source(), targetPath: '/docs' });
    files.addSeed('Other', { accessPoint: files.addAccessPoint('Jobs', AccessPointPreset.applicationUser('/jobs')), source: source() });
    const other = new SharedFileSystem(stack, 'Other', { vpc: files.vpc });
    other.addSeed('Site', { accessPoint: other.addAccessPoint('Web', AccessPointPreset.applicationUser('/web')), source: source(), targetPath: '/www' });
    Template.fromStack(stack).resourceCountIs('Custom::CdkEfsKitSeed', 4);
  });

  test('warns where an access point\'s root cannot be known (an imported one)', () => {
    files.addSeed('First', { accessPoint: web(), source: source() });
    const imported = efs.AccessPoint.fromAccessPointAttributes(stack, 'Imported', { accessPointId: 'fsap-0123456789abcdef0', fileSystem: files.fileSystem });
    files.addSeed('Second', { accessPoint: imported, source: source() });
    Annotations.fromStack(stack).hasWarning('/Test/Files/Second', Match.stringLikeRegexp('whose root directories are not known here, so whether their places overlap cannot be told'));
  });
});
