import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AccessPointPreset, BenchmarkProbe, FileSystemMonitoring, FileSystemSeed, SeedSource, SharedFileSystem } from '../../lib';

// An app can hold two copies of cdk-efs-kit (two versions in node_modules, a monorepo, a jsii
// language's own copy): `instanceof` fails across them, the static isXxx methods must not.
// Needs `npm run build` first (npm test does it): the second copy is the packed package.
const root = path.join(__dirname, '..', '..');
let scratch: string;
let other: typeof import('../../lib');

beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'two-copies-'));
  const [pack] = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', scratch], {
    cwd: root, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' },
  }));
  const dir = path.join(scratch, 'node_modules', 'cdk-efs-kit');
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['-xzf', path.join(scratch, pack.filename), '-C', dir, '--strip-components=1']);
  // The peers are the app's own, shared by both copies, as npm installs them.
  for (const peer of ['aws-cdk-lib', 'constructs']) fs.symlinkSync(path.join(root, 'node_modules', peer), path.join(scratch, 'node_modules', peer));
  other = require(dir);
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

test('the second copy is a different module with its own classes', () => {
  expect(other.SharedFileSystem).not.toBe(SharedFileSystem);
});

test('isXxx accepts constructs made by the other copy, where instanceof does not', () => {
  const stack = new Stack(new App(), 'Test');
  const files = new other.SharedFileSystem(stack, 'Files', { vpc: new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 }) });
  const web = files.addAccessPoint('Web', other.AccessPointPreset.applicationUser('/web'));
  const site = fs.mkdtempSync(path.join(scratch, 'site-'));
  const seed = files.addSeed('Content', { accessPoint: web, source: other.SeedSource.asset(site) });
  const probe = files.addProbe('Probe');
  const monitoring = files.addMonitoring('Monitoring');

  expect(files instanceof SharedFileSystem).toBe(false);
  expect(SharedFileSystem.isSharedFileSystem(files)).toBe(true);
  expect(FileSystemSeed.isFileSystemSeed(seed)).toBe(true);
  expect(BenchmarkProbe.isBenchmarkProbe(probe)).toBe(true);
  expect(FileSystemMonitoring.isFileSystemMonitoring(monitoring)).toBe(true);
});

test('a construct of one copy takes a SharedFileSystem made by the other for what it is', () => {
  const stack = new Stack(new App(), 'Test');
  const files = new other.SharedFileSystem(stack, 'Files', { vpc: new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 }) });
  // Without the check, this copy would take it for some efs.IFileSystem and ask for a vpc.
  const probe = new BenchmarkProbe(stack, 'Probe', { fileSystem: files });
  expect(probe.function.isBoundToVpc).toBe(true);
});

test('isXxx refuses everything else', () => {
  const stack = new Stack(new App(), 'Test');
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
  const plain = new efs.FileSystem(stack, 'Plain', { vpc });
  const files = new SharedFileSystem(stack, 'Files', { vpc });
  const seed = files.addSeed('Content', {
    accessPoint: files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web')),
    source: SeedSource.s3(new s3.Bucket(stack, 'Bucket'), 'www/'),
  });
  for (const x of [plain, seed, stack, undefined, null, 'SharedFileSystem', {}]) expect(SharedFileSystem.isSharedFileSystem(x)).toBe(false);
  expect(FileSystemSeed.isFileSystemSeed(files)).toBe(false);
  expect(BenchmarkProbe.isBenchmarkProbe(seed)).toBe(false);
  expect(FileSystemMonitoring.isFileSystemMonitoring(files)).toBe(false);
});
