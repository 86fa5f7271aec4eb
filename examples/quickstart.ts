/**
 * Quick start: a VPC, a SharedFileSystem, and a Lambda function and an ECS Fargate service that
 * both mount it through access points; the service's content seeded from a local directory before
 * it starts; a dashboard and alarms, a probe canary measuring the latency applications feel every
 * 15 minutes, and an alarm of your own on AWS's metric math. The README's quick starts are the same
 * app in TypeScript, Python and Go.
 *
 *   npx cdk synth                      # this is cdk.json's app: works offline, no credentials
 *   npx cdk deploy EfsKitQuickstart    # with AWS credentials
 */
import * as path from 'path';
import { App, Duration, Stack, StackProps, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { AccessPointPreset, AlarmThreshold, EfsMetrics, IoKind, SeedSource, SharedFileSystem } from '../lib';

export class QuickstartStack extends Stack {
  public readonly fileSystem: SharedFileSystem;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);

    const vpc = new ec2.Vpc(this, 'Vpc', { maxAzs: 2, natGateways: 1 });
    vpc.addFlowLog('FlowLog');

    this.fileSystem = new SharedFileSystem(this, 'Files', { vpc });
    const webContent = this.fileSystem.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
    const jobData = this.fileSystem.addAccessPoint('Jobs', AccessPointPreset.applicationUser('/jobs'));

    // A function that lists what it sees on the share.
    const fn = new lambda.Function(this, 'Lister', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline(
        "const fs = require('fs'); exports.handler = async () => ({ files: fs.readdirSync('/mnt/jobs') });"),
      vpc,
      timeout: Duration.seconds(30),
    });
    this.fileSystem.mountOnLambda(fn, jobData, { mountPath: '/mnt/jobs' });

    // A web service whose containers serve the shared content.
    const cluster = new ecs.Cluster(this, 'Cluster', { vpc, containerInsightsV2: ecs.ContainerInsights.ENABLED });
    const task = new ecs.FargateTaskDefinition(this, 'WebTask', { cpu: 256, memoryLimitMiB: 512 });
    task.addContainer('web', {
      image: ecs.ContainerImage.fromRegistry('public.ecr.aws/nginx/nginx:stable'),
      portMappings: [{ containerPort: 80 }],
      logging: ecs.LogDrivers.awsLogs({ streamPrefix: 'web', logRetention: logs.RetentionDays.ONE_MONTH }),
    });
    const service = new ecs.FargateService(this, 'WebService', {
      cluster, taskDefinition: task, desiredCount: 1, minHealthyPercent: 100, circuitBreaker: { rollback: true },
    });
    this.fileSystem.mountOnEcsService(service, webContent, { containerPath: '/usr/share/nginx/html', readOnly: true });

    // The site's files are on the file system before the service (which mounts webContent) starts.
    this.fileSystem.addSeed('Content', { accessPoint: webContent, source: SeedSource.asset(path.join(__dirname, 'site')) });

    // Watch it: a canary measuring small-file latency, a dashboard, and alarms (one connection per task
    // expected; throughput alarm at 90% instead of 80%; no PercentIOLimit alarm).
    this.fileSystem.addProbe('Probe', { canary: { interval: Duration.minutes(15) } });
    this.fileSystem.addMonitoring('Monitoring', {
      alarms: {
        minimumClientConnections: AlarmThreshold.count(1),
        throughputUtilization: AlarmThreshold.percent(90),
        percentIOLimit: AlarmThreshold.off(),
      },
    });
    // An alarm of your own on AWS's metric math: writes above 100 MiB/s for 15 minutes.
    EfsMetrics.throughputMiBps(this.fileSystem.fileSystemId, IoKind.DATA_WRITE).createAlarm(this, 'HeavyWrites', {
      threshold: 100, evaluationPeriods: 15,
    });

    acknowledgeQuickstartFindings(this, fn);
  }
}

/** cdk-nag findings this example accepts, each with its reason. */
function acknowledgeQuickstartFindings(stack: Stack, fn: lambda.Function): void {
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    reason: 'The AWS managed policy for CloudWatch Logs is the documented minimum for a Lambda function.',
  });
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
    reason: 'The AWS managed policy for VPC network interfaces is required for a function in a VPC (EFS needs one).',
  });
  Validations.of(stack).acknowledge({
    id: 'AwsSolutions-L1',
    reason: 'nodejs22.x is the runtime cdk-efs-kit pins and tests its handlers on.',
  });
}

/** Builds this example's stacks into `app` (the tests synthesize every example this way). */
export function createApp(app = new App()): App {
  new QuickstartStack(app, 'EfsKitQuickstart');
  return app;
}

if (require.main === module) createApp().synth();
