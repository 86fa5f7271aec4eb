import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as autoscaling from 'aws-cdk-lib/aws-autoscaling';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AccessPointPreset, FileSystemSeed, SeedEngine, SeedSource, SharedFileSystem } from '../../../lib';

let app: App;
let stack: Stack;
let vpc: ec2.Vpc;
let files: SharedFileSystem;
let siteDir: string;

beforeAll(() => {
  siteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-'));
  fs.writeFileSync(path.join(siteDir, 'index.html'), '<h1>hello</h1>');
});
afterAll(() => fs.rmSync(siteDir, { recursive: true, force: true }));

beforeEach(() => {
  app = new App();
  stack = new Stack(app, 'Test');
  vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
  files = new SharedFileSystem(stack, 'Files', { vpc });
});

const seedOn = (accessPoint: efs.IAccessPoint, id = 'Content') => files.addSeed(id, { accessPoint, source: SeedSource.asset(siteDir) });

const newFunction = () => new lambda.Function(stack, 'Fn', {
  runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => 1;'), vpc,
});

function newService(): ecs.FargateService {
  const cluster = new ecs.Cluster(stack, 'Cluster', { vpc });
  const task = new ecs.FargateTaskDefinition(stack, 'Task');
  task.addContainer('app', { image: ecs.ContainerImage.fromRegistry('public.ecr.aws/nginx/nginx:stable') });
  return new ecs.FargateService(stack, 'Service', { cluster, taskDefinition: task, minHealthyPercent: 100 });
}

const newGroup = () => new autoscaling.AutoScalingGroup(stack, 'Asg', {
  vpc, instanceType: new ec2.InstanceType('t3.micro'), machineImage: ec2.MachineImage.latestAmazonLinux2023(),
});

/** The DependsOn of the one resource of `type` (Template refuses a dependency cycle, so a template means none). */
function dependsOnOf(type: string): string[] {
  const found = Object.values(Template.fromStack(stack).findResources(type));
  expect(found).toHaveLength(1);
  return (found[0].DependsOn ?? []) as string[];
}

/** The DependsOn of the app's function, Fn (the seeds have functions of their own). */
function dependsOnOfFn(): string[] {
  const fn = stack.getLogicalId(stack.node.findChild('Fn').node.defaultChild as any);
  return (Template.fromStack(stack).toJSON().Resources[fn].DependsOn ?? []) as string[];
}

const logicalIdOf = (seed: FileSystemSeed) => stack.getLogicalId(seed.resource.node.defaultChild as any);

describe('clients start after the seeds that fill what they mount', () => {
  test('a function mounting the access point waits for a seed added before it', () => {
    const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
    const seed = seedOn(web);
    files.mountOnLambda(newFunction(), web);
    expect(dependsOnOfFn()).toContain(logicalIdOf(seed));
  });

  test('a function mounting the access point waits for a seed added after it', () => {
    const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
    files.mountOnLambda(newFunction(), web);
    const seed = seedOn(web);
    expect(dependsOnOfFn()).toContain(logicalIdOf(seed));
  });

  test.each(['before', 'after'])('an ECS service and its task definition wait for a seed added %s the mount', (when) => {
    const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
    const before = when === 'before' ? seedOn(web) : undefined;
    files.mountOnEcsService(newService(), web, { containerPath: '/data' });
    const seed = before ?? seedOn(web);
    expect(dependsOnOf('AWS::ECS::Service')).toContain(logicalIdOf(seed));
    expect(dependsOnOf('AWS::ECS::TaskDefinition')).toContain(logicalIdOf(seed));
  });

  test.each(['before', 'after'])('an Auto Scaling group mounting the whole file system waits for every seed, added %s the mount', (when) => {
    const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
    const jobs = files.addAccessPoint('Jobs', AccessPointPreset.applicationUser('/jobs'));
    const before = when === 'before' ? [seedOn(web, 'Site'), seedOn(jobs, 'Inputs')] : [];
    files.mountOnEc2(newGroup());
    const seeds = before.length ? before : [seedOn(web, 'Site'), seedOn(jobs, 'Inputs')];
    expect(dependsOnOf('AWS::AutoScaling::AutoScalingGroup')).toEqual(expect.arrayContaining(seeds.map(logicalIdOf)));
  });

  test('a client of an access point rooted above the seed\'s place waits for it; one rooted beside it does not', () => {
    const all = files.addAccessPoint('All', AccessPointPreset.custom({ path: '/srv' }));
    const site = files.addAccessPoint('Site', AccessPointPreset.applicationUser('/srv/site'));
    const other = files.addAccessPoint('Other', AccessPointPreset.applicationUser('/other'));
    const seed = seedOn(site);
    files.mountOnLambda(newFunction(), all);
    files.mountOnEcsService(newService(), other, { containerPath: '/data' });
    expect(dependsOnOfFn()).toContain(logicalIdOf(seed));
    expect(dependsOnOf('AWS::ECS::Service')).not.toContain(logicalIdOf(seed));
  });

  test('a seed the deploy does not wait for is still waited for as CloudFormation sees it: its resource, created once the copy has started', () => {
    const data = files.addAccessPoint('Data', AccessPointPreset.applicationUser('/data'));
    files.mountOnEc2(newGroup(), { accessPoint: data });
    const seed = files.addSeed('Migration', {
      accessPoint: data, source: SeedSource.s3(new s3.Bucket(stack, 'Lake'), 'data/'), engine: SeedEngine.dataSync(), waitForCompletion: false,
    });
    expect(dependsOnOf('AWS::AutoScaling::AutoScalingGroup')).toContain(logicalIdOf(seed));
  });

  test('waitForSeeds: false starts the client without waiting', () => {
    const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
    files.mountOnLambda(newFunction(), web, { waitForSeeds: false });
    const seed = seedOn(web);
    expect(dependsOnOfFn()).not.toContain(logicalIdOf(seed));
  });

  test('the seed\'s own functions do not wait for it, and the app synthesizes without a cycle', () => {
    const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
    files.mountOnLambda(newFunction(), web);
    const seed = seedOn(web);
    seedOn(files.addAccessPoint('Jobs', AccessPointPreset.applicationUser('/jobs')), 'Inputs');
    expect(() => app.synth()).not.toThrow();
    const functions = Template.fromStack(stack).findResources('AWS::Lambda::Function');
    const waiting = Object.entries(functions).filter(([, f]) => ((f.DependsOn ?? []) as string[]).includes(logicalIdOf(seed)));
    expect(waiting.map(([id]) => id)).toEqual([stack.getLogicalId(stack.node.findChild('Fn').node.defaultChild as any)]);
  });
});
