import * as fs from 'fs';
import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { cfnLintErrors, nagErrors } from '../helpers/checks';

// Every example is a CDK app users deploy as it is: each of its stacks must synthesize, pass cdk-nag
// AwsSolutions with only acknowledged findings, and pass cfn-lint without errors.
const examplesDir = path.join(__dirname, '..', '..', 'examples');
const examples = fs.readdirSync(examplesDir).filter((f) => f.endsWith('.ts'));

describe.each(examples)('examples/%s', (file) => {
  let stacks: Stack[];

  beforeAll(() => {
    const { createApp } = require(path.join(examplesDir, file)) as { createApp: (app: App) => App };
    const app = createApp(new App());
    stacks = app.node.children.filter((c): c is Stack => Stack.isStack(c));
  });

  test('defines at least one stack', () => {
    expect(stacks.length).toBeGreaterThan(0);
  });

  test('has no unacknowledged cdk-nag AwsSolutions findings', () => {
    for (const stack of stacks) expect(nagErrors(stack)).toEqual([]);
  });

  test('passes cfn-lint with no errors', () => {
    for (const stack of stacks) expect(cfnLintErrors(Template.fromStack(stack).toJSON())).toEqual([]);
  });
});

test('examples/throughput-comparison.ts puts a spend row per file system on its dashboard, price next to speed', () => {
  const { createApp } = require(path.join(examplesDir, 'throughput-comparison.ts')) as { createApp: (app: App) => App };
  const stack = createApp(new App()).node.findChild('EfsKitThroughputComparison') as Stack;
  const template = Template.fromStack(stack);
  const body = JSON.stringify(Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0].Properties.DashboardBody);
  expect(body.match(/Spend per day \(USD\/day\)/g)).toHaveLength(2);
  expect(body.match(/Data access spend \(USD\/hour\)/g)).toHaveLength(1); // Elastic's; Bursting does not bill access
  expect(Object.keys(template.findResources('AWS::CloudWatch::Alarm')).filter((id) => id.includes('DailySpend'))).toHaveLength(2);
});

test('examples/efs-vs-s3-files.ts: one EFS and one S3 Files file system, a probe and monitoring on each, synthesizes strict-clean', () => {
  const { createApp } = require(path.join(examplesDir, 'efs-vs-s3-files.ts')) as { createApp: (app: App) => App };
  const app = createApp(new App());
  const stack = app.node.children.find((c): c is Stack => Stack.isStack(c))!;
  const template = Template.fromStack(stack);
  // --strict: no warning anywhere in the app.
  expect(app.synth().stacks.flatMap((s) => s.messages).filter((m) => m.level === 'warning' || m.level === 'error')).toEqual([]);
  const probes = Object.values(template.findResources('AWS::Lambda::Function', { Properties: { Description: Match.stringLikeRegexp('benchmark probe') } }));
  expect(probes.map((p) => p.Properties.FileSystemConfigs[0].S3FilesConfig !== undefined).sort()).toEqual([false, true]);
  const descriptions = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties.AlarmDescription as string);
  // Each S3 Files failure mode has its alarm, and each probe its failure alarm.
  for (const mode of [/lost\+found/i, /ImportFailures/, /ExportFailures/, /ExportAge/, /PendingExports/]) expect(descriptions.some((d) => mode.test(d))).toBe(true);
  expect(descriptions.filter((d) => /^Probe .* failed/.test(d))).toHaveLength(2);
  template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  // Every metric S3 Files documents is on it, besides EFS's rows.
  const body = JSON.stringify(Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0].Properties.DashboardBody);
  for (const metric of ['PendingExports', 'ExportAge', 'ImportAge', 'ImportFailures', 'ExportFailures', 'DataReadBytes', 'DataWriteBytes',
    'MetadataReadBytes', 'MetadataWriteBytes', 'StorageBytes', 'Inodes', 'LostAndFoundFiles', 'ClientConnections']) {
    expect(body).toContain(`\\"AWS/S3/Files\\",\\"${metric}\\"`);
  }
  expect(body).toContain('\\"AWS/EFS\\",\\"PercentIOLimit\\"');
});
