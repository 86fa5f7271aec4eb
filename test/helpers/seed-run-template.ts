import { createHash } from 'crypto';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AccessPointPreset, SeedEngine, SeedSource, SharedFileSystem } from '../../lib';

/** One deploy's seed, as a user writes it: which engine, whether the deploy waits, what is copied where. */
export interface SeedRunVariant {
  readonly engine: 'distributedMap' | 'dataSync';
  readonly waitForCompletion: boolean;
  /** The source's version label (its fingerprint, the run's Trigger). */
  readonly version?: string;
  readonly targetPath?: string;
  /** The construct id of the access point the seed writes through. */
  readonly accessPoint?: string;
}

/** The synthesized stack of a variant, and the logical ids of what its run resource names. */
export interface SeedRunTemplate {
  readonly stack: Stack;
  readonly template: Template;
  /** The run resource's Properties, as synthesized (tokens unresolved). */
  readonly properties: Record<string, unknown>;
  readonly fileSystemId: string;
  readonly onEventRole: string;
  readonly isCompleteRole?: string;
}

const RUN_TYPES = { distributedMap: 'Custom::CdkEfsKitDistributedMapSeed', dataSync: 'Custom::CdkEfsKitDataSyncSeed' };
const cache = new Map<string, SeedRunTemplate>();

/** Synthesizes a stack with one seed of `variant` (memoized: synth takes seconds). */
export function synthSeedRun(variant: SeedRunVariant): SeedRunTemplate {
  const key = JSON.stringify(variant);
  if (!cache.has(key)) cache.set(key, synth(variant));
  return cache.get(key)!;
}

function synth(variant: SeedRunVariant): SeedRunTemplate {
  const stack = new Stack(new App(), 'Test');
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
  const files = new SharedFileSystem(stack, 'Files', { vpc });
  const accessPoint = files.addAccessPoint(variant.accessPoint ?? 'Web', AccessPointPreset.applicationUser('/web'));
  files.addSeed('Content', {
    accessPoint,
    source: SeedSource.s3(new s3.Bucket(stack, 'Lake'), 'data/', { version: variant.version ?? 'v1' }),
    engine: variant.engine === 'dataSync' ? SeedEngine.dataSync() : SeedEngine.distributedMap(),
    targetPath: variant.targetPath ?? '/www',
    waitForCompletion: variant.waitForCompletion,
  });
  const template = Template.fromStack(stack);
  const [run] = Object.values<any>(template.findResources(RUN_TYPES[variant.engine]));
  // The run's handlers, which the seeds of the stack share (the file system's readiness gate has an onEvent too).
  const functions = Object.entries<any>(template.findResources('AWS::Lambda::Function')).filter(([id]) => id.startsWith('CdkEfsKitSeed')).map(([, f]) => f);
  const roleOf = (handler: string) => functions.find((f) => f.Properties.Handler === handler)?.Properties.Role['Fn::GetAtt'][0];
  return {
    stack,
    template,
    properties: run.Properties,
    fileSystemId: Object.keys(template.findResources('AWS::EFS::FileSystem'))[0],
    onEventRole: roleOf('index.onEvent'),
    isCompleteRole: roleOf('index.isComplete'),
  };
}

/**
 * The run resource's ResourceProperties as CloudFormation sends them: references to a resource of a
 * type in `byType` resolve to the value given, those to an access point to an id of its own
 * (`fsap-...`, stable per logical id), any other to `<logical id>.<attribute>`.
 */
export function resolvedProperties(run: SeedRunTemplate, byType: Record<string, string>): Record<string, any> {
  const resources = run.template.toJSON().Resources as Record<string, { Type: string }>;
  return resolveTokens(run.properties, (id, attribute) => {
    const type = resources[id]?.Type;
    if (byType[type] !== undefined) return byType[type];
    if (type === 'AWS::EFS::AccessPoint') return `fsap-${createHash('sha256').update(id).digest('hex').slice(0, 17)}`;
    return `${id}.${attribute ?? 'Ref'}`;
  });
}

/**
 * A template value with its tokens resolved as CloudFormation would: `Ref` and `Fn::GetAtt` by
 * `physical` (logical id and attribute -> value), `Fn::Join` joined.
 */
export function resolveTokens(value: any, physical: (logicalId: string, attribute?: string) => string): any {
  if (Array.isArray(value)) return value.map((v) => resolveTokens(v, physical));
  if (value === null || typeof value !== 'object') return value;
  if ('Ref' in value) return physical(value.Ref);
  if ('Fn::GetAtt' in value) return physical(value['Fn::GetAtt'][0], value['Fn::GetAtt'][1]);
  if ('Fn::Join' in value) return resolveTokens(value['Fn::Join'][1], physical).join(value['Fn::Join'][0]);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveTokens(v, physical)]));
}
