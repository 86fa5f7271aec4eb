/**
 * Every engine and construct of cdk-efs-kit on every kind of file system, for the strict-synth
 * checks: test/lib/every-construct.test.ts synthesizes it here and checks its annotations,
 * test/package/peer-range.test.ts runs `cdk synth --strict` on it with JSII_DEPRECATED=fail on the lowest and
 * the newest aws-cdk-lib. A SharedFileSystem gets every mount helper, a seed per engine and source
 * kind, a probe and monitoring; a plain efs.FileSystem and an imported one get what takes any
 * efs.IFileSystem (BenchmarkProbe, FileSystemMonitoring); an existing file system imported with
 * SharedFileSystem.fromFileSystemAttributes gets seeds, every mount helper, a probe and monitoring.
 * The SharedFileSystem replicates to a new Regional file system, the plain one into the imported one.
 * An S3FilesFileSystem gets a seed each way (through the bucket, through the mount, by DataSync), a
 * probe and its monitoring.
 *
 *   npx cdk synth --strict --app 'npx tsx test/apps/every-construct.ts'
 */
import * as path from 'path';
import { App, Duration, Stack, StackProps, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import {
  AccessPointPreset, BenchmarkProbe, FileSystemMonitoring, FileSystemSeed, S3FilesFileSystem, S3FilesMonitoring, SeedEngine, SeedSource, SeedThrough, SharedFileSystem,
} from '../../lib';

export class EveryConstructStack extends Stack {
  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    const vpc = new ec2.Vpc(this, 'Vpc', { maxAzs: 2, natGateways: 1 });
    vpc.addFlowLog('FlowLog');
    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    const bucket = new s3.Bucket(this, 'Sources', {
      encryption: s3.BucketEncryption.S3_MANAGED, blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL, enforceSSL: true,
    });
    Validations.of(bucket).acknowledge({ id: 'AwsSolutions-S1', reason: 'A source bucket of this test app; nothing is deployed.' });

    this.sharedFileSystem(vpc, bucket, dashboard);
    const imported = efs.FileSystem.fromFileSystemAttributes(this, 'Imported', {
      fileSystemId: 'fs-0123456789abcdef0',
      securityGroup: ec2.SecurityGroup.fromSecurityGroupId(this, 'ImportedMountTargets', 'sg-0123456789abcdef0'),
    });
    // Replicates into the imported one, so its monitoring alarms on TimeSinceLastSync with both dimensions.
    const plain = new efs.FileSystem(this, 'Plain', {
      vpc, encrypted: true, replicationConfiguration: efs.ReplicationConfiguration.existingFileSystem(imported),
    });
    this.probeAndMonitoring('Plain', plain, vpc, dashboard);
    this.probeAndMonitoring('Imported', imported, vpc, dashboard, efs.ThroughputMode.ELASTIC);
    this.existingFileSystem(vpc, bucket, dashboard);
    this.s3FilesFileSystem(vpc, bucket, dashboard);
    Validations.of(this).acknowledge({ id: 'AwsSolutions-L1', reason: 'nodejs22.x is the runtime cdk-efs-kit pins and tests its handlers on.' });
  }

  /** A SharedFileSystem with every mount helper, a seed of each engine and source kind, a probe and monitoring. */
  private sharedFileSystem(vpc: ec2.IVpc, bucket: s3.IBucket, dashboard: cloudwatch.Dashboard): void {
    // Replicates to a new Regional file system: its monitoring matches the replica by a Metrics Insights query.
    const files = new SharedFileSystem(this, 'Shared', { vpc, replicationConfiguration: efs.ReplicationConfiguration.regionalFileSystem() });
    const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
    const jobs = files.addAccessPoint('Jobs', AccessPointPreset.applicationUser('/jobs'));

    const fn = new lambda.Function(this, 'Lister', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline("exports.handler = async () => require('fs').readdirSync('/mnt/jobs');"),
      vpc,
    });
    files.mountOnLambda(fn, jobs, { mountPath: '/mnt/jobs' });
    Validations.of(fn).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: 'The AWS managed policy for CloudWatch Logs is the documented minimum for a Lambda function.',
    });
    Validations.of(fn).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
      reason: 'The AWS managed policy for VPC network interfaces is required for a function in a VPC.',
    });

    const cluster = new ecs.Cluster(this, 'Cluster', { vpc, containerInsightsV2: ecs.ContainerInsights.ENABLED });
    const task = this.nginxTask('WebTask', 'web', 'web');
    const service = new ecs.FargateService(this, 'WebService', { cluster, taskDefinition: task, minHealthyPercent: 100, circuitBreaker: { rollback: true } });
    files.mountOnEcsService(service, web, { containerPath: '/usr/share/nginx/html', readOnly: true });

    files.mountOnEc2(this.host('Host', vpc), { accessPoint: jobs, mountPoint: '/mnt/jobs' });

    // A seed per engine and per kind of source; each owns its own place under its access point.
    files.addSeed('Asset', { accessPoint: web, source: SeedSource.asset(path.join(__dirname, 'every-construct-site')), targetPath: '/asset' });
    files.addSeed('Archive', { accessPoint: web, source: SeedSource.archive(bucket, 'releases/site.tar.gz'), targetPath: '/archive' });
    files.addSeed('Objects', { accessPoint: jobs, source: SeedSource.s3(bucket, 'objects/'), targetPath: '/objects' });
    files.addSeed('DataSync', { accessPoint: jobs, source: SeedSource.s3(bucket, 'datasync/'), targetPath: '/datasync', engine: SeedEngine.dataSync() });
    files.addSeed('DistributedMap', {
      accessPoint: jobs, source: SeedSource.s3(bucket, 'map/'), targetPath: '/map', engine: SeedEngine.distributedMap(),
    });
    new FileSystemSeed(this, 'UnwaitedMap', {
      fileSystem: files, accessPoint: jobs, source: SeedSource.s3(bucket, 'unwaited/'), targetPath: '/unwaited',
      engine: SeedEngine.distributedMap({ inventory: { bucket, manifestKey: 'inventory/manifest.json' } }), waitForCompletion: false,
    });

    files.addProbe('Probe', { canary: { interval: Duration.minutes(15) } });
    files.addMonitoring('Monitoring', { dashboard, title: 'SharedFileSystem' });
  }

  /** An existing file system imported by id: seeds, every mount helper, a probe and monitoring, as a created one. */
  private existingFileSystem(vpc: ec2.IVpc, bucket: s3.IBucket, dashboard: cloudwatch.Dashboard): void {
    const files = SharedFileSystem.fromFileSystemAttributes(this, 'Existing', {
      fileSystemId: 'fs-0fedcba9876543210',
      vpc,
      securityGroup: ec2.SecurityGroup.fromSecurityGroupId(this, 'ExistingMountTargets', 'sg-0fedcba9876543210'),
      throughputMode: efs.ThroughputMode.BURSTING,
      oneZone: false,
    });
    const site = files.addAccessPoint('Site', AccessPointPreset.applicationUser('/site'));
    files.addSeed('Asset', { accessPoint: site, source: SeedSource.asset(path.join(__dirname, 'every-construct-site')), targetPath: '/asset' });
    files.addSeed('Objects', { accessPoint: site, source: SeedSource.s3(bucket, 'existing/'), targetPath: '/objects', engine: SeedEngine.distributedMap() });

    const fn = new lambda.Function(this, 'ExistingReader', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline("exports.handler = async () => require('fs').readdirSync('/mnt/site');"),
      vpc,
    });
    files.mountOnLambda(fn, site, { mountPath: '/mnt/site', readOnly: true });
    Validations.of(fn).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: 'The AWS managed policy for CloudWatch Logs is the documented minimum for a Lambda function.',
    });
    Validations.of(fn).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
      reason: 'The AWS managed policy for VPC network interfaces is required for a function in a VPC.',
    });

    const task = this.nginxTask('ExistingTask', 'reader', 'existing');
    files.mountOnEcsTask(task, site, { containerPath: '/usr/share/nginx/html', readOnly: true });

    files.mountOnEc2(this.host('ExistingHost', vpc), { accessPoint: site, mountPoint: '/mnt/site' });

    files.addProbe('Probe', { canary: { interval: Duration.minutes(30) } });
    files.addMonitoring('Monitoring', { dashboard, title: 'Existing' });
  }

  /** An S3 Files file system over a bucket of its own: a seed each way (the bucket, the mount, DataSync), a probe and monitoring. */
  private s3FilesFileSystem(vpc: ec2.IVpc, bucket: s3.IBucket, dashboard: cloudwatch.Dashboard): void {
    const files = new S3FilesFileSystem(this, 'S3Files', { vpc });
    const app = files.addAccessPoint('App', AccessPointPreset.applicationUser('/app'));
    const seeds = [
      files.addSeed('Site', { source: SeedSource.asset(path.join(__dirname, 'every-construct-site')), targetPath: '/site', prune: true, removeOnDelete: true }),
      files.addSeed('Release', { source: SeedSource.archive(bucket, 'releases/site.tar.gz'), through: SeedThrough.MOUNT, accessPoint: app, targetPath: '/release' }),
      files.addSeed('Datasets', { source: SeedSource.s3(bucket, 'datasets/'), targetPath: '/datasets', engine: SeedEngine.dataSync() }),
    ];
    const probe = files.addProbe('Probe', { canary: { interval: Duration.minutes(30) } });
    new S3FilesMonitoring(this, 'S3FilesMonitoring', { fileSystem: files, dashboard, title: 'S3 Files', seeds, probes: [probe] });
  }

  /** A Fargate task definition with one nginx container, its logs kept a month. */
  private nginxTask(id: string, containerName: string, streamPrefix: string): ecs.FargateTaskDefinition {
    const task = new ecs.FargateTaskDefinition(this, id, { cpu: 256, memoryLimitMiB: 512 });
    task.addContainer(containerName, {
      image: ecs.ContainerImage.fromRegistry('public.ecr.aws/nginx/nginx:stable'),
      logging: ecs.LogDrivers.awsLogs({ streamPrefix, logRetention: logs.RetentionDays.ONE_MONTH }),
    });
    return task;
  }

  /** A small Amazon Linux instance reached through Session Manager, its cdk-nag findings acknowledged. */
  private host(id: string, vpc: ec2.IVpc): ec2.Instance {
    const host = new ec2.Instance(this, id, {
      vpc,
      instanceType: new ec2.InstanceType('t3.micro'),
      machineImage: ec2.MachineImage.latestAmazonLinux2023(),
      ssmSessionPermissions: true,
      detailedMonitoring: true,
      blockDevices: [{ deviceName: '/dev/xvda', volume: ec2.BlockDeviceVolume.ebs(8, { encrypted: true }) }],
    });
    Validations.of(host).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AmazonSSMManagedInstanceCore]',
      reason: 'Session Manager access instead of SSH keys; the policy AWS documents for it.',
    });
    Validations.of(host).acknowledge({ id: 'AwsSolutions-EC29', reason: 'A test instance: termination protection would stop `cdk destroy`.' });
    return host;
  }

  /** What takes any efs.IFileSystem: a probe with a canary (through SharedFileSystem.fromFileSystem), and monitoring that watches it. */
  private probeAndMonitoring(name: string, fileSystem: efs.IFileSystem, vpc: ec2.IVpc, dashboard: cloudwatch.Dashboard, throughputMode?: efs.ThroughputMode): void {
    const helpers = SharedFileSystem.fromFileSystem(this, `${name}Helpers`, fileSystem, { vpc });
    const probe = new BenchmarkProbe(this, `${name}Probe`, { fileSystem: helpers, canary: { interval: Duration.minutes(30) } });
    new FileSystemMonitoring(this, `${name}Monitoring`, { fileSystem, throughputMode, dashboard, title: name, probes: [probe] });
  }
}

/** Builds this app's stack into `app` (test/lib/every-construct.test.ts and test/package/peer-range.test.ts synthesize it). */
export function createApp(app = new App()): App {
  new EveryConstructStack(app, 'EfsKitEveryConstruct');
  return app;
}

if (require.main === module) createApp().synth();
