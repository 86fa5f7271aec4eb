/**
 * Migration (as in "Faster data transfer with AWS EFS" and the AWS EFS performance lab): copy an
 * existing S3 prefix onto a SharedFileSystem with AWS DataSync at deploy time, then mount it on an
 * EC2 instance with the mount helper. DataSync verifies every file it transfers, copies only what
 * changed on a re-run, and never deletes from EFS.
 *
 *   npx cdk synth  --app 'npx tsx examples/migration.ts' -c sourceBucket=my-bucket -c sourcePrefix=www/
 *   npx cdk deploy --app 'npx tsx examples/migration.ts' -c sourceBucket=my-bucket -c sourcePrefix=www/
 *
 * Bump `-c sourceVersion=...` to copy again after the bucket changed. A bucket encrypted with a
 * customer managed KMS key needs `-c sourceKeyArn=arn:aws:kms:...` too: the bucket is then imported
 * with its key, and DataSync's bucket-access role may decrypt with it (the key's policy must let
 * IAM policies of the account grant it, as the default key policy does).
 *
 * The deploy waits for the copy up to its time limit of 50 minutes; for a larger migration add
 * `waitForCompletion: false` to the seed, and the instance may boot before the data is all there.
 */
import { App, Stack, StackProps, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { AccessPointPreset, SeedEngine, SeedSource, SharedFileSystem } from '../lib';

export interface MigrationStackProps extends StackProps {
  readonly sourceBucketName: string;
  readonly sourcePrefix: string;
  readonly sourceVersion: string;
  /** The customer managed KMS key the source bucket is encrypted with, if any. */
  readonly sourceKeyArn?: string;
}

export class MigrationStack extends Stack {
  constructor(scope: Construct, id: string, props: MigrationStackProps) {
    super(scope, id, props);
    const vpc = new ec2.Vpc(this, 'Vpc', { maxAzs: 2, natGateways: 1 });
    vpc.addFlowLog('FlowLog');

    const files = new SharedFileSystem(this, 'Files', { vpc });
    // Every file DataSync writes through this access point is owned by uid/gid 1000. The DataSync
    // user guide: through an access point that enforces a user, copied ownership is replaced by the
    // access point's, "task verification fails because DataSync detects a mismatch" - so the seed's
    // task copies no ownership (Uid/Gid NONE) and verifies the rest (ONLY_FILES_TRANSFERRED)
    // (https://docs.aws.amazon.com/datasync/latest/userguide/create-efs-location.html).
    const data = files.addAccessPoint('Data', AccessPointPreset.applicationUser('/data'));
    const source = props.sourceKeyArn
      ? s3.Bucket.fromBucketAttributes(this, 'Source', { bucketName: props.sourceBucketName, encryptionKey: kms.Key.fromKeyArn(this, 'SourceKey', props.sourceKeyArn) })
      : s3.Bucket.fromBucketName(this, 'Source', props.sourceBucketName);
    files.addSeed('Migration', {
      accessPoint: data,
      source: SeedSource.s3(source, props.sourcePrefix, { version: props.sourceVersion }),
      engine: SeedEngine.dataSync({ scheduleExpression: 'rate(1 day)' }),
    });

    // An instance that uses the migrated data; it boots after the copy has finished.
    const host = new ec2.Instance(this, 'Host', {
      vpc,
      instanceType: new ec2.InstanceType('m5.large'),
      machineImage: ec2.MachineImage.latestAmazonLinux2023(),
      ssmSessionPermissions: true,
      detailedMonitoring: true,
      blockDevices: [{ deviceName: '/dev/xvda', volume: ec2.BlockDeviceVolume.ebs(20, { encrypted: true }) }],
    });
    // The mount helper makes the instance wait for the seed through the same access point.
    files.mountOnEc2(host, { accessPoint: data, mountPoint: '/mnt/data' });

    Validations.of(host).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AmazonSSMManagedInstanceCore]',
      reason: 'Session Manager access instead of SSH keys and open ports; this is the policy AWS documents for it.',
    });
    Validations.of(host).acknowledge({
      id: 'AwsSolutions-EC29',
      reason: 'An example instance: termination protection would make `cdk destroy` fail. The data lives on EFS (RETAIN, backups on).',
    });
  }
}

/** Builds this example's stacks into `app` (the tests synthesize every example this way). */
export function createApp(app = new App()): App {
  new MigrationStack(app, 'EfsKitMigration', {
    sourceBucketName: app.node.tryGetContext('sourceBucket') ?? 'my-migration-source',
    sourcePrefix: app.node.tryGetContext('sourcePrefix') ?? 'www/',
    sourceVersion: app.node.tryGetContext('sourceVersion') ?? '1',
    sourceKeyArn: app.node.tryGetContext('sourceKeyArn'),
  });
  return app;
}

if (require.main === module) createApp().synth();
