/**
 * Throughput comparison ("AWS EFS Elastic vs Burstable throughput (benchmark)", Dzhuneyt): two
 * file systems side by side, Elastic and Bursting, each with a benchmark probe (the same Lambda
 * code), both on one dashboard, where each one's spend row shows price next to speed: Elastic's data
 * access per hour and per day, Bursting's storage only, against a daily budget of $10 each. Invoke
 * both probes with the same request and compare the results, as that benchmark did by hand:
 *
 *   npx cdk deploy --app 'npx tsx examples/throughput-comparison.ts' --outputs-file out.json
 *   for mode in Elastic Bursting; do
 *     npx cdk-efs-kit probe --function "$(jq -r ".EfsKitThroughputComparison.${mode}ProbeName" out.json)" \
 *       --scenarios write-sizes --rounds 5 --pause 10 --label "$mode" --json > "$mode.json"
 *   done
 *   npx cdk-efs-kit compare Elastic.json Bursting.json --html comparison.html
 */
import { Annotations, App, CfnOutput, Duration, Stack, StackProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import { Construct } from 'constructs';
import { AlarmThreshold, EfsPricing, SharedFileSystem } from '../lib';

export class ThroughputComparisonStack extends Stack {
  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    const vpc = new ec2.Vpc(this, 'Vpc', { maxAzs: 2, natGateways: 1 });
    vpc.addFlowLog('FlowLog');
    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });

    for (const [name, throughputMode] of [['Elastic', efs.ThroughputMode.ELASTIC], ['Bursting', efs.ThroughputMode.BURSTING]] as const) {
      const files = new SharedFileSystem(this, name, { vpc, throughputMode });
      if (throughputMode === efs.ThroughputMode.BURSTING) {
        Annotations.of(files).acknowledgeWarning('cdk-efs-kit:burstingThroughput', 'This example compares Bursting with Elastic on purpose.');
      }
      // A canary every 15 minutes keeps both latency lines on the dashboard between manual runs.
      const probe = files.addProbe('Probe', { canary: { interval: Duration.minutes(15) } });
      files.addMonitoring('Monitoring', {
        dashboard, title: `${name} throughput`,
        // The spend row's prices, named outright; EfsPricing.custom({...}) for a Region without shipped prices.
        pricing: EfsPricing.US_EAST_1,
        alarms: { dailySpendLimit: AlarmThreshold.usd(10) },
      });
      new CfnOutput(this, `${name}ProbeName`, { value: probe.function.functionName });
    }
  }
}

/** Builds this example's stacks into `app` (the tests synthesize every example this way). */
export function createApp(app = new App()): App {
  new ThroughputComparisonStack(app, 'EfsKitThroughputComparison');
  return app;
}

if (require.main === module) createApp().synth();
