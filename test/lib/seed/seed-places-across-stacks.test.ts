import { App, Fn, Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AccessPointPreset, FileSystemSeed, SeedSource, SharedFileSystem } from '../../../lib';

// Seeds on one place delete each other's files, whichever stack of the app they are in: two stacks
// importing one file system by its id (blue/green) share its places.
const FS_ID = 'fs-0123456789abcdef0';
const ACCESS_POINT_ID = 'fsap-0123456789abcdef0';

let app: App;
beforeEach(() => { app = new App(); });

/** A stack that imports the file system and one access point by id, as blue/green stacks do. */
function importingStack(name: string, fileSystemId = FS_ID) {
  const stack = new Stack(app, name);
  const vpc = ec2.Vpc.fromVpcAttributes(stack, 'Vpc', {
    vpcId: 'vpc-0123456789abcdef0', availabilityZones: ['us-east-1a'], privateSubnetIds: ['subnet-0123456789abcdef0'], privateSubnetRouteTableIds: ['rtb-0123456789abcdef0'],
  });
  const files = SharedFileSystem.fromFileSystemAttributes(stack, 'Files', {
    fileSystemId, vpc, securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'Sg', 'sg-0123456789abcdef0'),
  });
  const accessPoint = efs.AccessPoint.fromAccessPointAttributes(stack, 'Web', { accessPointId: ACCESS_POINT_ID, fileSystem: files });
  const bucket = s3.Bucket.fromBucketName(stack, 'Site', 'site-bucket');
  return { stack, files, accessPoint, source: SeedSource.s3(bucket, `${name}/`) };
}

test('fails when two stacks importing one file system seed the same place through one access point, naming both', () => {
  const blue = importingStack('Blue');
  blue.files.addSeed('Content', { accessPoint: blue.accessPoint, source: blue.source, targetPath: '/www' });
  const green = importingStack('Green');
  expect(() => green.files.addSeed('Content', { accessPoint: green.accessPoint, source: green.source, targetPath: '/www/assets' })).toThrow(
    'FileSystemSeed(Green/Files/Content) and FileSystemSeed(Blue/Files/Content) both write to targetPath /www/assets of Green/Web on the same file system, one place inside the other');
});

test('two stacks importing one file system may seed places side by side', () => {
  const blue = importingStack('Blue');
  blue.files.addSeed('Content', { accessPoint: blue.accessPoint, source: blue.source, targetPath: '/blue' });
  const green = importingStack('Green');
  expect(() => green.files.addSeed('Content', { accessPoint: green.accessPoint, source: green.source, targetPath: '/green' })).not.toThrow();
});

test('imports of two file systems never conflict', () => {
  const blue = importingStack('Blue');
  blue.files.addSeed('Content', { accessPoint: blue.accessPoint, source: blue.source, targetPath: '/www' });
  const other = importingStack('Other', 'fs-0fedcba9876543210');
  expect(() => other.files.addSeed('Content', { accessPoint: other.accessPoint, source: other.source, targetPath: '/www' })).not.toThrow();
});

test('fails when a seed in a second stack uses the first stack\'s file system on the same place', () => {
  const first = new Stack(app, 'Storage');
  const files = new SharedFileSystem(first, 'Files', { vpc: new ec2.Vpc(first, 'Vpc', { maxAzs: 2, natGateways: 1 }) });
  const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
  const bucket = new s3.Bucket(first, 'Site');
  files.addSeed('Content', { accessPoint: web, source: SeedSource.s3(bucket, 'a/') });
  const second = new Stack(app, 'App');
  expect(() => new FileSystemSeed(second, 'More', { fileSystem: files, accessPoint: web, source: SeedSource.s3(bucket, 'b/'), targetPath: '/extra' }))
    .toThrow('FileSystemSeed(App/More) and FileSystemSeed(Storage/Files/Content) both write to /web/extra on the same file system, one place inside the other');
});

test('says, without failing --strict, that a seed on an import by a token cannot be compared with other stacks\' seeds', () => {
  const imported = importingStack('Imported', Fn.importValue('SharedFileSystemId'));
  imported.files.addSeed('Content', { accessPoint: imported.accessPoint, source: imported.source });
  const annotations = Annotations.fromStack(imported.stack);
  annotations.hasInfo('/Imported/Files/Content', Match.stringLikeRegexp('whose id is not known at synth, so its place is compared only with the other seeds on that import'));
  annotations.hasNoWarning('/Imported/Files/Content', Match.anyValue());
});
