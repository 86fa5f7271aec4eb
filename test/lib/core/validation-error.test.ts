import * as fs from 'fs';
import * as path from 'path';
import { App, Duration, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import { AccessPointPreset, AlarmThreshold, FileSystemMonitoring, NfsMountOptions, SeedSource, SharedFileSystem } from '../../../lib';
import { isValidationError, ValidationError } from '../../../lib/core/validation-error';

// Synth refuses props with one error type, scoped to the construct they were given to (as aws-cdk's
// ValidationError): its path is in the message and in constructPath.
let stack: Stack;
let vpc: ec2.Vpc;

beforeEach(() => {
  stack = new Stack(new App(), 'Test');
  vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0, subnetConfiguration: [{ name: 'Isolated', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
});

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

test('a SharedFileSystem refusing its props throws a ValidationError scoped to it', () => {
  const err = thrown(() => new SharedFileSystem(stack, 'Files', { vpc, throughputMode: efs.ThroughputMode.PROVISIONED }));
  expect(isValidationError(err)).toBe(true);
  expect(err).toMatchObject({ name: 'ValidationError', constructPath: 'Test/Files' });
  expect((err as Error).message).toMatch(/^SharedFileSystem\(Test\/Files\): throughputMode \(throughput_mode\) PROVISIONED needs provisionedThroughputPerSecond \(provisioned_throughput_per_second\)/);
});

test('a mount helper refusing its arguments names the file system and the client', () => {
  const files = new SharedFileSystem(stack, 'Files', { vpc });
  const host = new ec2.Instance(stack, 'Host', {
    vpc, instanceType: new ec2.InstanceType('t3.micro'), machineImage: ec2.MachineImage.latestAmazonLinux2023(),
  });
  const err = thrown(() => files.mountOnEc2(host, { mountPoint: 'relative' }));
  expect(err).toMatchObject({ constructPath: 'Test/Files' });
  expect((err as Error).message).toBe('SharedFileSystem(Test/Files).mountOnEc2(Test/Host): mountPoint (mount_point) must be an absolute path other than /, got "relative".');
});

test('a seed refusing its props throws one scoped to the seed', () => {
  const files = new SharedFileSystem(stack, 'Files', { vpc });
  const accessPoint = files.addAccessPoint('Ap', AccessPointPreset.applicationUser('/web'));
  const err = thrown(() => files.addSeed('Seed', { accessPoint, source: SeedSource.asset(__dirname), concurrency: 0 }));
  expect(err).toMatchObject({ name: 'ValidationError', constructPath: 'Test/Files/Seed' });
  expect((err as Error).message).toMatch(/^FileSystemSeed\(Test\/Files\/Seed\): concurrency must be an integer from 1 to/);
});

test('a replication the file system cannot do is refused, scoped to the file system', () => {
  const files = new SharedFileSystem(stack, 'Files', { vpc });
  const err = thrown(() => files.acceptReplicationFrom('111111111111'));
  expect(err).toMatchObject({ name: 'ValidationError', constructPath: 'Test/Files' });
  expect((err as Error).message).toMatch(/^SharedFileSystem\(Test\/Files\)\.acceptReplicationFrom: EFS replicates only into/);
});

test('monitoring an imported file system without what it needs is refused, scoped to the imported file system', () => {
  const files = SharedFileSystem.fromFileSystemAttributes(stack, 'Legacy', {
    fileSystemId: 'fs-0123456789abcdef0', vpc, securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'LegacySg', 'sg-0123456789abcdef0'),
  });
  expect(thrown(() => files.addMonitoring('Monitoring'))).toMatchObject({ name: 'ValidationError', constructPath: 'Test/Legacy' });
});

test('a monitoring alarm that does not apply is refused, scoped to the monitoring', () => {
  const files = new SharedFileSystem(stack, 'Files', { vpc });
  const err = thrown(() => new FileSystemMonitoring(stack, 'Monitoring', { fileSystem: files, alarms: { replicationLag: AlarmThreshold.duration(Duration.hours(2)) } }));
  expect(err).toMatchObject({ name: 'ValidationError', constructPath: 'Test/Monitoring' });
});

test('a data class with no construct throws it unscoped', () => {
  const err = thrown(() => NfsMountOptions.recommendedNfs().withOverrides('bad option'));
  expect(isValidationError(err)).toBe(true);
  expect((err as ValidationError).constructPath).toBeUndefined();
});

test('puts the construct path in front of a message that does not name it', () => {
  const err = new ValidationError('something is wrong', stack);
  expect(err.message).toBe('Test: something is wrong');
  expect(isValidationError(new Error('plain'))).toBe(false);
});

// Where lib/ may still throw a plain Error: not for props a user gave a construct.
const PLAIN_ERROR_ALLOWED: Record<string, string> = {
  'core/handler-code.ts': 'a build that lacks its bundled handlers, not a prop',
  'core/package-root.ts': 'a broken install, not a prop',
  'cost/checked-prices.ts': 'lib/cost imports only contracts (the probe handler and the CLI bundle it)',
};

test('lib/ throws no plain Error for props, outside contracts and the places listed', () => {
  const lib = path.join(__dirname, '..', '..', '..', 'lib');
  const files = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  const offenders = files(lib)
    .map((file) => path.relative(lib, file).split(path.sep).join('/'))
    .filter((rel) => rel.endsWith('.ts') && !rel.split('/').includes('contract') && !(rel in PLAIN_ERROR_ALLOWED))
    .filter((rel) => /\bnew Error\(/.test(fs.readFileSync(path.join(lib, rel), 'utf8')));
  expect(offenders).toEqual([]);
  // The check still finds what it looks for.
  expect(Object.keys(PLAIN_ERROR_ALLOWED).every((rel) => /\bnew Error\(/.test(fs.readFileSync(path.join(lib, rel), 'utf8')))).toBe(true);
});
