import { App, CfnElement, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as efs from 'aws-cdk-lib/aws-efs';
import { IConstruct } from 'constructs';
import { BenchmarkProbe, FileSystemMonitoring, FileSystemSeed, S3FilesSeed, SeedEngineKind, SeedThrough, SharedFileSystem } from '../../lib';
import { createApp } from '../apps/every-construct';
import { cfnLintErrors, nagErrors } from '../helpers/checks';

// test/apps/every-construct.ts, synthesized here as `cdk synth --strict` would with JSII_DEPRECATED=fail:
// no warning or error annotation (acknowledged ones are gone from the tree, as --strict sees it),
// no deprecated aws-cdk-lib API (jsii throws on one when JSII_DEPRECATED is fail, read at each
// call), no unacknowledged cdk-nag finding, no cfn-lint error. test/peer-range.test.ts runs the CLI
// on the same app on the lowest and the newest aws-cdk-lib.
let stack: Stack;

beforeAll(() => {
  const before = process.env.JSII_DEPRECATED;
  process.env.JSII_DEPRECATED = 'fail';
  try {
    stack = createApp(new App()).node.findChild('EfsKitEveryConstruct') as Stack;
    Template.fromStack(stack); // synthesizes, still with deprecated APIs failing
  } finally {
    if (before === undefined) delete process.env.JSII_DEPRECATED;
    else process.env.JSII_DEPRECATED = before;
  }
});

const all = <T extends IConstruct>(is: (x: any) => x is T): T[] => stack.node.findAll().filter((c): c is T => is(c));

describe('the app', () => {
  test('seeds with every engine', () => {
    const engines = new Set(all(FileSystemSeed.isFileSystemSeed).map((seed) => seed.engineKind));
    expect([...engines].sort()).toEqual(Object.values(SeedEngineKind).sort());
  });

  test('seeds an S3 Files file system each way: through the bucket, through the mount, and by DataSync in Enhanced mode', () => {
    const seeds = all(S3FilesSeed.isS3FilesSeed);
    expect(seeds.map((seed) => [seed.through, seed.dataSyncTask !== undefined])).toEqual([[SeedThrough.BUCKET, false], [SeedThrough.MOUNT, false], [SeedThrough.BUCKET, true]]);
    expect(stack.resolve(seeds[2].dataSyncTask!.taskMode)).toBe('ENHANCED');
  });

  test('probes and monitors a SharedFileSystem, a plain efs.FileSystem, an imported one, and an existing one imported with the helpers', () => {
    const key = (fileSystemId: string) => JSON.stringify(stack.resolve(fileSystemId));
    const shared = all(SharedFileSystem.isSharedFileSystem);
    const plain = stack.node.findChild('Plain') as efs.FileSystem;
    expect(shared).toHaveLength(1);
    const kinds: Record<string, string> = { [key(shared[0].fileSystemId)]: 'shared', [key(plain.fileSystemId)]: 'plain', [key('fs-0123456789abcdef0')]: 'imported', [key('fs-0fedcba9876543210')]: 'existing' };
    expect(all(BenchmarkProbe.isBenchmarkProbe).map((probe) => kinds[key(probe.fileSystemId)]).sort()).toEqual(['existing', 'imported', 'plain', 'shared']);
    expect(all(FileSystemMonitoring.isFileSystemMonitoring)).toHaveLength(4);
  });

  test('seeds and mounts the existing file system on Lambda, ECS and EC2, each after its readiness gate', () => {
    const existing = stack.node.findChild('Existing');
    const seeds = all(FileSystemSeed.isFileSystemSeed).filter((seed) => seed.node.scope === existing);
    expect(seeds.map((seed) => seed.engineKind).sort()).toEqual([SeedEngineKind.DISTRIBUTED_MAP, SeedEngineKind.SINGLE_FUNCTION]);
    const template = Template.fromStack(stack);
    const gate = stack.getLogicalId(existing.node.findChild('MountTargetsReady').node.findChild('Resource').node.defaultChild as CfnElement);
    template.hasResourceProperties('Custom::CdkEfsKitMountTargetsReady', { FileSystemId: 'fs-0fedcba9876543210', MountTargets: Match.absent() });
    for (const id of ['ExistingReader', 'ExistingTask', 'ExistingHost']) {
      const client = stack.node.findChild(id);
      const cfn = (client.node.tryFindChild('Resource') ?? client.node.defaultChild) as CfnElement;
      expect(template.toJSON().Resources[stack.getLogicalId(cfn)].DependsOn).toContain(gate);
    }
  });

  test('the two file systems that replicate alarm on their replication lag', () => {
    const lagAlarms = all(FileSystemMonitoring.isFileSystemMonitoring).filter((m) => m.alarms.replicationLag !== undefined);
    expect(lagAlarms.map((m) => m.node.id).sort()).toEqual(['Monitoring', 'PlainMonitoring']);
  });
});

describe('synthesized as cdk synth --strict does', () => {
  test('has no warnings', () => {
    expect(Annotations.fromStack(stack).findWarning('*', Match.anyValue())).toEqual([]);
  });

  test('has no errors', () => {
    expect(Annotations.fromStack(stack).findError('*', Match.anyValue())).toEqual([]);
  });

  test('has no unacknowledged cdk-nag AwsSolutions findings', () => {
    expect(nagErrors(stack)).toEqual([]);
  });

  test('passes cfn-lint with no errors', () => {
    expect(cfnLintErrors(Template.fromStack(stack).toJSON())).toEqual([]);
  });
});
