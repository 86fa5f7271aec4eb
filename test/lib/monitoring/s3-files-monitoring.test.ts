import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AlarmThreshold, S3FilesAlarmOptions, S3FilesFileSystem, S3FilesMonitoring, S3FilesPricing, SeedSource, SharedFileSystem } from '../../../lib';
import { cfnLintErrors, nagErrors } from '../../helpers/checks';
import { AlarmProperties, alarmFires, evaluate } from '../../helpers/metric-math';

// S3FilesMonitoring: every widget's and alarm's metrics as S3 Files publishes them (namespace
// AWS/S3/Files, dimension FileSystemId; efs-utils/S3Files for clients), the alarms' thresholds and
// their verdicts on series, and the metric math against hand-computed values.

let stack: Stack;
let vpc: ec2.Vpc;

beforeEach(() => {
  stack = new Stack(new App(), 'Test', { env: { account: '123456789012', region: 'us-east-1' } });
  vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
});

function monitored(alarms: S3FilesAlarmOptions = {}) {
  const files = new S3FilesFileSystem(stack, 'Files', { vpc });
  const monitoring = new S3FilesMonitoring(stack, 'Monitoring', { fileSystem: files, alarms, alarmTopic: new sns.Topic(stack, 'Topic') });
  return { files, monitoring, template: Template.fromStack(stack) };
}

/** The dashboard's widgets, with every token in its body as `TOKEN`. */
function widgets(template: Template): Array<{ type: string; properties: { title?: string; markdown?: string; metrics?: any[][] } }> {
  const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
  const body = dashboard.Properties.DashboardBody;
  const text = typeof body === 'string' ? body : body['Fn::Join'][1].map((p: any) => (typeof p === 'string' ? p : 'TOKEN')).join('');
  return JSON.parse(text).widgets;
}

const alarmsOf = (template: Template) => Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((r) => r.Properties);
const alarmNamed = (template: Template, description: RegExp) => alarmsOf(template).find((a) => description.test(a.AlarmDescription)) as AlarmProperties & Record<string, any>;

const S3_FILES_METRICS = ['PendingExports', 'ExportAge', 'ImportAge', 'ImportFailures', 'ExportFailures', 'DataReadBytes', 'DataWriteBytes',
  'MetadataReadBytes', 'MetadataWriteBytes', 'StorageBytes', 'Inodes', 'LostAndFoundFiles', 'ClientConnections'];

test('the dashboard shows every metric S3 Files documents, by FileSystemId, and what efs-utils clients publish', () => {
  const { template } = monitored();
  const graphs = widgets(template).filter((w) => w.type === 'metric');
  const metrics = graphs.flatMap((w) => w.properties.metrics ?? []);
  const named = metrics.filter((m) => m[0] === 'AWS/S3/Files');
  expect([...new Set(named.map((m) => m[1]))].sort()).toEqual([...S3_FILES_METRICS].sort());
  for (const m of named) expect(m.slice(2, 4)).toEqual(['FileSystemId', 'TOKEN']);
  const searches = metrics.filter((m) => typeof m[0] === 'object' && /SEARCH/.test(m[0].expression)).map((m) => m[0].expression);
  expect(searches).toEqual(['NFSConnectionAccessible', 'S3BucketAccessible', 'S3BucketReachable']
    .map((name) => `SEARCH('Namespace="efs-utils/S3Files" MetricName="${name}" "TOKEN"', 'Minimum', 300)`));
  expect(graphs.map((w) => w.properties.title)).toEqual([
    'PendingExports', 'ExportAge and ImportAge (s)', 'ImportFailures and ExportFailures',
    'Throughput (MiB/s)', 'Operations per second', 'Average write size (KiB)',
    'StorageBytes and Inodes', 'LostAndFoundFiles', 'ClientConnections',
    'NFSConnectionAccessible', 'S3BucketAccessible', 'S3BucketReachable',
    'Data access spend (USD/hour)', 'Spend per day (USD/day)', 'Bucket storage (USD/day)',
  ]);
  expect(widgets(template).filter((w) => w.type === 'text').map((w) => w.properties.markdown!.split('.')[0])).toEqual([
    '# Test/Monitoring\nS3 Files file system `TOKEN`', '**Sync with the bucket', '**Traffic', '**Footprint, conflicts and clients', '**What clients see** (amazon-efs-utils, `efs-utils/S3Files`, from clients that publish it)',
    '**Spend** at us-east-1 S3 Files list prices, checked 2026-11-28: the least the bill can be (a data operation is billed as 32 KiB at least, metadata 4 KiB)',
  ]);
});

test('an alarm on each failure mode, with its statistic, period and threshold, in the composite alarm that notifies the topic', () => {
  const { monitoring, template } = monitored();
  expect(Object.keys(monitoring.alarms).sort()).toEqual(['averageWriteSize', 'exportAge', 'exportFailures', 'importFailures', 'lostAndFoundFiles', 'pendingExportsGrowing']);
  const metricAlarm = (name: string) => alarmsOf(template).find((a) => a.MetricName === name);
  expect(metricAlarm('LostAndFoundFiles')).toMatchObject({ Namespace: 'AWS/S3/Files', Statistic: 'Maximum', Period: 300, Threshold: 1, EvaluationPeriods: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
  expect(metricAlarm('ImportFailures')).toMatchObject({ Statistic: 'Sum', Period: 300, Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
  expect(metricAlarm('ExportFailures')).toMatchObject({ Statistic: 'Sum', Period: 300, Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
  expect(metricAlarm('ExportAge')).toMatchObject({ Statistic: 'Maximum', Period: 300, Threshold: 600, EvaluationPeriods: 3, DatapointsToAlarm: 3, ComparisonOperator: 'GreaterThanThreshold' });
  for (const alarm of alarmsOf(template)) {
    const dimensions = alarm.Dimensions ?? alarm.Metrics.find((m: any) => m.MetricStat).MetricStat.Metric.Dimensions;
    expect(dimensions).toEqual([{ Name: 'FileSystemId', Value: { 'Fn::GetAtt': [expect.stringMatching(/^Files/), 'FileSystemId'] } }]);
  }
  const composite = template.toJSON().Resources[stack.getLogicalId(monitoring.unhealthyAlarm!.node.defaultChild as cloudwatch.CfnCompositeAlarm)];
  expect((composite.Properties.AlarmRule['Fn::Join'][1] as unknown[]).filter((p) => typeof p === 'object')).toHaveLength(5);
  expect(composite.Properties.AlarmActions).toEqual([{ Ref: expect.stringMatching(/^Topic/) }]);
  expect(composite.Properties.OKActions).toEqual([{ Ref: expect.stringMatching(/^Topic/) }]);
});

test('the alarms fire on their failure modes and stay quiet otherwise', () => {
  const { template } = monitored({ minimumClientConnections: AlarmThreshold.count(2) });
  const fires = (description: RegExp, input: Record<string, number[]>) => alarmFires(alarmNamed(template, description), input);
  expect(fires(/^LostAndFoundFiles/, { 'LostAndFoundFiles:Maximum': [0, 0, 1] })).toBe(true);
  expect(fires(/^LostAndFoundFiles/, { 'LostAndFoundFiles:Maximum': [0, 0, 0] })).toBe(false);
  expect(fires(/^ExportFailures/, { 'ExportFailures:Sum': [0, 2] })).toBe(true);
  expect(fires(/^ImportFailures/, { 'ImportFailures:Sum': [NaN, NaN] })).toBe(false);
  // A minute's write-back is normal; ten minutes for three periods in a row is not.
  expect(fires(/^ExportAge/, { 'ExportAge:Maximum': [60, 700, 800, 900] })).toBe(true);
  expect(fires(/^ExportAge/, { 'ExportAge:Maximum': [700, 800, 60, 900] })).toBe(false);
  // A backlog that grows every quarter-hour for an hour with exports behind; one that grows and drains; one
  // that grows with the write rate while exports keep up (its oldest change a minute old).
  const behind = { 'ExportAge:Minimum': [300, 300, 300, 300, 300] };
  expect(fires(/^PendingExports grew/, { ...behind, 'PendingExports:Minimum': [10, 20, 40, 80, 160] })).toBe(true);
  expect(fires(/^PendingExports grew/, { ...behind, 'PendingExports:Minimum': [10, 20, 40, 5, 160] })).toBe(false);
  expect(fires(/^PendingExports grew/, { 'ExportAge:Minimum': [60, 60, 60, 60, 60], 'PendingExports:Minimum': [10, 20, 40, 80, 160] })).toBe(false);
  // One datapoint a minute, five in a row.
  expect(fires(/^Fewer than 2 client connections/, { 'ClientConnections:Sum': [2, 1, 1, 1, 1, 1] })).toBe(true);
  expect(fires(/^Fewer than 2 client connections/, { 'ClientConnections:Sum': [NaN, NaN, NaN, NaN, NaN] })).toBe(true);
  expect(fires(/^Fewer than 2 client connections/, { 'ClientConnections:Sum': [1, 1, 2, 1, 1] })).toBe(false);
  expect(alarmsOf(template).find((a) => a.MetricName === 'ClientConnections')).toMatchObject({ Period: 60, EvaluationPeriods: 5, DatapointsToAlarm: 5 });
});

test('the metric math against hand-computed values: bytes and operations per second, and the average write against the 32 KiB billed at least', () => {
  const { template } = monitored();
  const expressions = widgets(template).flatMap((w) => w.properties.metrics ?? []).filter((m) => typeof m[0] === 'object' && m[0].expression && !/SEARCH/.test(m[0].expression));
  const byLabel = (label: string) => expressions.find((m) => m[0].label === label)![0].expression as string;
  // 300 s periods: 3 GiB written in one, 300 writes of 4 KiB in another.
  expect(evaluate(byLabel('DataWriteBytes MiB/s'), { series: { data_write: [3 * 1024 ** 3, 300 * 4096] }, periods: { data_write: 300 } }, 2)).toEqual([10.24, 0.00390625]);
  expect(evaluate(byLabel('DataWriteBytes ops/s'), { series: { data_write: [3000, 300] }, periods: { data_write: 300 } }, 2)).toEqual([10, 1]);
  expect(evaluate(byLabel('DataWriteBytes per write (KiB)'), { series: { bytes: [300 * 4096, 0], writes: [300, 0] }, periods: {} }, 2)).toEqual([4, 0]);
  const [averageWrite] = widgets(template).filter((w) => w.properties.title === 'Average write size (KiB)');
  expect((averageWrite.properties as any).annotations.horizontal).toEqual([expect.objectContaining({ value: 32, label: '32 KiB: the least a write is billed' })]);
});

test('thresholds: each can be given or turned off; the wrong unit and a too short export age fail at synth', () => {
  const { monitoring, template } = monitored({
    lostAndFoundFiles: AlarmThreshold.off(), importFailures: AlarmThreshold.count(5), exportAge: AlarmThreshold.duration(Duration.minutes(30)), pendingExportsGrowing: false,
  });
  expect(Object.keys(monitoring.alarms).sort()).toEqual(['averageWriteSize', 'exportAge', 'exportFailures', 'importFailures']);
  expect(alarmsOf(template).find((a) => a.MetricName === 'ImportFailures').Threshold).toBe(5);
  expect(alarmsOf(template).find((a) => a.MetricName === 'ExportAge').Threshold).toBe(1800);
  const other = new Stack(new App(), 'Other');
  const files = new S3FilesFileSystem(other, 'Files', { vpc: new ec2.Vpc(other, 'Vpc') });
  expect(() => new S3FilesMonitoring(other, 'A', { fileSystem: files, alarms: { exportAge: AlarmThreshold.count(3) } }))
    .toThrow('S3FilesMonitoring(Other/A): alarms.exportAge (alarms.export_age) takes AlarmThreshold.duration(...) or AlarmThreshold.off(), got AlarmThreshold.count(3).');
  expect(() => new S3FilesMonitoring(other, 'B', { fileSystem: files, alarms: { exportAge: AlarmThreshold.duration(Duration.minutes(2)) } }))
    .toThrow(/S3FilesMonitoring\(Other\/B\): alarms.exportAge .* must be at least 5 minutes \(the alarm's period\), got "2 minutes"/);
  expect(() => new S3FilesMonitoring(other, 'C', { fileSystem: files, alarms: { lostAndFoundFiles: AlarmThreshold.count(0.5) } }))
    .toThrow(/alarms.lostAndFoundFiles .* must be a whole number of at least 1, got 0.5/);
  const none = new S3FilesMonitoring(other, 'D', {
    fileSystem: files,
    alarms: {
      lostAndFoundFiles: AlarmThreshold.off(), importFailures: AlarmThreshold.off(), exportFailures: AlarmThreshold.off(), exportAge: AlarmThreshold.off(),
      pendingExportsGrowing: false, averageWriteSize: AlarmThreshold.off(),
    },
  });
  expect(none.unhealthyAlarm).toBeUndefined();
  expect(none.spendAlarm).toBeUndefined();
});

test('one dashboard for an EFS and an S3 Files file system, each with its alarms: cdk-nag and cfn-lint find nothing', () => {
  const dashboard = new cloudwatch.Dashboard(stack, 'Dashboard');
  const efsFiles = new SharedFileSystem(stack, 'Efs', { vpc });
  efsFiles.addMonitoring('EfsMonitoring', { dashboard });
  const s3Files = new S3FilesFileSystem(stack, 'S3Files', { vpc });
  const monitoring = new S3FilesMonitoring(stack, 'S3FilesMonitoring', { fileSystem: s3Files, dashboard, title: 'Shared files' });
  expect(monitoring.dashboard).toBe(dashboard);
  const template = Template.fromStack(stack);
  template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  template.resourceCountIs('AWS::CloudWatch::CompositeAlarm', 4); // unhealthy and spend, for each
  expect(nagErrors(stack).filter((finding) => /Monitoring/.test(finding))).toEqual([]);
  expect(cfnLintErrors(template.toJSON())).toEqual([]);
});

describe('the spend row', () => {
  const GiB = 2 ** 30;
  /** The row's expressions by label, from the dashboard. */
  const expressionOf = (template: Template, label: string) => {
    const found = widgets(template).flatMap((w) => w.properties.metrics ?? []).find((m) => typeof m[0] === 'object' && m[0].label === label);
    if (!found) throw new Error(`no expression labelled ${label}`);
    return found[0].expression as string;
  };
  const at = (periods: number) => ({ periods: Object.fromEntries(['data_read', 'data_write', 'metadata_read', 'metadata_write'].map((k) => [`${k}_bytes`, periods])) });

  test('each operation is billed at its minimum: 4 KiB writes as 32 KiB, metadata as 4 KiB; large writes as written (hand-computed at us-east-1 prices)', () => {
    const { template } = monitored();
    // 5-minute periods: 1,000 writes of 4 KiB; 3 writes of 1 GiB; nothing.
    const writes = evaluate(expressionOf(template, 'Data writes (USD/hour)'), {
      series: { data_write_bytes: [1000 * 4096, 3 * GiB, NaN], data_write_ops: [1000, 3, NaN] }, ...at(300),
    }, 3);
    expect(writes[0]).toBeCloseTo(1000 * 32768 / GiB * 0.06 * 12, 12);
    expect(writes[1]).toBeCloseTo(3 * 0.06 * 12, 12);
    expect(writes[2]).toBe(0);
    // 100 listings of 512 bytes (4 KiB each, at the read price) and 10 fsyncs of 0 bytes (4 KiB each, at the write price).
    const metadata = evaluate(expressionOf(template, 'Metadata (USD/hour)'), {
      series: { metadata_read_bytes: [100 * 512], metadata_read_ops: [100], metadata_write_bytes: [0], metadata_write_ops: [10] }, ...at(300),
    }, 1);
    expect(metadata[0]).toBeCloseTo((100 * 4096 * 0.03 + 10 * 4096 * 0.06) / GiB * 12, 15);
    // A day: 100 GiB on the high-performance tier at $0.30 per GB-month.
    const storage = evaluate(expressionOf(template, 'High-performance storage (USD/day)'), { series: { stored_bytes: [100 * GiB] }, periods: {} }, 1);
    expect(storage[0]).toBeCloseTo(100 * 0.3 * 24 / 730, 12);
    const bucket = evaluate(expressionOf(template, 'All versions at S3 Standard (USD/day)'), { series: { bucket_bytes: [1000 * GiB] }, periods: {} }, 1);
    expect(bucket[0]).toBeCloseTo(1000 * 0.023 * 24 / 730, 12);
  });

  test('the bucket line reads the file system\'s bucket: BucketSizeBytes of S3 Standard, daily (Average is the default statistic)', () => {
    const { template } = monitored();
    const metrics = widgets(template).flatMap((w) => w.properties.metrics ?? []).filter((m) => m[0] === 'AWS/S3');
    expect(metrics).toEqual([['AWS/S3', 'BucketSizeBytes', 'BucketName', 'TOKEN', 'StorageType', 'StandardStorage', { id: 'bucket_bytes', period: 86400, visible: false }]]);
  });

  test('the daily spend alarm: projected from the last hour, storage included; in the spend composite, not the health one', () => {
    const { monitoring, template } = monitored({ dailySpendLimit: AlarmThreshold.usd(50) });
    const alarm = alarmNamed(template, /^Projected daily S3 Files spend above \$50/);
    const hours = (n: number) => Array(3).fill(n);
    // 1 GiB written per hour in 1 MiB writes: $1.44 a day, with 100 GiB stored ($0.99): quiet.
    const quiet = { 'DataWriteBytes:Sum': hours(GiB), 'DataWriteBytes:SampleCount': hours(1024), 'StorageBytes:Average': hours(100 * GiB) };
    const zero = { 'DataReadBytes:Sum': hours(0), 'DataReadBytes:SampleCount': hours(0), 'MetadataReadBytes:Sum': hours(0), 'MetadataReadBytes:SampleCount': hours(0),
      'MetadataWriteBytes:Sum': hours(0), 'MetadataWriteBytes:SampleCount': hours(0) };
    expect(alarmFires(alarm, { ...zero, ...quiet })).toBe(false);
    // A loop of 4 KiB writes, 10 million an hour: billed as 305 GiB an hour, $439 a day.
    expect(alarmFires(alarm, { ...zero, ...quiet, 'DataWriteBytes:Sum': hours(1e7 * 4096), 'DataWriteBytes:SampleCount': hours(1e7) })).toBe(true);
    expect(Object.keys(monitoring.alarms)).toContain('dailySpend');
    const rule = (composite?: cloudwatch.CompositeAlarm) => JSON.stringify(template.toJSON().Resources[stack.getLogicalId(composite!.node.defaultChild as cloudwatch.CfnCompositeAlarm)].Properties.AlarmRule);
    expect(rule(monitoring.spendAlarm)).toMatch(/DailySpend/);
    expect(rule(monitoring.spendAlarm)).toMatch(/AverageWriteSize/);
    expect(rule(monitoring.unhealthyAlarm)).not.toMatch(/DailySpend|AverageWriteSize/);
  });

  test('writes averaging under 32 KiB are flagged: they pay for more than they write', () => {
    const { template } = monitored();
    const alarm = alarmNamed(template, /^The average data write was under 32768 bytes/);
    expect(alarm).toMatchObject({ Threshold: 32768, EvaluationPeriods: 3, DatapointsToAlarm: 3, ComparisonOperator: 'LessThanThreshold' });
    expect(alarmFires(alarm, { 'DataWriteBytes:Sum': [3 * 4096000, 3 * 4096000, 3 * 4096000], 'DataWriteBytes:SampleCount': [3000, 3000, 3000] })).toBe(true);
    expect(alarmFires(alarm, { 'DataWriteBytes:Sum': [GiB, GiB, GiB], 'DataWriteBytes:SampleCount': [1024, 1024, 1024] })).toBe(false);
    // Hours without writes are no verdict.
    expect(alarmFires(alarm, { 'DataWriteBytes:Sum': [NaN, NaN, NaN], 'DataWriteBytes:SampleCount': [NaN, NaN, NaN] })).toBe(false);
    expect(alarmFires(alarm, { 'DataWriteBytes:Sum': [0, 0, 0], 'DataWriteBytes:SampleCount': [0, 0, 0] })).toBe(false);
  });

  test('a Region without shipped prices shows GB billed without dollars, says so, and refuses a daily spend limit', () => {
    const other = new Stack(new App(), 'Frankfurt', { env: { region: 'eu-central-1' } });
    const files = new S3FilesFileSystem(other, 'Files', { vpc: new ec2.Vpc(other, 'Vpc') });
    new S3FilesMonitoring(other, 'Monitoring', { fileSystem: files });
    const template = Template.fromStack(other);
    expect(widgets(template).filter((w) => w.type === 'metric').map((w) => w.properties.title).slice(-2)).toEqual(['Data access billed (GB/hour)', 'Storage billed (GB)']);
    const reads = evaluate(expressionOf(template, 'Reads, data and metadata (GB/hour)'), {
      series: { data_read_bytes: [10 * 1024], data_read_ops: [10], metadata_read_bytes: [0], metadata_read_ops: [0] }, ...at(300),
    }, 1);
    expect(reads[0]).toBeCloseTo(10 * 32768 / GiB * 12, 15);
    expect(other.node.findAll().flatMap((c) => c.node.metadata).map((m) => m.data)).toContainEqual(expect.stringContaining('no S3 Files list prices are known for eu-central-1'));
    expect(() => new S3FilesMonitoring(other, 'Limited', { fileSystem: files, alarms: { dailySpendLimit: AlarmThreshold.usd(10) } }))
      .toThrow('S3FilesMonitoring(Frankfurt/Limited): dailySpendLimit needs prices, and this library ships no S3 Files prices for eu-central-1: give pricing: S3FilesPricing.custom({...}) with eu-central-1\'s, got dailySpendLimit $10 and no pricing.');
  });

  test('prices of your own are used and named; wrong units fail at synth', () => {
    const pricing = S3FilesPricing.custom({ label: 'negotiated, 2026-11', storagePerGbMonth: 0.2, readPerGb: 0.02, writePerGb: 0.04, s3StandardStoragePerGbMonth: 0.02 });
    const files = new S3FilesFileSystem(stack, 'Files', { vpc });
    new S3FilesMonitoring(stack, 'Monitoring', { fileSystem: files, pricing, alarms: { dailySpendLimit: AlarmThreshold.usd(5) } });
    const template = Template.fromStack(stack);
    const storage = evaluate(expressionOf(template, 'High-performance storage (USD/day)'), { series: { stored_bytes: [730 * GiB] }, periods: {} }, 1);
    expect(storage[0]).toBeCloseTo(0.2 * 24, 12);
    expect(alarmNamed(template, /^Projected daily/).AlarmDescription).toMatch(/at negotiated, 2026-11\)\.$/);
    expect(() => new S3FilesMonitoring(stack, 'Bad', { fileSystem: files, alarms: { averageWriteSize: AlarmThreshold.count(4) } }))
      .toThrow(/alarms.averageWriteSize .* takes AlarmThreshold.size\(...\) or AlarmThreshold.off\(\), got AlarmThreshold.count\(4\)/);
    expect(() => new S3FilesMonitoring(stack, 'Free', { fileSystem: files, pricing, alarms: { dailySpendLimit: AlarmThreshold.usd(0) } }))
      .toThrow(/alarms.dailySpendLimit .* must be a positive amount of US dollars, got 0/);
  });
});

describe('probes', () => {
  const probed = (alarms: S3FilesAlarmOptions = {}) => {
    const files = new S3FilesFileSystem(stack, 'Files', { vpc });
    const probe = files.addProbe('Probe', { canary: { interval: Duration.minutes(15) } });
    new S3FilesMonitoring(stack, 'Monitoring', { fileSystem: files, probes: [probe], alarms, alarmTopic: new sns.Topic(stack, 'Topic') });
    return Template.fromStack(stack);
  };

  test('a probe gets a row: its latency percentiles and throughput for whatever it ran, export lag and import included', () => {
    const template = probed();
    const row = widgets(template).filter((w) => /^Probe/.test(w.properties.title ?? ''));
    expect(row.map((w) => w.properties.title)).toEqual(['Probe latency p50 (ms)', 'Probe latency p99 (ms)', 'Probe throughput (bytes/s) and failures']);
    expect((row[1].properties.metrics![0][0] as { expression: string }).expression)
      .toBe('SEARCH(\'{CdkEfsKit,FileSystemId,Operation,Scenario} MetricName="LatencyP99" FileSystemId="TOKEN"\', \'Average\', 300)');
    const note = widgets(template).find((w) => /^\*\*Probe Test\/Files\/Probe\*\*/.test(w.properties.markdown ?? ''))!;
    expect(note.properties.markdown).toMatch(/a canary every 15 minutes.*export-lag's `export` is a file's way to the bucket/);
  });

  test('its failures and its canary\'s small-operation p99 alarm, in the health composite; both can be turned off', () => {
    const template = probed();
    const failures = alarmNamed(template, /^Probe Test\/Files\/Probe failed/);
    expect(alarmFires(failures, { 'ProbeFailures:Sum': [1], 'Errors:Sum': [NaN] })).toBe(true);
    expect(alarmFires(failures, { 'ProbeFailures:Sum': [NaN], 'Errors:Sum': [NaN] })).toBe(false);
    const latency = alarmNamed(template, /p99 latency of a small operation .* above 50 ms in 2 of 3 canary runs/);
    expect(latency.Metrics!.filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat.Period)).toEqual([900, 900, 900, 900]);
    const [unhealthy] = Object.values(template.findResources('AWS::CloudWatch::CompositeAlarm', { Properties: { AlarmDescription: Match.stringLikeRegexp('one of its alarms') } }));
    const rule = JSON.stringify(unhealthy.Properties.AlarmRule);
    expect(rule).toMatch(/MonitoringProbeFailuresProbe/);
    expect(rule).toMatch(/MonitoringProbeLatencyProbe/);

    stack = new Stack(new App(), 'Test', { env: { account: '123456789012', region: 'us-east-1' } });
    vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
    const off = probed({ probeFailures: false, probeLatencyP99: AlarmThreshold.off() });
    expect(alarmsOf(off).filter((a) => /^Probe/.test(a.AlarmDescription))).toEqual([]);
  });

  test('a stack with an S3 Files probe and its monitoring is strict-clean', () => {
    vpc.addFlowLog('FlowLog');
    const template = probed();
    // The test's own topic (no TLS policy) aside.
    expect(nagErrors(stack).filter((finding) => !/Test\/Topic/.test(finding))).toEqual([]);
    expect(cfnLintErrors(template.toJSON())).toEqual([]);
  });
});

describe('seeds', () => {
  test('a seed gets a row (objects written, failures) and a failure alarm in the health composite, which can be turned off', () => {
    const files = new S3FilesFileSystem(stack, 'Files', { vpc });
    const seed = files.addSeed('Site', { source: SeedSource.s3(new s3.Bucket(stack, 'Source'), 'site/'), targetPath: '/www' });
    new S3FilesMonitoring(stack, 'Monitoring', { fileSystem: files, seeds: [seed] });
    const template = Template.fromStack(stack);
    expect(widgets(template).filter((w) => /^Seed/.test(w.properties.title ?? '')).map((w) => w.properties.title)).toEqual(['Seed files written', 'Seed failures']);
    const failures = alarmNamed(template, /^Seed Test\/Files\/Site failed/);
    expect(alarmFires(failures, { 'SeedFilesFailed:Sum': [1], 'SeedRunsFailed:Sum': [NaN] })).toBe(true);
    expect(alarmFires(failures, { 'SeedFilesFailed:Sum': [NaN], 'SeedRunsFailed:Sum': [1] })).toBe(true);
    expect(alarmFires(failures, { 'SeedFilesFailed:Sum': [NaN], 'SeedRunsFailed:Sum': [NaN] })).toBe(false);
    const [unhealthy] = Object.values(template.findResources('AWS::CloudWatch::CompositeAlarm', { Properties: { AlarmDescription: Match.stringLikeRegexp('one of its alarms') } }));
    expect(JSON.stringify(unhealthy.Properties.AlarmRule)).toMatch(/MonitoringSeedFailuresSite/);

    stack = new Stack(new App(), 'Test', { env: { account: '123456789012', region: 'us-east-1' } });
    vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
    const quiet = new S3FilesFileSystem(stack, 'Files', { vpc });
    const quietSeed = quiet.addSeed('Site', { source: SeedSource.s3(new s3.Bucket(stack, 'Source'), 'site/') });
    new S3FilesMonitoring(stack, 'Monitoring', { fileSystem: quiet, seeds: [quietSeed], alarms: { seedFailures: false } });
    expect(alarmsOf(Template.fromStack(stack)).filter((a) => /^Seed/.test(a.AlarmDescription))).toEqual([]);
  });
});
