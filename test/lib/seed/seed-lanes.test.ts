import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AccessPointPreset, SeedEngine, SeedSource, SharedFileSystem } from '../../../lib';
import { SEEDS_IN_FLIGHT } from '../../../lib/seed/seed-lanes';

// How many Lambda executions a stack's seeds hold at once while CloudFormation creates them. The
// deploy cannot run here, so CloudFormation's scheduling is modelled from the template: a resource
// starts once every resource it depends on (DependsOn, Ref, Fn::GetAtt) is complete, as CloudFormation
// does, and takes a duration of its own (drawn at random: seeds of different sizes). A custom
// resource in flight holds 2 executions: the Provider framework's function, waiting on its handler.
const SEED_TYPES = /^Custom::CdkEfsKit(Seed|DataSyncSeed|DistributedMapSeed)$/;
/** Lambda's concurrent executions in a new account. */
const NEW_ACCOUNT_QUOTA = 10;

type Resources = Record<string, { Type: string; DependsOn?: string[] | string; Properties?: unknown }>;

function dependenciesOf(resources: Resources): Map<string, Set<string>> {
  const refs = (value: unknown, into: Set<string>) => {
    if (Array.isArray(value)) value.forEach((v) => refs(v, into));
    else if (value && typeof value === 'object') {
      for (const [key, v] of Object.entries(value)) {
        if (key === 'Ref' && typeof v === 'string' && v in resources) into.add(v);
        else if (key === 'Fn::GetAtt' && Array.isArray(v) && v[0] in resources) into.add(v[0]);
        else refs(v, into);
      }
    }
  };
  return new Map(Object.entries(resources).map(([id, r]) => {
    const deps = new Set<string>([r.DependsOn ?? []].flat());
    refs(r.Properties, deps);
    return [id, deps];
  }));
}

/** Peak executions held by custom resources, and peak seeds in flight, over one simulated Create. */
function simulateCreate(resources: Resources, random: () => number): { executions: number; seeds: number } {
  const deps = dependenciesOf(resources);
  const done = new Set<string>();
  const running = new Map<string, number>();
  let now = 0;
  let peak = { executions: 0, seeds: 0 };
  while (done.size < deps.size) {
    for (const [id, needs] of deps) {
      if (!done.has(id) && !running.has(id) && [...needs].every((d) => done.has(d))) running.set(id, now + 1 + Math.floor(random() * 20));
    }
    if (running.size === 0) throw new Error('the template has a dependency cycle');
    const inFlight = [...running.keys()];
    const custom = inFlight.filter((id) => resources[id].Type.startsWith('Custom::') || resources[id].Type === 'AWS::CloudFormation::CustomResource');
    peak = {
      executions: Math.max(peak.executions, 2 * custom.length),
      seeds: Math.max(peak.seeds, custom.filter((id) => SEED_TYPES.test(resources[id].Type)).length),
    };
    now = Math.min(...running.values());
    for (const [id, end] of running) if (end === now) { running.delete(id); done.add(id); }
  }
  return peak;
}

/** A repeatable stream of numbers in [0, 1). */
function seeded(seed: number): () => number {
  let state = seed;
  return () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

function stackWithSeeds(count: number, engine?: SeedEngine): Stack {
  const stack = new Stack(new App(), 'Test');
  const files = new SharedFileSystem(stack, 'Files', { vpc: new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 }) });
  const bucket = new s3.Bucket(stack, 'Lake');
  const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
  for (let i = 0; i < count; i++) {
    files.addSeed(`Seed${i}`, { accessPoint: web, source: SeedSource.s3(bucket, `site/${i}/`), targetPath: `/part${i}`, engine });
  }
  return stack;
}

const seedIds = (resources: Resources) => Object.keys(resources).filter((id) => SEED_TYPES.test(resources[id].Type));

test.each([
  ['single function', undefined],
  ['Distributed Map', SeedEngine.distributedMap()],
])('8 %s seeds hold at most 6 executions at once, inside a new account\'s quota with room for the readiness gate', (_name, engine) => {
  const resources: Resources = Template.fromStack(stackWithSeeds(8, engine)).toJSON().Resources;
  const peaks = Array.from({ length: 50 }, (_, run) => simulateCreate(resources, seeded(run + 1)));
  expect(Math.max(...peaks.map((p) => p.seeds))).toBe(SEEDS_IN_FLIGHT);
  // The gate completes before any seed starts (they depend on it); 6 leaves 4 for it and the app's own.
  expect(Math.max(...peaks.map((p) => p.executions))).toBe(2 * SEEDS_IN_FLIGHT);
  expect(2 * SEEDS_IN_FLIGHT + 2).toBeLessThanOrEqual(NEW_ACCOUNT_QUOTA);
});

test('without the lanes the same 8 seeds would hold 16 executions at once: the finding this bounds', () => {
  const resources: Resources = Template.fromStack(stackWithSeeds(8)).toJSON().Resources;
  const seeds = new Set(seedIds(resources));
  const unlaned: Resources = Object.fromEntries(Object.entries(resources).map(([id, r]) => [id, {
    ...r, DependsOn: [r.DependsOn ?? []].flat().filter((d) => !seeds.has(d)),
  }]));
  // Equal durations: CloudFormation starts all 8 at once.
  expect(simulateCreate(unlaned, () => 0)).toEqual({ executions: 16, seeds: 8 });
});

test('each seed after the first three waits for the seed three places before it, and for no other seed', () => {
  const resources: Resources = Template.fromStack(stackWithSeeds(7)).toJSON().Resources;
  const seeds = seedIds(resources);
  const seedDeps = seeds.map((id) => [resources[id].DependsOn ?? []].flat().filter((d) => seeds.includes(d)));
  expect(seedDeps).toEqual([[], [], [], [seeds[0]], [seeds[1]], [seeds[2]], [seeds[3]]]);
});
