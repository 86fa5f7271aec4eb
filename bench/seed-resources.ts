// What seeds add to a stack: resources, Lambda functions, state machines and roles for 1, 2 and 8
// single-function seeds (on 1 or 2 access points), and for 8 of each other engine. Each is counted
// beside the same stack without seeds (a VPC, a file system, its access points and its readiness gate,
// which the first client of a file system brings, once), so the table shows the seeds' own.
// Counts of a synthesized template: no AWS account, nothing deployed.
//
//   npm run build && npx tsx bench/seed-resources.ts
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AccessPointPreset, SeedEngine, SeedSource, SharedFileSystem } from '../lib';

type EngineName = 'singleFunction' | 'dataSync' | 'distributedMap';

interface Counts { total: number; functions: number; stateMachines: number; roles: number }

/** A stack with a file system and `seeds` seeds of `engine`, spread over `accessPoints` access points. */
function countStack(seeds: number, accessPoints: number, engine: EngineName): Counts {
  const stack = new Stack(new App(), 'Seeds');
  const files = new SharedFileSystem(stack, 'Files', { vpc: new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 }) });
  const points = Array.from({ length: accessPoints }, (_, i) => files.addAccessPoint(`App${i}`, AccessPointPreset.applicationUser(`/app${i}`)));
  const bucket = new s3.Bucket(stack, 'Source');
  void files.mountTargetsReady; // the gate, made on first use: in the base stack too
  for (let i = 0; i < seeds; i++) {
    files.addSeed(`Seed${i}`, {
      accessPoint: points[i % accessPoints],
      source: SeedSource.s3(bucket, `data/${i}/`),
      targetPath: `/seed${i}`,
      engine: SeedEngine[engine](),
    });
  }
  const resources = Object.values<{ Type: string }>(Template.fromStack(stack).toJSON().Resources);
  const of = (type: string) => resources.filter((r) => r.Type === type).length;
  return { total: resources.length, functions: of('AWS::Lambda::Function'), stateMachines: of('AWS::StepFunctions::StateMachine'), roles: of('AWS::IAM::Role') };
}

const minus = (a: Counts, b: Counts): Counts => ({
  total: a.total - b.total, functions: a.functions - b.functions, stateMachines: a.stateMachines - b.stateMachines, roles: a.roles - b.roles,
});

const base = (accessPoints: number) => countStack(0, accessPoints, 'singleFunction');
console.log(`stack without seeds (VPC, file system, 2 access points, bucket, readiness gate): ${JSON.stringify(base(2))}`);
console.log('| seeds | engine | resources the seeds add | Lambda functions | state machines | IAM roles |');
console.log('|---|---|---|---|---|---|');
const cases: Array<[number, number, EngineName]> = [[1, 1, 'singleFunction'], [2, 1, 'singleFunction'], [2, 2, 'singleFunction'], [8, 2, 'singleFunction'], [8, 2, 'dataSync'], [8, 2, 'distributedMap']];
for (const [seeds, accessPoints, engine] of cases) {
  const all = countStack(seeds, accessPoints, engine);
  const own = minus(all, base(accessPoints));
  console.log(`| ${seeds} on ${accessPoints} access point${accessPoints > 1 ? 's' : ''} | ${engine} | ${own.total} (stack ${all.total}) | ${own.functions} | ${own.stateMachines} | ${own.roles} |`);
}
