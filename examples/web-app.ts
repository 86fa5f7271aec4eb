/**
 * Web app (the ownCloud setup of "The Challenges of EFS"): three Fargate tasks behind a load
 * balancer share one SharedFileSystem. Their web content is seeded onto it at deploy time, in
 * parallel and atomically, and the service starts only once the content is there: no first-boot
 * untar racing the health check.
 *
 *   npx cdk synth  --app 'npx tsx examples/web-app.ts'
 *   npx cdk deploy --app 'npx tsx examples/web-app.ts'
 *   # seed a release archive from your bucket instead of the sample content:
 *   npx cdk deploy --app 'npx tsx examples/web-app.ts' -c siteBucket=my-releases -c siteKey=site-1.4.tar.gz
 */
import * as path from 'path';
import { App, Duration, Stack, StackProps, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as ecsPatterns from 'aws-cdk-lib/aws-ecs-patterns';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { AccessPointPreset, AlarmThreshold, SeedSource, SharedFileSystem } from '../lib';

export interface WebAppStackProps extends StackProps {
  /** A release archive in S3 to serve; the sample content in examples/site otherwise. */
  readonly siteArchive?: { bucketName: string; key: string };
}

export class WebAppStack extends Stack {
  constructor(scope: Construct, id: string, props: WebAppStackProps = {}) {
    super(scope, id, props);
    const vpc = new ec2.Vpc(this, 'Vpc', { maxAzs: 2, natGateways: 1 });
    vpc.addFlowLog('FlowLog');

    const files = new SharedFileSystem(this, 'Files', { vpc });
    const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web', { uid: 101, gid: 101, permissions: '755' }));
    const source = props.siteArchive
      ? SeedSource.archive(s3.Bucket.fromBucketName(this, 'Releases', props.siteArchive.bucketName), props.siteArchive.key, { version: props.siteArchive.key })
      : SeedSource.asset(path.join(__dirname, 'site'));
    files.addSeed('Content', { accessPoint: web, source, targetPath: '/html', concurrency: 128 });

    const cluster = new ecs.Cluster(this, 'Cluster', { vpc, containerInsightsV2: ecs.ContainerInsights.ENABLED });
    const logBucket = new s3.Bucket(this, 'AccessLogs', {
      encryption: s3.BucketEncryption.S3_MANAGED, enforceSSL: true, blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      lifecycleRules: [{ expiration: Duration.days(90) }],
    });
    const site = new ecsPatterns.ApplicationLoadBalancedFargateService(this, 'Site', {
      cluster,
      desiredCount: 3,
      minHealthyPercent: 100,
      circuitBreaker: { rollback: true },
      taskImageOptions: {
        image: ecs.ContainerImage.fromRegistry('public.ecr.aws/nginx/nginx:stable'),
        logDriver: ecs.LogDrivers.awsLogs({ streamPrefix: 'site', logRetention: logs.RetentionDays.ONE_MONTH }),
      },
    });
    site.loadBalancer.logAccessLogs(logBucket, 'alb');
    files.mountOnEcsService(site.service, web, { containerPath: '/usr/share/nginx/html', readOnly: true, volumeName: 'web' });
    // The tasks start only once the content is on the file system (the helper waits for the seed).

    // The dashboard shows the seed's progress next to the file system; the alarms tell when the three
    // tasks lose their mounts or small-file latency (a canary every 5 minutes) climbs.
    files.addProbe('Probe', { canary: { interval: Duration.minutes(5) } });
    files.addMonitoring('Monitoring', { alarms: { minimumClientConnections: AlarmThreshold.count(3) } });

    acknowledge(this, site, logBucket);
  }
}

/** cdk-nag findings this example accepts, each with its reason. */
function acknowledge(stack: Stack, site: ecsPatterns.ApplicationLoadBalancedFargateService, logBucket: s3.Bucket): void {
  Validations.of(site.loadBalancer).acknowledge({ id: 'AwsSolutions-EC23', reason: 'A public web site: the load balancer accepts HTTP from anywhere; tasks only from the load balancer.' });
  Validations.of(logBucket).acknowledge({ id: 'AwsSolutions-S1', reason: 'This bucket receives the load balancer\'s access logs; logging it to itself would loop.' });
  Validations.of(site.taskDefinition).acknowledge({ id: 'AwsSolutions-ECS2', reason: 'The environment holds no secrets: aws-cdk sets only non-sensitive variables.' });
  Validations.of(stack).acknowledge({ id: 'AwsSolutions-L1', reason: 'nodejs22.x is the runtime cdk-efs-kit pins and tests its handlers on.' });
}

/** Builds this example's stacks into `app` (the tests synthesize every example this way). */
export function createApp(app = new App()): App {
  const bucketName = app.node.tryGetContext('siteBucket');
  const key = app.node.tryGetContext('siteKey');
  new WebAppStack(app, 'EfsKitWebApp', {
    // Load balancer access logs need the region at synth time; the account can stay open.
    env: { region: process.env.CDK_DEFAULT_REGION ?? 'us-east-1' },
    siteArchive: bucketName && key ? { bucketName, key } : undefined,
  });
  return app;
}

if (require.main === module) createApp().synth();
