import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { AlarmThreshold, S3FilesFileSystem, S3FilesMonitoring, SharedFileSystem } from '../../lib';
import { MadeUpDay } from './day';
import { EFS_DAY } from './efs-traffic';
import { Widget } from './render';
import { S3_FILES_DAY } from './s3-files-traffic';

/** A dashboard the mock draws: the body a construct synthesizes, the day it is drawn over, and the caption under it. */
export interface MockDashboard {
  /** The body's widgets, with made-up values in place of its tokens. */
  widgets(): Widget[];
  readonly day: MadeUpDay;
  readonly caption: string;
}

const REGION = 'us-east-1';
const FILE_SYSTEM_ID = 'fs-0123456789abcdef0';
const BUCKET_NAME = 'my-app-files';

/** A stack in us-east-1, for the prices the spend rows show, with a VPC. */
function newStack(): { stack: Stack; vpc: ec2.Vpc } {
  const stack = new Stack(new App(), 'MyApp', { env: { account: '123456789012', region: REGION } });
  return { stack, vpc: new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 }) };
}

/**
 * The widgets of the stack's one dashboard, each token of its body replaced: the Region by
 * us-east-1, a reference to a resource by the value `values` gives its type (a file system's id, a
 * bucket's name). A token of another kind fails, rather than draw a body that was never synthesized.
 */
function synthesizedWidgets(stack: Stack, values: Record<string, string>): Widget[] {
  const template = Template.fromStack(stack);
  const resources: Record<string, { Type: string }> = template.toJSON().Resources;
  const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
  const body = dashboard.Properties.DashboardBody;
  const valueOf = (part: { Ref?: string; 'Fn::GetAtt'?: string[] }): string => {
    if (part.Ref === 'AWS::Region') return REGION;
    const type = resources[part.Ref ?? part['Fn::GetAtt']?.[0] ?? '']?.Type;
    if (!(type in values)) throw new Error(`no made-up value for ${JSON.stringify(part)} (${type}) in the dashboard body`);
    return values[type];
  };
  const text: string = typeof body === 'string' ? body : body['Fn::Join'][1].map((p: any) => (typeof p === 'string' ? p : valueOf(p))).join('');
  return JSON.parse(text).widgets;
}

/** FileSystemMonitoring of an Elastic SharedFileSystem with a $25 daily budget. */
export const EFS_DASHBOARD: MockDashboard = {
  widgets: () => {
    const { stack, vpc } = newStack();
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    files.addMonitoring('Monitoring', { title: 'Files', alarms: { dailySpendLimit: AlarmThreshold.usd(25) } });
    return synthesizedWidgets(stack, { 'AWS::EFS::FileSystem': FILE_SYSTEM_ID });
  },
  day: EFS_DAY,
  caption: 'A mock of the synthesized dashboard, drawn from its body JSON with each expression evaluated over a made-up day '
    + '(a web application, and a runaway job re-reading files from 19:00 to 23:00); the anomaly band is a stand-in for the one '
    + 'CloudWatch learns from two weeks of history. Prices: us-east-1.',
};

/** S3FilesMonitoring of an S3FilesFileSystem (its own new bucket) with a $25 daily budget. */
export const S3_FILES_DASHBOARD: MockDashboard = {
  widgets: () => {
    const { stack, vpc } = newStack();
    const files = new S3FilesFileSystem(stack, 'Files', { vpc });
    new S3FilesMonitoring(stack, 'Monitoring', { fileSystem: files, title: 'Files', alarms: { dailySpendLimit: AlarmThreshold.usd(25) } });
    return synthesizedWidgets(stack, { 'AWS::S3Files::FileSystem': FILE_SYSTEM_ID, 'AWS::S3::Bucket': BUCKET_NAME });
  },
  day: S3_FILES_DAY,
  caption: 'A mock of the synthesized dashboard, drawn from its body JSON with each expression evaluated over a made-up day, not measurements '
    + '(a web application; at 14:37 a conflict the bucket wins; from 19:00 to 22:00 a job writing 200 files of 4 KiB a second, '
    + 'faster than they are exported). The efs-utils client lines are drawn at 1; BucketSizeBytes, published daily, is one datapoint '
    + 'drawn across the day. Prices: us-east-1.',
};
