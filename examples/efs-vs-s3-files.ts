/**
 * EFS against S3 Files, measured with your own workload: an EFS file system (Elastic throughput)
 * and an S3 Files file system over a versioned bucket, in one VPC, each with a benchmark probe (the
 * same Lambda code; on S3 Files it also times the import of a new prefix, reads on each side of the
 * direct-read threshold and the write-back to the bucket) and its monitoring, on one dashboard with
 * a spend row each. Invoke both probes with the same request and put them side by side, with what
 * each would cost a month at the measured rates:
 *
 *   npx cdk deploy --app 'npx tsx examples/efs-vs-s3-files.ts' --outputs-file out.json
 *   for kind in Efs S3Files; do
 *     npx cdk-efs-kit probe --function "$(jq -r ".EfsKitEfsVsS3Files.${kind}ProbeName" out.json)" \
 *       --scenarios write-sizes,metadata,small-file-tree --label "$kind" --json > "$kind.json"
 *   done
 *   npx cdk-efs-kit compare Efs.json S3Files.json --html efs-vs-s3-files.html
 *
 * `cdk destroy` leaves the bucket and the EFS file system (RETAIN), as examples/s3-files.ts says.
 */
import { App, CfnOutput, Duration, RemovalPolicy, Stack, StackProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { S3FilesFileSystem, S3FilesMonitoring, SharedFileSystem } from '../lib';

export class EfsVsS3FilesStack extends Stack {
  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, props);
    const vpc = new ec2.Vpc(this, 'Vpc', { maxAzs: 2, natGateways: 1 });
    vpc.addFlowLog('FlowLog');
    // The S3 Files probe calls S3 (its bucket scenarios): a gateway endpoint keeps that off the NAT.
    vpc.addGatewayEndpoint('S3', { service: ec2.GatewayVpcEndpointAwsService.S3 });
    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    // A canary every 15 minutes keeps both latency lines on the dashboard between manual runs.
    const canary = { interval: Duration.minutes(15) };

    const efsFiles = new SharedFileSystem(this, 'Efs', { vpc });
    const efsProbe = efsFiles.addProbe('Probe', { canary });
    efsFiles.addMonitoring('Monitoring', { dashboard, title: 'EFS' });

    const logsBucket = new s3.Bucket(this, 'AccessLogs', {
      enforceSSL: true, blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL, removalPolicy: RemovalPolicy.RETAIN,
    });
    const bucket = new s3.Bucket(this, 'Data', {
      versioned: true, // S3 Files requires it; every write makes a version, so the old ones expire
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      serverAccessLogsBucket: logsBucket,
      lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(7) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const s3Files = new S3FilesFileSystem(this, 'S3Files', { vpc, bucket });
    const s3FilesProbe = s3Files.addProbe('Probe', { canary });
    new S3FilesMonitoring(this, 'S3FilesMonitoring', { fileSystem: s3Files, probes: [s3FilesProbe], dashboard, title: 'S3 Files' });

    new CfnOutput(this, 'EfsProbeName', { value: efsProbe.function.functionName });
    new CfnOutput(this, 'S3FilesProbeName', { value: s3FilesProbe.function.functionName });
  }
}

/** Builds this example's stacks into `app` (the tests synthesize every example this way). */
export function createApp(app = new App()): App {
  new EfsVsS3FilesStack(app, 'EfsKitEfsVsS3Files');
  return app;
}

if (require.main === module) createApp().synth();
