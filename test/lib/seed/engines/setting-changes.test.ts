import { App, Duration, Size, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AccessPointPreset, DataSyncVerifyMode, SeedEngine, SeedOptions, SeedSource, SharedFileSystem } from '../../../../lib';

// Every setting of a seed changed on its own, as a team edits a stack it has deployed: the template
// before and after must be an update CloudFormation accepts. CloudFormation refuses a custom
// resource a new ServiceToken ("Modifying service token is not allowed", AWS::CloudFormation::CustomResource:
// "Updates are not supported") and rolls the stack back, so a resource that keeps its logical id must
// keep its ServiceToken. A resource whose logical id changes is a replacement: CloudFormation creates
// the new one, then deletes the old one through the ServiceToken the old template gave it, so the
// old provider must still be there to answer that Delete.

type Engine = 'singleFunction' | 'dataSync' | 'distributedMap';

interface Own {
  readonly accessPoints: efs.IAccessPoint[];
  readonly bucket: s3.IBucket;
}

interface Variant {
  /** Seed options over the engine's base seed, given the stack's access points and source bucket. */
  readonly seed?: (own: Own) => Partial<SeedOptions>;
  /** The engine's own options (replaces the engine). */
  readonly engine?: () => SeedEngine;
  /** Whether the seed's custom resource changes its logical id (a replacement CloudFormation accepts). */
  readonly replaced?: boolean;
}

const ENGINES: Record<Engine, (options?: any) => SeedEngine> = {
  singleFunction: (o) => SeedEngine.singleFunction(o),
  dataSync: (o) => SeedEngine.dataSync(o),
  distributedMap: (o) => SeedEngine.distributedMap(o),
};

/**
 * A stack with a seed `Seed` under test and a neighbour seed of the same engine on the same access
 * point with the base settings, so that a provider the seed leaves stays in the template.
 */
function synth(engine: Engine, variant: Variant = {}): Record<string, any> {
  const stack = new Stack(new App(), 'Test');
  const vpc = new ec2.Vpc(stack, 'Vpc', {
    maxAzs: 2,
    natGateways: 1,
    subnetConfiguration: [
      { name: 'Public', subnetType: ec2.SubnetType.PUBLIC },
      { name: 'Files', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
      { name: 'Seeds', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
    ],
  });
  const files = new SharedFileSystem(stack, 'Files', { vpc, vpcSubnets: { subnetGroupName: 'Files' } });
  const bucket = new s3.Bucket(stack, 'Lake');
  const accessPoints = [0, 1].map((i) => files.addAccessPoint(`App${i}`, AccessPointPreset.applicationUser(`/app${i}`)));
  const options = (seed: Partial<SeedOptions>, name: string): SeedOptions => ({
    accessPoint: accessPoints[0], source: SeedSource.s3(bucket, `${name}/`, { version: 'v1' }), targetPath: `/${name}`, engine: ENGINES[engine](), ...seed,
  });
  files.addSeed('Neighbour', options({}, 'neighbour'));
  files.addSeed('Seed', options({ ...variant.seed?.({ accessPoints, bucket }), ...(variant.engine ? { engine: variant.engine() } : {}) }, 'seed'));
  return Template.fromStack(stack).toJSON().Resources;
}

const isCustomResource = (resource: any) => resource.Type === 'AWS::CloudFormation::CustomResource' || resource.Type.startsWith('Custom::');
const customResources = (resources: Record<string, any>) => Object.entries(resources).filter(([, r]) => isCustomResource(r));
/** The logical id of the seed's own custom resource: the one under `FilesSeed`, not the neighbour's. */
const seedResourceId = (resources: Record<string, any>) => customResources(resources).map(([id]) => id).filter((id) => id.startsWith('FilesSeed'));

/** What CloudFormation would refuse, or would leave without a handler, going from `before` to `after`. */
function refusals(before: Record<string, any>, after: Record<string, any>): string[] {
  const problems: string[] = [];
  for (const [id, old] of customResources(before)) {
    const now = after[id];
    if (now !== undefined) {
      if (JSON.stringify(now.Properties.ServiceToken) !== JSON.stringify(old.Properties.ServiceToken)) {
        problems.push(`${id} keeps its logical id and changes its ServiceToken (Modifying service token is not allowed)`);
      }
      continue;
    }
    // Replaced: the old resource's Delete goes to the old ServiceToken's function.
    const provider = old.Properties.ServiceToken['Fn::GetAtt']?.[0];
    if (!provider || before[provider] === undefined) problems.push(`${id}'s ServiceToken names no function of the template`);
    else if (after[provider] === undefined) problems.push(`${id} is replaced and its provider ${provider} is gone: its Delete reaches no handler`);
  }
  return problems;
}

const SETTINGS: Record<Engine, Record<string, Variant>> = {
  singleFunction: {
    'source (another prefix)': { seed: ({ bucket }) => ({ source: SeedSource.s3(bucket, 'other/', { version: 'v1' }) }) },
    'source (an archive, with archiveLimits)': {
      seed: ({ bucket }) => ({ source: SeedSource.archive(bucket, 'site.zip', { version: 'v1' }), archiveLimits: { maxEntries: 1000 } }),
    },
    'targetPath': { seed: () => ({ targetPath: '/elsewhere' }) },
    'accessPoint (a mount of its own)': { seed: ({ accessPoints }) => ({ accessPoint: accessPoints[1] }), replaced: true },
    'concurrency': { seed: () => ({ concurrency: 128 }) },
    'prune': { seed: () => ({ prune: true }) },
    'removeOnDelete': { seed: () => ({ removeOnDelete: true }) },
    'vcpus (the function\'s size)': { engine: () => SeedEngine.singleFunction({ vcpus: 2 }), replaced: true },
    'memorySize (the function\'s size)': { engine: () => SeedEngine.singleFunction({ memorySize: Size.mebibytes(4096) }), replaced: true },
    'timeout': { engine: () => SeedEngine.singleFunction({ timeout: Duration.minutes(10) }) },
    'vpcSubnets (the function\'s network)': { seed: () => ({ vpcSubnets: { subnetGroupName: 'Seeds' } }), replaced: true },
    'engine (to DataSync)': { engine: () => SeedEngine.dataSync(), replaced: true },
    'engine (to Distributed Map)': { engine: () => SeedEngine.distributedMap(), replaced: true },
  },
  dataSync: {
    'source (another prefix)': { seed: ({ bucket }) => ({ source: SeedSource.s3(bucket, 'other/', { version: 'v1' }) }) },
    'targetPath': { seed: () => ({ targetPath: '/elsewhere' }) },
    'accessPoint': { seed: ({ accessPoints }) => ({ accessPoint: accessPoints[1] }) },
    'prune': { seed: () => ({ prune: true }) },
    'waitForCompletion': { seed: () => ({ waitForCompletion: false }) },
    'verifyMode': { engine: () => SeedEngine.dataSync({ verifyMode: DataSyncVerifyMode.NONE }) },
    'transferAll': { engine: () => SeedEngine.dataSync({ transferAll: true }) },
    'removeDeletedFiles': { engine: () => SeedEngine.dataSync({ removeDeletedFiles: true }) },
    'includes': { engine: () => SeedEngine.dataSync({ includes: ['/a*'] }) },
    'excludes': { engine: () => SeedEngine.dataSync({ excludes: ['*.tmp'] }) },
    'scheduleExpression': { engine: () => SeedEngine.dataSync({ scheduleExpression: 'rate(1 day)' }) },
    'bytesPerSecond': { engine: () => SeedEngine.dataSync({ bytesPerSecond: 1_000_000 }) },
    'logRetention': { engine: () => SeedEngine.dataSync({ logRetention: logs.RetentionDays.ONE_WEEK }) },
    'engine (to single function)': { engine: () => SeedEngine.singleFunction(), replaced: true },
  },
  distributedMap: {
    'source (another prefix)': { seed: ({ bucket }) => ({ source: SeedSource.s3(bucket, 'other/', { version: 'v1' }) }) },
    'targetPath': { seed: () => ({ targetPath: '/elsewhere' }) },
    'accessPoint': { seed: ({ accessPoints }) => ({ accessPoint: accessPoints[1] }) },
    'concurrency': { seed: () => ({ concurrency: 128 }) },
    'waitForCompletion': { seed: () => ({ waitForCompletion: false }) },
    'vcpus': { engine: () => SeedEngine.distributedMap({ vcpus: 2 }) },
    'memorySize': { engine: () => SeedEngine.distributedMap({ memorySize: Size.mebibytes(4096) }) },
    'maxConcurrency': { engine: () => SeedEngine.distributedMap({ maxConcurrency: 50 }) },
    'maxItemsPerBatch': { engine: () => SeedEngine.distributedMap({ maxItemsPerBatch: 100 }) },
    'toleratedFailurePercentage': { engine: () => SeedEngine.distributedMap({ toleratedFailurePercentage: 5 }) },
    'vpcSubnets': { seed: () => ({ vpcSubnets: { subnetGroupName: 'Seeds' } }) },
    'engine (to single function)': { engine: () => SeedEngine.singleFunction(), replaced: true },
  },
};

describe.each(Object.keys(SETTINGS) as Engine[])('a %s seed', (engine) => {
  let before: Record<string, any>;
  beforeAll(() => {
    before = synth(engine);
  });

  test.each(Object.entries(SETTINGS[engine]))('changing %s deploys: no ServiceToken changes, a replaced resource\'s Delete reaches its old provider', (_setting, variant) => {
    const after = synth(engine, variant);
    expect(refusals(before, after)).toEqual([]);
    // The setting changed something, and the seed's resource is replaced exactly when it should be.
    expect(JSON.stringify(after)).not.toEqual(JSON.stringify(before));
    const [was] = seedResourceId(before);
    expect(seedResourceId(after).includes(was)).toBe(!variant.replaced);
  });
});

test('a seed alone on its provider: the replaced resource references the old provider, which CloudFormation deletes only after it', () => {
  const alone = (vcpus: number) => {
    const stack = new Stack(new App(), 'Test');
    const files = new SharedFileSystem(stack, 'Files', { vpc: new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 }) });
    files.addSeed('Seed', {
      accessPoint: files.addAccessPoint('App', AccessPointPreset.applicationUser('/app')),
      source: SeedSource.s3(new s3.Bucket(stack, 'Lake'), 'seed/'), engine: SeedEngine.singleFunction({ vcpus }),
    });
    return Template.fromStack(stack).toJSON().Resources;
  };
  const before = alone(1);
  const after = alone(2);
  const [was] = seedResourceId(before);
  expect(seedResourceId(after)).not.toContain(was);
  // Gone from the new template with the resource: CloudFormation deletes removed resources in the
  // reverse order of the old template's references, so the old seed's Delete runs while the
  // framework function its ServiceToken names, the seed function it invokes and that function's
  // mount still exist.
  const framework = before[was].Properties.ServiceToken['Fn::GetAtt'][0];
  expect(after[framework]).toBeUndefined();
  const userFunction = before[framework].Properties.Environment.Variables.USER_ON_EVENT_FUNCTION_ARN['Fn::GetAtt'][0];
  expect(before[userFunction].Properties.FileSystemConfigs).toHaveLength(1);
  // And nothing that stays refers to them.
  expect(JSON.stringify(after)).not.toContain(framework);
});
