import { App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { physicalIdOf } from '../../../../lambda/seed/handler/seed-place';
import { AccessPointPreset, FileSystemSeed, SeedEngine, SeedOptions, SeedSource, SharedFileSystem } from '../../../../lib';
import { cfnLintErrors, nagErrors } from '../../../helpers/checks';
import { resolveTokens } from '../../../helpers/seed-run-template';

// Seeds share their handlers: one seed function, resume function and Provider per access point and
// settings (single function), one run-handler Provider per file system (DataSync, Distributed Map).
// The counts are the seeds' own: the stack's minus the same stack without seeds, whose file system
// already has its readiness gate (made once per file system by its first client).

let stack: Stack;
let files: SharedFileSystem;
let bucket: s3.Bucket;
let accessPoints: efs.AccessPoint[];

beforeEach(() => {
  stack = new Stack(new App(), 'Test');
  files = new SharedFileSystem(stack, 'Files', { vpc: new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 }) });
  bucket = new s3.Bucket(stack, 'Lake');
  accessPoints = [0, 1].map((i) => files.addAccessPoint(`App${i}`, AccessPointPreset.applicationUser(`/app${i}`)));
});

/** `count` seeds over the first `onAccessPoints` access points, each in a place of its own. */
function addSeeds(count: number, onAccessPoints: number, options: Partial<SeedOptions> = {}): FileSystemSeed[] {
  return Array.from({ length: count }, (_, i) => files.addSeed(`Seed${i}`, {
    accessPoint: accessPoints[i % onAccessPoints], source: SeedSource.s3(bucket, `data/${i}/`), targetPath: `/seed${i}`, ...options,
  }));
}

const COUNTED = { functions: 'AWS::Lambda::Function', stateMachines: 'AWS::StepFunctions::StateMachine', roles: 'AWS::IAM::Role' };

function counts(of: Stack): Record<keyof typeof COUNTED, number> {
  const resources = Object.values<{ Type: string }>(Template.fromStack(of).toJSON().Resources);
  const count = (type: string) => resources.filter((r) => r.Type === type).length;
  return { functions: count(COUNTED.functions), stateMachines: count(COUNTED.stateMachines), roles: count(COUNTED.roles) };
}

/** What the seeds added: the counts minus those of the stack before any seed, with its gate. */
function seedsOwn(): Record<keyof typeof COUNTED, number> {
  const base = new Stack(new App(), 'Base');
  const baseFiles = new SharedFileSystem(base, 'Files', { vpc: new ec2.Vpc(base, 'Vpc', { maxAzs: 2, natGateways: 1 }) });
  [0, 1].forEach((i) => baseFiles.addAccessPoint(`App${i}`, AccessPointPreset.applicationUser(`/app${i}`)));
  void baseFiles.mountTargetsReady;
  const all = counts(stack);
  const without = counts(base);
  return { functions: all.functions - without.functions, stateMachines: all.stateMachines - without.stateMachines, roles: all.roles - without.roles };
}

const seedResources = (type = 'Custom::CdkEfsKitSeed') => Object.entries<any>(Template.fromStack(stack).findResources(type));

describe('single-function seeds share their handlers per access point', () => {
  // A Provider with isComplete: 2 seed functions, 3 framework functions, the waiter; a role for each.
  const oneProvider = { functions: 5, stateMachines: 1, roles: 6 };

  test.each([
    ['1 seed', 1, 1, oneProvider],
    ['2 seeds on one access point', 2, 1, oneProvider],
    ['2 seeds on two access points', 2, 2, { functions: 10, stateMachines: 2, roles: 12 }],
    ['8 seeds on two access points', 8, 2, { functions: 10, stateMachines: 2, roles: 12 }],
  ])('%s: one set of handlers per access point', (_name, count, onAccessPoints, expected) => {
    addSeeds(count, onAccessPoints);
    expect(seedsOwn()).toEqual(expected);
    expect(seedResources()).toHaveLength(count);
  });

  test('8 seeds on two access points meet the goal: at most 12 functions and 2 state machines of their own', () => {
    addSeeds(8, 2);
    const own = seedsOwn();
    expect(own.functions).toBeLessThanOrEqual(12);
    expect(own.stateMachines).toBeLessThanOrEqual(2);
  });

  test('a seed with another size gets a second set of handlers: memory is the function\'s', () => {
    addSeeds(2, 1);
    files.addSeed('Other', { accessPoint: accessPoints[0], source: SeedSource.s3(bucket, 'other/'), targetPath: '/other', engine: SeedEngine.singleFunction({ vcpus: 2 }) });
    expect(seedsOwn()).toEqual({ functions: 10, stateMachines: 2, roles: 12 });
  });

  test('seeds with another timeout or concurrency share the handlers: the functions get the largest, each request its own', () => {
    addSeeds(2, 1);
    files.addSeed('Other', {
      accessPoint: accessPoints[0], source: SeedSource.s3(bucket, 'other/'), targetPath: '/other', concurrency: 128, engine: SeedEngine.singleFunction({ timeout: Duration.minutes(5) }),
    });
    files.addSeed('Longest', { accessPoint: accessPoints[0], source: SeedSource.s3(bucket, 'longest/'), targetPath: '/longest', concurrency: 8 });
    expect(seedsOwn()).toEqual({ functions: 5, stateMachines: 1, roles: 6 });
    const template = Template.fromStack(stack);
    const seedFunctions = Object.values<any>(template.findResources('AWS::Lambda::Function')).filter((f) => f.Properties.FileSystemConfigs);
    expect(seedFunctions.map((f) => [f.Properties.Timeout, f.Properties.Environment.Variables.UV_THREADPOOL_SIZE])).toEqual([[900, '128'], [900, '128']]);
    const requests = Object.fromEntries(seedResources().map(([, r]) => [r.Properties.TargetSubPath, [r.Properties.InvocationTimeoutSeconds, r.Properties.Concurrency]]));
    expect(requests).toEqual({ seed0: ['900', '64'], seed1: ['900', '64'], other: ['300', '128'], longest: ['900', '8'] });
  });

  test('the functions\' timeout is the largest their seeds ask', () => {
    files.addSeed('Short', { accessPoint: accessPoints[0], source: SeedSource.s3(bucket, 'a/'), targetPath: '/a', engine: SeedEngine.singleFunction({ timeout: Duration.minutes(5) }) });
    files.addSeed('Longer', { accessPoint: accessPoints[0], source: SeedSource.s3(bucket, 'b/'), targetPath: '/b', engine: SeedEngine.singleFunction({ timeout: Duration.minutes(8) }) });
    const seedFunctions = Object.values<any>(Template.fromStack(stack).findResources('AWS::Lambda::Function')).filter((f) => f.Properties.FileSystemConfigs);
    expect(seedFunctions.map((f) => f.Properties.Timeout)).toEqual([480, 480]);
  });

  test.each([[Duration.minutes(1), '60 s'], [Duration.minutes(16), '960 s']])('fails when the timeout is %s: each invocation needs more than its minute of margin, and Lambda allows 15', (timeout, shown) => {
    expect(() => files.addSeed('Odd', { accessPoint: accessPoints[0], source: SeedSource.s3(bucket, 'a/'), engine: SeedEngine.singleFunction({ timeout }) }))
      .toThrow(`FileSystemSeed(Test/Files/Odd): timeout must be from 2 to 15 minutes (each invocation stops starting files a minute before its end; Lambda's most is 15), got "${shown}".`);
  });

  test('seeds on two file systems do not share: each function mounts one access point', () => {
    addSeeds(1, 1);
    const other = new SharedFileSystem(stack, 'Other', { vpc: files.vpc });
    other.addSeed('Seed', { accessPoint: other.addAccessPoint('App', AccessPointPreset.applicationUser('/app0')), source: SeedSource.s3(bucket, 'data/') });
    const mounting = Object.values<any>(Template.fromStack(stack).findResources('AWS::Lambda::Function')).filter((f) => f.Properties.FileSystemConfigs);
    expect(mounting).toHaveLength(4);
  });

  test('two seeds on one function: one ServiceToken, each its own resource, properties and physical id (the place it owns)', () => {
    addSeeds(2, 1);
    const resources = seedResources();
    const [first, second] = resources.map(([, r]) => r.Properties);
    expect(first.ServiceToken).toEqual(second.ServiceToken);
    const resolved = [first, second].map((p) => resolveTokens(p, (id) => (id.startsWith('FilesApp') ? 'fsap-0123456789abcdef0' : id.startsWith('Files') ? 'fs-0123456789abcdef0' : id)));
    expect(resolved.map((p) => [p.TargetSubPath, p.Key, p.MetricsName])).toEqual([['seed0', 'data/0/', 'Test/Files/Seed0'], ['seed1', 'data/1/', 'Test/Files/Seed1']]);
    expect(resolved.map(physicalIdOf)).toEqual(['seed:fs-0123456789abcdef0:fsap-0123456789abcdef0:/seed0', 'seed:fs-0123456789abcdef0:fsap-0123456789abcdef0:/seed1']);
    // Each seed's resource is named after its provider (<seed>/ResourceVia<kind><hash>): a change that
    // moves it to another provider gives it a new logical id, a replacement CloudFormation accepts.
    expect(resources.map(([id]) => id)).toEqual([expect.stringMatching(/^FilesSeed0ResourceViaSingleFunction[0-9a-f]{8}[0-9A-F]{8}$/), expect.stringMatching(/^FilesSeed1ResourceViaSingleFunction[0-9a-f]{8}[0-9A-F]{8}$/)]);
  });

  test('each seed waits for the mount targets and the readiness gate itself', () => {
    addSeeds(2, 1);
    const template = Template.fromStack(stack).toJSON();
    const gate = Object.keys(template.Resources).find((id) => template.Resources[id].Type === 'Custom::CdkEfsKitMountTargetsReady')!;
    const mountTargets = Object.keys(template.Resources).filter((id) => template.Resources[id].Type === 'AWS::EFS::MountTarget');
    for (const [, resource] of seedResources()) expect(resource.DependsOn).toEqual(expect.arrayContaining([gate, ...mountTargets]));
  });

  test('the shared role reads each seed\'s bucket and prefix, and nothing more: the union of the seeds\' grants, no wildcard added', () => {
    const other = new s3.Bucket(stack, 'Other');
    files.addSeed('A', { accessPoint: accessPoints[0], source: SeedSource.s3(bucket, 'a/'), targetPath: '/a' });
    files.addSeed('B', { accessPoint: accessPoints[0], source: SeedSource.archive(other, 'releases/b.zip'), targetPath: '/b' });
    const template = Template.fromStack(stack);
    const policies = Object.entries<any>(template.findResources('AWS::IAM::Policy')).filter(([id]) => /^CdkEfsKitSeedSingleFunction[0-9a-f]{8}(Resume)?FunctionServiceRole/.test(id));
    expect(policies).toHaveLength(2); // the seed function's and the resume function's
    for (const [, policy] of policies) {
      const s3Statements = policy.Properties.PolicyDocument.Statement.filter((st: any) => JSON.stringify(st.Action).includes('s3:'));
      expect(s3Statements).toEqual([
        { Action: 's3:ListBucket', Effect: 'Allow', Resource: { 'Fn::GetAtt': [expect.stringMatching(/^Lake/), 'Arn'] }, Condition: { StringLike: { 's3:prefix': ['a/*'] } } },
        { Action: 's3:GetObject', Effect: 'Allow', Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^Lake/), 'Arn'] }, '/a/*']] } },
        { Action: 's3:GetObject', Effect: 'Allow', Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^Other/), 'Arn'] }, '/releases/b.zip']] } },
      ]);
      expect(policy.Properties.PolicyDocument.Statement.filter((st: any) => st.Resource === '*')).toEqual([]);
    }
  });

  test('a seed\'s failures are its own: its files and its requests by its Seed dimension, not the shared functions\' Errors', () => {
    const [first, second] = addSeeds(2, 1);
    const metricsOf = (seed: FileSystemSeed) => Object.values(seed.metricFailures().usingMetrics).map((m) => (m as cloudwatch.Metric));
    for (const [seed, path] of [[first, 'Test/Files/Seed0'], [second, 'Test/Files/Seed1']] as const) {
      expect(metricsOf(seed).map((m) => [m.namespace, m.metricName, m.dimensions?.Seed])).toEqual([
        ['CdkEfsKit', 'SeedFilesFailed', path], ['CdkEfsKit', 'SeedRunsFailed', path],
      ]);
    }
  });

  test('8 seeds on two access points are cdk-nag and cfn-lint clean', () => {
    addSeeds(8, 2);
    expect(nagErrors(stack).filter((f) => f.includes('/Seed') || f.includes('/CdkEfsKitSeed'))).toEqual([]);
    expect(cfnLintErrors(Template.fromStack(stack).toJSON())).toEqual([]);
  });
});

describe('DataSync and Distributed Map seeds share their run handlers in the stack', () => {
  test('8 DataSync seeds: one starter, one waiter and one Provider; each task in their policies', () => {
    addSeeds(8, 2, { engine: SeedEngine.dataSync() });
    const template = Template.fromStack(stack);
    const runFunctions = Object.keys(template.findResources('AWS::Lambda::Function')).filter((id) => id.startsWith('CdkEfsKitSeedDataSyncRun'));
    expect(runFunctions).toHaveLength(5); // StartExecution, WaitForExecution and the framework's three
    const starter = Object.entries<any>(template.findResources('AWS::IAM::Policy')).find(([id]) => /^CdkEfsKitSeedDataSyncRun.*StartExecution/.test(id))![1];
    const started = starter.Properties.PolicyDocument.Statement.filter((st: any) => JSON.stringify(st.Action).includes('StartTaskExecution'));
    expect(started.map((st: any) => st.Resource['Fn::GetAtt'][0])).toEqual(Array.from({ length: 8 }, (_, i) => expect.stringMatching(new RegExp(`^FilesSeed${i}DataSyncTask`))));
    expect(seedResources('Custom::CdkEfsKitDataSyncSeed')).toHaveLength(8);
    expect(nagErrors(stack).filter((f) => f.includes('/Seed') || f.includes('/CdkEfsKitSeed'))).toEqual([]);
  });

  test('seeds the deploy waits for and seeds it only starts share one Provider: each request says whether it waits', () => {
    addSeeds(2, 1, { engine: SeedEngine.dataSync() });
    files.addSeed('Detached', { accessPoint: accessPoints[1], source: SeedSource.s3(bucket, 'detached/'), engine: SeedEngine.dataSync(), waitForCompletion: false });
    const template = Template.fromStack(stack);
    const runFunctions = Object.keys(template.findResources('AWS::Lambda::Function')).filter((id) => id.startsWith('CdkEfsKitSeedDataSyncRun'));
    expect(runFunctions).toHaveLength(5);
    const resources = seedResources('Custom::CdkEfsKitDataSyncSeed').map(([, r]) => r.Properties);
    expect(new Set(resources.map((p) => JSON.stringify(p.ServiceToken))).size).toBe(1);
    expect(resources.map((p) => p.WaitForCompletion)).toEqual(['true', 'true', 'false']);
  });

  test('seeds on two file systems share one run Provider: the run handlers mount nothing', () => {
    addSeeds(1, 1, { engine: SeedEngine.distributedMap() });
    const other = new SharedFileSystem(stack, 'Other', { vpc: files.vpc });
    other.addSeed('Seed', { accessPoint: other.addAccessPoint('App', AccessPointPreset.applicationUser('/app0')), source: SeedSource.s3(bucket, 'data/'), engine: SeedEngine.distributedMap() });
    const tokens = seedResources('Custom::CdkEfsKitDistributedMapSeed').map(([, r]) => JSON.stringify(r.Properties.ServiceToken));
    expect(tokens).toHaveLength(2);
    expect(tokens[0]).toEqual(tokens[1]);
  });

  test('8 Distributed Map seeds: a worker and a state machine each, one run Provider for all', () => {
    addSeeds(8, 2, { engine: SeedEngine.distributedMap() });
    const own = seedsOwn();
    // 8 workers + 5 run functions; 8 maps + the run Provider's waiter.
    expect(own).toMatchObject({ functions: 13, stateMachines: 9 });
    const template = Template.fromStack(stack);
    const starter = Object.entries<any>(template.findResources('AWS::IAM::Policy')).find(([id]) => /^CdkEfsKitSeedDistributedMapRun.*StartExecution/.test(id))![1];
    const starts = starter.Properties.PolicyDocument.Statement.filter((st: any) => st.Action === 'states:StartExecution');
    expect(starts).toHaveLength(8);
    expect(nagErrors(stack).filter((f) => f.includes('/Seed') || f.includes('/CdkEfsKitSeed'))).toEqual([]);
    expect(cfnLintErrors(template.toJSON())).toEqual([]);
  });
});
