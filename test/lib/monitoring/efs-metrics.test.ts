import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { IoKind, SharedFileSystem, StorageClass } from '../../../lib';

// The documented AWS/EFS metrics (shared/EFS-FACTS.md): name -> [unit, statistic].
const DOCUMENTED: Record<string, [string, string]> = {
  PercentIOLimit: ['Percent', 'Average'],
  BurstCreditBalance: ['Bytes', 'Average'],
  PermittedThroughput: ['Bytes/Second', 'Average'],
  MeteredIOBytes: ['Bytes', 'Sum'],
  TotalIOBytes: ['Bytes', 'Sum'],
  DataReadIOBytes: ['Bytes', 'Sum'],
  DataWriteIOBytes: ['Bytes', 'Sum'],
  MetadataIOBytes: ['Bytes', 'Sum'],
  MetadataReadIOBytes: ['Bytes', 'Sum'],
  MetadataWriteIOBytes: ['Bytes', 'Sum'],
  ClientConnections: ['Count', 'Sum'],
  StorageBytes: ['Bytes', 'Average'],
  TimeSinceLastSync: ['Seconds', 'Maximum'],
};

let stack: Stack;
let files: SharedFileSystem;
beforeEach(() => {
  stack = new Stack(new App(), 'Test');
  files = new SharedFileSystem(stack, 'Files', { vpc: new ec2.Vpc(stack, 'Vpc', { maxAzs: 2 }) });
});

const single = (): Array<[string, cloudwatch.Metric]> => [
  ['PercentIOLimit', files.metricPercentIOLimit()],
  ['BurstCreditBalance', files.metricBurstCreditBalance()],
  ['PermittedThroughput', files.metricPermittedThroughput()],
  ['MeteredIOBytes', files.metricMeteredIOBytes()],
  ['TotalIOBytes', files.metricTotalIOBytes()],
  ['DataReadIOBytes', files.metricDataReadIOBytes()],
  ['DataWriteIOBytes', files.metricDataWriteIOBytes()],
  ['MetadataIOBytes', files.metricMetadataIOBytes()],
  ['MetadataReadIOBytes', files.metricMetadataReadIOBytes()],
  ['MetadataWriteIOBytes', files.metricMetadataWriteIOBytes()],
  ['ClientConnections', files.metricClientConnections()],
  ['StorageBytes', files.metricStorageBytes(StorageClass.INFREQUENT_ACCESS)],
  ['TimeSinceLastSync', files.metricTimeSinceLastSync('fs-0123')],
];

test.each(Object.keys(DOCUMENTED))('metric%s has the documented name, unit, statistic and dimension', (name) => {
  const metric = single().find(([n]) => n === name)![1];
  const [unit, statistic] = DOCUMENTED[name];
  expect(metric.namespace).toBe('AWS/EFS');
  expect(metric.metricName).toBe(name);
  expect(metric.unit).toBe(unit);
  expect(metric.statistic).toBe(statistic);
  expect(stack.resolve(metric.dimensions)).toMatchObject({ FileSystemId: stack.resolve(files.fileSystemId) });
});

test('StorageBytes and TimeSinceLastSync carry their extra dimension', () => {
  expect(files.metricStorageBytes(StorageClass.ARCHIVE).dimensions).toMatchObject({ StorageClass: 'Archive' });
  expect(files.metricTimeSinceLastSync('fs-0123').dimensions).toMatchObject({ DestinationFileSystemId: 'fs-0123' });
});

test('metadata metrics are spelled Metadata, not MetaData', () => {
  expect(files.metricMetadataIOBytes().metricName).toBe('MetadataIOBytes');
});

describe('metric math', () => {
  const ids = (e: cloudwatch.MathExpression) => [...e.expression.matchAll(/\b[a-z][a-z0-9_]*\b/g)].map((m) => m[0]).filter((id) => id !== 'PERIOD');

  test.each([
    ['throughput MiB/s', () => files.metricThroughputMiBps(IoKind.DATA_WRITE), '(datawrite_bytes/1048576)/PERIOD(datawrite_bytes)', { datawrite_bytes: ['DataWriteIOBytes', 'Sum'] }],
    ['IOPS', () => files.metricIops(IoKind.METADATA), 'metadata_ops/PERIOD(metadata_ops)', { metadata_ops: ['MetadataIOBytes', 'SampleCount'] }],
    ['average I/O size KiB', () => files.metricAverageIoSizeKiB(IoKind.DATA_READ), '(dataread_bytes/1024)/dataread_ops', { dataread_bytes: ['DataReadIOBytes', 'Sum'], dataread_ops: ['DataReadIOBytes', 'SampleCount'] }],
    ['permitted throughput used', () => files.metricPermittedThroughputUtilization(), '((metered_bytes/1048576)/PERIOD(metered_bytes))*100/(permitted_bps/1048576)', { metered_bytes: ['MeteredIOBytes', 'Sum'], permitted_bps: ['PermittedThroughput', 'Average'] }],
  ] as const)('%s: the expression AWS publishes, over ids that exist, on the right statistics', (_, make, expression, inputs) => {
    const math = make();
    expect(math.expression).toBe(expression);
    expect(new Set(ids(math))).toEqual(new Set(Object.keys(math.usingMetrics)));
    for (const [id, [name, statistic]] of Object.entries(inputs)) {
      const metric = math.usingMetrics[id] as cloudwatch.Metric;
      expect([metric.metricName, metric.statistic]).toEqual([name, statistic]);
      expect(Object.keys(DOCUMENTED)).toContain(metric.metricName);
    }
  });

  test('renders in a dashboard and an alarm', () => {
    new cloudwatch.Dashboard(stack, 'Board', { widgets: [[new cloudwatch.GraphWidget({
      left: [files.metricThroughputMiBps(IoKind.DATA_READ), files.metricThroughputMiBps(IoKind.DATA_WRITE), files.metricIops(), files.metricAverageIoSizeKiB()],
    })]] });
    files.metricPermittedThroughputUtilization().createAlarm(stack, 'Busy', { threshold: 80, evaluationPeriods: 15 });
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    const alarm = Object.values<any>(template.findResources('AWS::CloudWatch::Alarm'))[0].Properties;
    expect(alarm.Threshold).toBe(80);
    expect(alarm.Metrics.map((m: any) => [m.Id, m.Expression ?? `${m.MetricStat.Metric.MetricName} ${m.MetricStat.Stat} ${m.MetricStat.Period}`])).toEqual([
      ['expr_1', '((metered_bytes/1048576)/PERIOD(metered_bytes))*100/(permitted_bps/1048576)'],
      ['metered_bytes', 'MeteredIOBytes Sum 60'],
      ['permitted_bps', 'PermittedThroughput Average 60'],
    ]);
  });
});
