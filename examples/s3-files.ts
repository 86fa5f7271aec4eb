/**
 * S3 Files: a versioned bucket served as a file system, shared through one access point by a Lambda
 * function (reading the bucket directly for large files) and a Fargate service. Files written on
 * the mount appear in the bucket about a minute later; objects put in the bucket appear on the mount.
 * A seed writes examples/site into the bucket at deploy time, and the function starts once it shows
 * on the mount. S3FilesMonitoring watches the sync, the traffic, the lost+found files and the seed.
 *
 *   npx cdk synth --strict --app 'npx tsx examples/s3-files.ts'
 *   npx cdk deploy         --app 'npx tsx examples/s3-files.ts'
 *   npx cdk destroy        --app 'npx tsx examples/s3-files.ts'
 *
 * `cdk destroy` leaves the bucket (RETAIN): S3 refuses to delete a bucket for about 5-10 minutes
 * after its file system is gone (BucketHasS3FileSystemAttached). Empty and delete it afterwards:
 *   aws s3 rb s3://<bucket> --force   # once versions are deleted too, e.g. with a lifecycle rule or the console
 */
import * as path from 'path';
import { App, Duration, RemovalPolicy, Stack, StackProps, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { AccessPointPreset, DirectS3Read, S3FilesFileSystem, S3FilesMonitoring, SeedSource } from '../lib';

export class S3FilesStack extends Stack {
  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, props);
    const vpc = new ec2.Vpc(this, 'Vpc', { maxAzs: 2, natGateways: 1 });
    vpc.addFlowLog('FlowLog');

    // S3 Files requires versioning; every write makes a version, so expire the old ones.
    const logsBucket = new s3.Bucket(this, 'AccessLogs', {
      enforceSSL: true, blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL, removalPolicy: RemovalPolicy.RETAIN,
    });
    const bucket = new s3.Bucket(this, 'Data', {
      versioned: true,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      serverAccessLogsBucket: logsBucket,
      lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(30) }],
      removalPolicy: RemovalPolicy.RETAIN, // see the note above: deleting it with the stack would fail
    });

    const files = new S3FilesFileSystem(this, 'Files', { vpc, bucket, prefix: 'shared/' });
    const shared = files.addAccessPoint('Shared', AccessPointPreset.applicationUser('/shared'));
    // Written to the bucket (objects shared/shared/site/...), seen through the access point at /site.
    const site = files.addSeed('Site', { source: SeedSource.asset(path.join(__dirname, 'site')), targetPath: '/shared/site', prune: true });

    const fn = new lambda.Function(this, 'Reader', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline("exports.handler = async () => require('fs').readdirSync('/mnt/shared/site');"),
      memorySize: 1024, // direct S3 reads under DirectS3Read.AUTO need 512 MB or more
      vpc,
    });
    files.mountOnLambda(fn, shared, { mountPath: '/mnt/shared', directS3Read: DirectS3Read.AUTO });

    const cluster = new ecs.Cluster(this, 'Cluster', { vpc, containerInsightsV2: ecs.ContainerInsights.ENABLED });
    const task = new ecs.FargateTaskDefinition(this, 'WriterTask');
    task.addContainer('writer', {
      image: ecs.ContainerImage.fromRegistry('public.ecr.aws/docker/library/busybox:stable'),
      command: ['sh', '-c', 'while true; do date >> /data/heartbeat.log; sleep 60; done'],
      logging: ecs.LogDrivers.awsLogs({ streamPrefix: 'writer', logRetention: logs.RetentionDays.ONE_WEEK }),
    });
    const service = new ecs.FargateService(this, 'Writer', {
      cluster, taskDefinition: task, minHealthyPercent: 100, circuitBreaker: { rollback: true },
    });
    files.mountOnEcsService(service, shared, { containerPath: '/data' });

    // A dashboard of the sync with the bucket, traffic, lost+found files and clients, with an alarm on each failure mode.
    new S3FilesMonitoring(this, 'Monitoring', { fileSystem: files, seeds: [site] });

    acknowledgeExampleFindings(this, fn, task);
  }
}

/** What cdk-nag AwsSolutions reports on the example's own choices, each with its reason. */
function acknowledgeExampleFindings(stack: Stack, fn: lambda.Function, task: ecs.FargateTaskDefinition): void {
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    reason: 'The AWS managed policy for CloudWatch Logs is the documented minimum for a Lambda function.',
  });
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
    reason: 'The AWS managed policy for VPC network interfaces is required for a function in a VPC (S3 Files needs one).',
  });
  Validations.of(stack).acknowledge({ id: 'AwsSolutions-L1', reason: 'nodejs22.x is the runtime cdk-efs-kit pins and tests its handlers on.' });
  Validations.of(task).acknowledge({ id: 'AwsSolutions-ECS2', reason: 'The example container has no secrets; its only environment is what ECS sets.' });
}

/** Builds this example's stacks into `app` (the tests synthesize every example this way). */
export function createApp(app = new App()): App {
  new S3FilesStack(app, 'EfsKitS3Files');
  return app;
}

if (require.main === module) createApp().synth();
