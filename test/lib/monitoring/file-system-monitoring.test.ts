import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Duration, Size, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { AccessPointPreset, AlarmThreshold, EfsMetricName, EfsPricing, FileSystemAlarmOptions, FileSystemMonitoring, FileSystemSeed, MonitoringOptions, SeedEngine, SeedSource, SharedFileSystem } from '../../../lib';
import { cfnLintErrors, nagErrors } from '../../helpers/checks';
import { AlarmProperties, alarmFires, evaluate, referencedIds, Series } from '../../helpers/metric-math';
import { CANARY_SMALL_OPERATIONS } from '../../../lib/probe/canary';
import { TEST_PRICES } from '../../helpers/test-prices';
import { efsCatalog, startPricingStandIn } from '../../helpers/pricing-api-stand-in';
import { onEvent as lookUp } from '../../../lambda/price-lookup/custom-resource';
import { getProducts } from '../../../lambda/price-lookup/get-products';

const EFS_METRIC_NAMES = new Set<string>(Object.values(EfsMetricName));
const GiB = 1024 ** 3;

let stack: Stack;
let vpc: ec2.Vpc;
let siteDir: string;

beforeAll(() => {
  siteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitoring-site-'));
  fs.writeFileSync(path.join(siteDir, 'index.html'), '<h1>hi</h1>');
});
afterAll(() => fs.rmSync(siteDir, { recursive: true, force: true }));

beforeEach(() => {
  stack = new Stack(new App(), 'Test', { env: { account: '123456789012', region: 'us-east-1' } });
  vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
});

function monitored(throughputMode: efs.ThroughputMode, alarms: FileSystemAlarmOptions = {}, options: MonitoringOptions = {}) {
  const files = new SharedFileSystem(stack, 'Files', {
    vpc, throughputMode,
    provisionedThroughputPerSecond: throughputMode === efs.ThroughputMode.PROVISIONED ? Size.mebibytes(100) : undefined,
  });
  const monitoring = files.addMonitoring('Monitoring', { ...options, alarms });
  return { files, monitoring };
}

/**
 * The dashboard's widgets, with every CloudFormation token in the body replaced by `TOKEN`, or, for
 * a `Fn::GetAtt` of an attribute in `attributes`, by its value (as CloudFormation would at deploy).
 */
function widgets(attributes: Record<string, string> = {}): Array<{ type: string; properties: { title?: string; markdown?: string; metrics?: unknown[][] } }> {
  const dashboards = Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::Dashboard'));
  expect(dashboards).toHaveLength(1);
  const body = dashboards[0].Properties.DashboardBody;
  const resolve = (p: any): string => {
    if (typeof p === 'string') return p;
    const attribute = p['Fn::GetAtt']?.[1];
    return attribute !== undefined && attributes[attribute] !== undefined ? attributes[attribute] : 'TOKEN';
  };
  const text = typeof body === 'string' ? body : body['Fn::Join'][1].map(resolve).join('');
  return JSON.parse(text).widgets;
}

const titles = () => widgets().filter((w) => w.type === 'metric').map((w) => w.properties.title);

function alarms(): Record<string, AlarmProperties & { AlarmDescription: string }> {
  const found = Template.fromStack(stack).findResources('AWS::CloudWatch::Alarm');
  return Object.fromEntries(Object.entries(found).map(([id, r]) => [id, r.Properties]));
}

function alarm(prefix: string): AlarmProperties {
  const match = Object.entries(alarms()).filter(([id]) => id.startsWith(`FilesMonitoring${prefix}`));
  expect(match).toHaveLength(1);
  return match[0][1];
}

const repeat = (n: number, v: number): Series => Array(n).fill(v);

/** Every AWS/EFS metric is a documented one, and every expression reads only ids its graph defines. */
function expectDocumentedMetricsAndResolvedIds(all: ReturnType<typeof widgets>): void {
  for (const w of all.filter((x) => x.type === 'metric')) {
    const rows = w.properties.metrics!;
    const ids = new Set<string>();
    for (const row of rows) {
      const options = row[row.length - 1] as { id?: string; expression?: string };
      if (options.expression) continue;
      const [namespace, metricName] = row as string[];
      if (namespace === 'AWS/EFS') expect(EFS_METRIC_NAMES).toContain(metricName);
      if (options.id) ids.add(options.id);
    }
    for (const row of rows) {
      const options = row[row.length - 1] as { expression?: string };
      if (!options.expression) continue;
      for (const id of referencedIds(options.expression)) expect(ids).toContain(id);
    }
  }
}

describe('dashboard', () => {
  test.each([efs.ThroughputMode.ELASTIC, efs.ThroughputMode.PROVISIONED, efs.ThroughputMode.BURSTING])(
    '%s: every AWS/EFS metric is a documented one, every expression resolves, every row starts with a note', (mode) => {
      monitored(mode);
      const all = widgets();
      expectDocumentedMetricsAndResolvedIds(all);
      // Each row of graphs is explained by the text widget before it.
      const kinds = all.map((w) => w.type);
      expect(kinds[0]).toBe('text');
      expect(all.filter((w) => w.type === 'text').length).toBeGreaterThanOrEqual(4);
    });

  test('the widgets follow the throughput mode: credits on Bursting only', () => {
    monitored(efs.ThroughputMode.ELASTIC);
    const elastic = titles();
    expect(elastic).toEqual(expect.arrayContaining(['Throughput (MiB/s)', 'Operations per second', 'Average I/O size (KiB)',
      'Permitted throughput used (%)', 'PercentIOLimit (%)', 'ClientConnections', 'StorageBytes by class']));
    expect(elastic.join()).not.toMatch(/Burst|credits/i);

    stack = new Stack(new App(), 'Bursting');
    vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
    monitored(efs.ThroughputMode.BURSTING);
    expect(titles()).toEqual(expect.arrayContaining(['BurstCreditBalance (bytes)', 'Hours until credits run out']));
  });

  test('throughput is split into reads, writes and metadata with the documented math', () => {
    monitored(efs.ThroughputMode.ELASTIC);
    const throughput = widgets().find((w) => w.properties.title === 'Throughput (MiB/s)')!.properties.metrics!;
    const expressions = throughput.map((r) => (r[r.length - 1] as { expression?: string }).expression).filter(Boolean);
    expect(expressions).toEqual(['(dataread_bytes/1048576)/PERIOD(dataread_bytes)', '(datawrite_bytes/1048576)/PERIOD(datawrite_bytes)', '(metadata_bytes/1048576)/PERIOD(metadata_bytes)']);
    const names = throughput.filter((r) => r[0] === 'AWS/EFS').map((r) => [r[1], (r[r.length - 1] as { stat: string }).stat]);
    expect(names).toEqual([['DataReadIOBytes', 'Sum'], ['DataWriteIOBytes', 'Sum'], ['MetadataIOBytes', 'Sum']]);
  });

  test('several file systems share one dashboard', () => {
    const elastic = new SharedFileSystem(stack, 'Elastic', { vpc });
    const bursting = new SharedFileSystem(stack, 'Bursting', { vpc, throughputMode: efs.ThroughputMode.BURSTING });
    const first = elastic.addMonitoring('Monitoring', { title: 'Elastic' });
    bursting.addMonitoring('Monitoring', { title: 'Bursting', dashboard: first.dashboard });
    const headings = widgets().filter((w) => w.properties.markdown?.startsWith('# ')).map((w) => w.properties.markdown!.split('\n')[0]);
    expect(headings).toEqual(['# Elastic', '# Bursting']);
  });

  test('an imported file system needs its throughput mode, and gets a clear error without it', () => {
    const imported = efs.FileSystem.fromFileSystemAttributes(stack, 'Imported', {
      fileSystemId: 'fs-0123456789abcdef0',
      securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'Sg', 'sg-0123456789abcdef0'),
    });
    expect(() => new FileSystemMonitoring(stack, 'Bad', { fileSystem: imported }))
      .toThrow('FileSystemMonitoring(Test/Bad): throughputMode (throughput_mode) is required for a file system not defined in this app');
    new FileSystemMonitoring(stack, 'Good', { fileSystem: imported, throughputMode: efs.ThroughputMode.BURSTING });
    expect(JSON.stringify(widgets())).toContain('fs-0123456789abcdef0');
    expect(titles()).toContain('BurstCreditBalance (bytes)');
  });

  test('a plain efs.FileSystem is read for its modes (CloudFormation defaults to Bursting)', () => {
    const plain = new efs.FileSystem(stack, 'Plain', { vpc });
    new FileSystemMonitoring(stack, 'Monitoring', { fileSystem: plain });
    expect(titles()).toContain('BurstCreditBalance (bytes)');
  });

  test('bad alarm settings are refused at synth time', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    expect(() => files.addMonitoring('A', { alarms: { throughputUtilization: AlarmThreshold.percent(180) } }))
      .toThrow('FileSystemMonitoring(Test/Files/A): alarms.throughputUtilization (alarms.throughput_utilization) must be a percentage above 0 and at most 100, got 180.');
    expect(() => files.addMonitoring('B', { alarms: { minimumClientConnections: AlarmThreshold.count(1.5) } }))
      .toThrow(/alarms.minimumClientConnections \(alarms\.minimum_client_connections\) must be an integer from 1 to 25,000/);
    const bursting = new SharedFileSystem(stack, 'Bursting', { vpc, throughputMode: efs.ThroughputMode.BURSTING });
    expect(() => bursting.addMonitoring('C', { alarms: { creditsRunOutWithin: AlarmThreshold.duration(Duration.minutes(5)) } }))
      .toThrow(/alarms.creditsRunOutWithin \(alarms\.credits_run_out_within\) must be from 1 hour to under 30 days, got "5 minutes"/);
  });

  test('fails when given a threshold for an alarm the file system\'s modes do not have', () => {
    const elastic = new SharedFileSystem(stack, 'Files', { vpc });
    expect(() => elastic.addMonitoring('A', { alarms: { burstCreditFloor: AlarmThreshold.size(Size.gibibytes(1)) } }))
      .toThrow('FileSystemMonitoring(Test/Files/A): alarms.burstCreditFloor (alarms.burst_credit_floor) applies to throughputMode (throughput_mode) BURSTING only (burst credits), got AlarmThreshold.size(1073741824 bytes) with throughputMode elastic.');
    const maxIo = new SharedFileSystem(stack, 'MaxIo', { vpc, performanceMode: efs.PerformanceMode.MAX_IO, throughputMode: efs.ThroughputMode.BURSTING });
    expect(() => maxIo.addMonitoring('B', { alarms: { percentIOLimit: AlarmThreshold.percent(90) } }))
      .toThrow(/alarms.percentIOLimit \(alarms\.percent_io_limit\) applies to performanceMode \(performance_mode\) GENERAL_PURPOSE only \(PercentIOLimit\), got AlarmThreshold.percent\(90\) with performanceMode maxIO/);
    // Turning such an alarm off asks for nothing the file system lacks.
    elastic.addMonitoring('C', { alarms: { creditsRunOutWithin: AlarmThreshold.off() } });
  });

  test('fails when an alarm gets a threshold in another unit than its own', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    expect(() => files.addMonitoring('A', { alarms: { probeLatencyP99: AlarmThreshold.percent(20) } }))
      .toThrow('FileSystemMonitoring(Test/Files/A): alarms.probeLatencyP99 (alarms.probe_latency_p99) takes AlarmThreshold.duration(...) or AlarmThreshold.off(), got AlarmThreshold.percent(20).');
    expect(() => files.addMonitoring('B', { alarms: { probeLatencyP99: AlarmThreshold.count(0) } }))
      .toThrow(/alarms.probeLatencyP99 \(alarms\.probe_latency_p99\) takes AlarmThreshold.duration\(...\) or AlarmThreshold.off\(\), got AlarmThreshold.count\(0\)/);
  });
});

describe('alarms', () => {
  test('Elastic: throughput utilisation and PercentIOLimit, no credit alarms; Bursting adds both credit alarms', () => {
    monitored(efs.ThroughputMode.ELASTIC);
    expect(Object.keys(alarms()).map((id) => id.replace(/[A-F0-9]{8}$/, ''))).toEqual(['FilesMonitoringThroughputUtilization', 'FilesMonitoringPercentIOLimit', 'FilesMonitoringDataAccessAnomaly']);
    stack = new Stack(new App(), 'Bursting');
    vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
    monitored(efs.ThroughputMode.BURSTING);
    expect(Object.keys(alarms()).map((id) => id.replace(/[A-F0-9]{8}$/, ''))).toEqual([
      'FilesMonitoringThroughputUtilization', 'FilesMonitoringPercentIOLimit', 'FilesMonitoringCreditsRunningOut', 'FilesMonitoringCreditsExhausted']);
  });

  test('Max I/O has no PercentIOLimit alarm; each alarm can be turned off', () => {
    new SharedFileSystem(stack, 'Files', { vpc, performanceMode: efs.PerformanceMode.MAX_IO, throughputMode: efs.ThroughputMode.BURSTING })
      .addMonitoring('Monitoring', { alarms: { creditsRunOutWithin: AlarmThreshold.off() } });
    expect(Object.keys(alarms()).map((id) => id.replace(/[A-F0-9]{8}$/, ''))).toEqual(['FilesMonitoringThroughputUtilization', 'FilesMonitoringCreditsExhausted']);
  });

  test('every alarm off: no composite alarm', () => {
    const m = new SharedFileSystem(stack, 'Files', { vpc }).addMonitoring('Monitoring', {
      alarms: { throughputUtilization: AlarmThreshold.off(), percentIOLimit: AlarmThreshold.off(), dataAccessAnomaly: AlarmThreshold.off() },
    });
    expect(m.unhealthyAlarm).toBeUndefined();
    expect(m.spendAlarm).toBeUndefined();
    Template.fromStack(stack).resourceCountIs('AWS::CloudWatch::CompositeAlarm', 0);
  });

  test('throughput utilisation >= 80% for 15 minutes trips; 70% does not; 14 minutes does not', () => {
    monitored(efs.ThroughputMode.ELASTIC);
    const a = alarm('ThroughputUtilization');
    const permitted = 100 * 1048576;
    const minutes = (n: number, share: number) => ({ 'MeteredIOBytes:Sum': repeat(n, share * permitted * 60), 'PermittedThroughput:Average': repeat(n, permitted) });
    expect(alarmFires(a, minutes(15, 0.85))).toBe(true);
    expect(alarmFires(a, minutes(15, 0.7))).toBe(false);
    expect(alarmFires(a, { 'MeteredIOBytes:Sum': [...repeat(1, 0), ...repeat(14, 0.85 * permitted * 60)], 'PermittedThroughput:Average': repeat(15, permitted) })).toBe(false);
  });

  test('PercentIOLimit >= 95 for 15 minutes trips; 90 does not', () => {
    monitored(efs.ThroughputMode.ELASTIC);
    const a = alarm('PercentIOLimit');
    expect(alarmFires(a, { 'PercentIOLimit:Average': repeat(15, 96) })).toBe(true);
    expect(alarmFires(a, { 'PercentIOLimit:Average': repeat(15, 90) })).toBe(false);
  });

  test('credits running out within 24 hours at the last hour\'s rate trips; a slow drain or a refill does not', () => {
    monitored(efs.ThroughputMode.BURSTING);
    const a = alarm('CreditsRunningOut');
    const hourly = (start: number, perHour: number) => ({ 'BurstCreditBalance:Average': Array.from({ length: 4 }, (_, i) => start + i * perHour) });
    expect(alarmFires(a, hourly(1000 * GiB, -100 * GiB))).toBe(true); // ~7 hours left
    expect(alarmFires(a, hourly(1000 * GiB, -10 * GiB))).toBe(false); // ~97 hours left
    expect(alarmFires(a, hourly(100 * GiB, 10 * GiB))).toBe(false); // refilling
    expect(alarmFires(a, hourly(2100 * GiB, 0))).toBe(false); // full
  });

  test('the hours-left expression computes hours from the slope', () => {
    const expression = 'IF(RATE(credits) < 0, credits / ABS(RATE(credits)) / 3600, 720)';
    const hours = evaluate(expression, { series: { credits: [100 * GiB, 90 * GiB] }, periods: { credits: 3600 } }, 2);
    expect(hours[1]).toBeCloseTo(9);
  });

  test('credits exhausted (AWS\'s alarm, floor settable) trips at the floor for 15 minutes', () => {
    monitored(efs.ThroughputMode.BURSTING, { burstCreditFloor: AlarmThreshold.size(Size.gibibytes(1)) });
    const a = alarm('CreditsExhausted');
    expect(a.Threshold).toBe(GiB);
    expect(alarmFires(a, { 'BurstCreditBalance:Minimum': repeat(15, 0.5 * GiB) })).toBe(true);
    expect(alarmFires(a, { 'BurstCreditBalance:Minimum': repeat(15, 2 * GiB) })).toBe(false);
  });

  test('client connections below the expected count, or missing, for 5 minutes trips', () => {
    monitored(efs.ThroughputMode.ELASTIC, { minimumClientConnections: AlarmThreshold.count(3) });
    const a = alarm('ClientConnections');
    expect(alarmFires(a, { 'ClientConnections:Sum': repeat(5, 2) })).toBe(true);
    expect(alarmFires(a, { 'ClientConnections:Sum': repeat(5, NaN) })).toBe(true);
    expect(alarmFires(a, { 'ClientConnections:Sum': repeat(5, 3) })).toBe(false);
  });

  test('composite alarm ORs every alarm and notifies the topic', () => {
    const topic = new sns.Topic(stack, 'Topic');
    new SharedFileSystem(stack, 'Files', { vpc, throughputMode: efs.ThroughputMode.BURSTING }).addMonitoring('Monitoring', { alarmTopic: topic });
    const composite = Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::CompositeAlarm'))[0].Properties;
    const rule = JSON.stringify(composite.AlarmRule);
    for (const id of Object.keys(alarms())) expect(rule).toContain(id);
    expect(composite.AlarmActions).toEqual([{ Ref: expect.stringMatching(/^Topic/) }]);
    expect(composite.OKActions).toEqual([{ Ref: expect.stringMatching(/^Topic/) }]);
  });
});

describe('spend', () => {
  const prices = EfsPricing.custom(TEST_PRICES);
  const HOUR = 3600;

  type Row = unknown[];
  const optionsOf = (row: Row) => row[row.length - 1] as { id?: string; expression?: string; label?: string; period?: number; stat?: string };
  /** A widget's metrics by title; CloudWatch's default period (300 s) where the body leaves it out. */
  const rowsOf = (title: string, attributes?: Record<string, string>): Row[] => widgets(attributes).find((w) => w.properties.title === title)!.properties.metrics!;
  const periodOf = (row: Row) => optionsOf(row).period ?? 300;

  /** The line labelled `label` of the widget `title`, evaluated over `series` (by input id; missing ids have no data). */
  function line(title: string, label: string, series: Record<string, Series>, attributes?: Record<string, string>): Series {
    const rows = rowsOf(title, attributes);
    const expression = rows.map(optionsOf).find((o) => o.label === label)!.expression!;
    const length = Math.max(...Object.values(series).map((s) => s.length));
    const env = { series: {} as Record<string, Series>, periods: {} as Record<string, number> };
    for (const row of rows.filter((r) => !optionsOf(r).expression && optionsOf(r).id)) {
      const id = optionsOf(row).id!;
      env.series[id] = series[id] ?? repeat(length, NaN);
      env.periods[id] = periodOf(row);
    }
    return evaluate(expression, env, length);
  }

  const SPEND_TITLES = ['Data access spend (USD/hour)', 'Spend per day (USD/day)'];

  test.each([efs.ThroughputMode.ELASTIC, efs.ThroughputMode.PROVISIONED, efs.ThroughputMode.BURSTING])(
    '%s: every spend expression reads AWS/EFS bytes at its own period (Sum of I/O, Average of StorageBytes), and its unit is in its label', (mode) => {
      monitored(mode, {}, { pricing: prices });
      for (const title of SPEND_TITLES.filter((t) => titles().includes(t))) {
        const rows = rowsOf(title);
        const expressions = rows.filter((r) => optionsOf(r).expression);
        expect(expressions.length).toBeGreaterThan(0);
        for (const row of expressions) {
          expect(optionsOf(row).label).toMatch(title.includes('hour') ? /\(USD\/hour\)$/ : /\(USD\/day\)$/);
          for (const id of referencedIds(optionsOf(row).expression!)) {
            const input = rows.find((r) => optionsOf(r).id === id)!;
            expect(input.slice(0, 2)).toEqual(['AWS/EFS', expect.stringMatching(/^(DataRead|DataWrite|MetadataRead|MetadataWrite)IOBytes$|^StorageBytes$/)]);
            expect(optionsOf(input).stat ?? 'Average').toBe(input[1] === 'StorageBytes' ? 'Average' : 'Sum');
            expect(id).toMatch(/_bytes$/);
            expect(periodOf(input)).toBe(periodOf(row));
          }
        }
      }
    });

  test('the widgets follow the throughput mode: data access and its anomaly band on Elastic only', () => {
    monitored(efs.ThroughputMode.ELASTIC);
    expect(titles()).toEqual(expect.arrayContaining([...SPEND_TITLES, 'MeteredIOBytes per hour and band']));
    const band = rowsOf('MeteredIOBytes per hour and band').map(optionsOf);
    expect(band.map((o) => o.expression).filter(Boolean)).toEqual(['ANOMALY_DETECTION_BAND(m0, 3)']);
    expect(band.every((o) => o.period === HOUR)).toBe(true);
    for (const mode of [efs.ThroughputMode.BURSTING, efs.ThroughputMode.PROVISIONED]) {
      stack = new Stack(new App(), mode, { env: { account: '123456789012', region: 'us-east-1' } });
      vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
      monitored(mode);
      expect(titles()).toContain('Spend per day (USD/day)');
      expect(titles().join()).not.toMatch(/Data access spend|MeteredIOBytes per hour/);
    }
  });

  test('Elastic data access per hour: known bytes give the hand-computed dollars, at a 5-minute and at a 1-hour period alike', () => {
    monitored(efs.ThroughputMode.ELASTIC, {}, { pricing: prices });
    const title = 'Data access spend (USD/hour)';
    expect(rowsOf(title).filter((r) => optionsOf(r).id).map(periodOf)).toEqual([300, 300, 300, 300]);
    // In 5 minutes: 0.25 GiB of data read at $1/GB = $0.25, 12 times an hour = $3.00/hour;
    // 0.5 GiB written at $2/GB = $1.00, = $12.00/hour;
    // metadata 0.1 GiB read at $1 + 0.05 GiB written at $2 = $0.20, = $2.40/hour.
    const fiveMinutes = { dataread_bytes: [0.25 * GiB], datawrite_bytes: [0.5 * GiB], metadataread_bytes: [0.1 * GiB], metadatawrite_bytes: [0.05 * GiB] };
    expect(line(title, 'Data reads (USD/hour)', fiveMinutes)[0]).toBeCloseTo(3, 10);
    expect(line(title, 'Data writes (USD/hour)', fiveMinutes)[0]).toBeCloseTo(12, 10);
    expect(line(title, 'Metadata (USD/hour)', fiveMinutes)[0]).toBeCloseTo(2.4, 10);
    // The same traffic summed over an hour (12 times the bytes) is the same $3.00/hour: PERIOD() keeps the unit.
    const expression = rowsOf(title).map(optionsOf).find((o) => o.label === 'Data reads (USD/hour)')!.expression!;
    expect(evaluate(expression, { series: { dataread_bytes: [3 * GiB] }, periods: { dataread_bytes: HOUR } }, 1)[0]).toBeCloseTo(3, 10);
    // An idle period costs $0, not a gap.
    expect(line(title, 'Data reads (USD/hour)', { dataread_bytes: [NaN] })[0]).toBe(0);
  });

  // One hour of an Elastic file system, at the test prices ($1/GB read, $2/GB written; per GB-month
  // Standard $73, IA $7.30, Archive $3.65, which over a day (24 of the month's 730 hours) are
  // $2.40, $0.24 and $0.12 per GB):
  //   data access: (3 GiB data + 1 GiB metadata read) x $1 + (2 GiB data + 0.5 GiB metadata written) x $2 = $9 in the hour, x 24 = $216/day
  //   Standard 10 GiB x $2.40 = $24/day; IA (90 GiB + 10 GiB of IASizeOverhead) x $0.24 = $24/day; Archive 50 GiB x $0.12 = $6/day
  //   projected: 216 + 24 + 24 + 6 = $270/day
  const elasticHour = {
    dataread_bytes: [3 * GiB], metadataread_bytes: [GiB], datawrite_bytes: [2 * GiB], metadatawrite_bytes: [0.5 * GiB],
    standard_bytes: [10 * GiB], ia_bytes: [90 * GiB], iasizeoverhead_bytes: [10 * GiB], archive_bytes: [50 * GiB], archivesizeoverhead_bytes: [NaN],
  };

  test('Elastic spend per day: known metric values give the hand-computed dollars, line by line', () => {
    monitored(efs.ThroughputMode.ELASTIC, {}, { pricing: prices });
    const title = 'Spend per day (USD/day)';
    expect(rowsOf(title).map(periodOf).every((p) => p === HOUR)).toBe(true);
    expect(line(title, 'Data access (USD/day)', elasticHour)[0]).toBeCloseTo(216, 8);
    expect(line(title, 'Standard storage (USD/day)', elasticHour)[0]).toBeCloseTo(24, 8);
    expect(line(title, 'IA storage (USD/day)', elasticHour)[0]).toBeCloseTo(24, 8);
    expect(line(title, 'Archive storage (USD/day)', elasticHour)[0]).toBeCloseTo(6, 8);
    expect(rowsOf(title).map(optionsOf).map((o) => o.label).filter(Boolean)).not.toContain('Provisioned throughput (USD/day)');
  });

  test('the daily spend alarm projects $270 from that hour; above the budget in 2 of 3 hours trips it, 1 of 3 does not', () => {
    monitored(efs.ThroughputMode.ELASTIC, { dailySpendLimit: AlarmThreshold.usd(250) }, { pricing: prices });
    const a = alarm('DailySpend');
    expect(a.Threshold).toBe(250);
    expect(a.Metrics!.filter((m) => m.MetricStat).every((m) => m.MetricStat!.Period === HOUR)).toBe(true);
    const hours = (...scales: number[]) => Object.fromEntries(Object.entries(elasticHour).map(([id, [v]]) =>
      [`id:${id}`, scales.map((k) => (id.endsWith('read_bytes') || id.endsWith('write_bytes') ? v * k : v))]));
    const returned = a.Metrics!.find((m) => m.ReturnData !== false)!;
    const env = { series: {} as Record<string, Series>, periods: {} as Record<string, number> };
    for (const m of a.Metrics!.filter((x) => x.MetricStat)) {
      env.series[m.Id] = (elasticHour as Record<string, Series>)[m.Id] ?? [NaN];
      env.periods[m.Id] = m.MetricStat!.Period;
    }
    expect(evaluate(returned.Expression!, env, 1)[0]).toBeCloseTo(270, 8);
    expect(alarmFires(a, hours(1, 1, 0))).toBe(true); // $270, $270, $54 (storage only)
    expect(alarmFires(a, hours(0, 1, 0))).toBe(false);
    // $7.50 of access an hour projects $180 + $54 of storage = $234/day, under $250, however long it lasts.
    expect(alarmFires(a, hours(7.5 / 9, 7.5 / 9, 7.5 / 9))).toBe(false);
  });

  // Provisioned at 100 MiB/s, test prices: Standard 1024 GiB includes 1024 x 50 KiB/s = 50 MiB/s, so 50 MiB/s are billed
  // at $73 per MiB/s-month, $2.40 a day: $120/day. Storage: Standard 1024 GiB x $2.40 = $2,457.60; IA (Provisioned's
  // price, $14.60 a GB-month, $0.48 a day) 10 GiB = $4.80. No data access charge. With 4096 GiB in Standard, 200 MiB/s are included: $0.
  test('Provisioned: the fixed line bills the throughput above what Standard storage includes, and no data access', () => {
    monitored(efs.ThroughputMode.PROVISIONED, { dailySpendLimit: AlarmThreshold.usd(2550) }, { pricing: prices });
    const title = 'Spend per day (USD/day)';
    const hour = { standard_bytes: [1024 * GiB], ia_bytes: [10 * GiB] };
    expect(line(title, 'Provisioned throughput (USD/day)', hour)[0]).toBeCloseTo(120, 8);
    expect(line(title, 'Provisioned throughput (USD/day)', { standard_bytes: [4096 * GiB] })[0]).toBe(0);
    expect(line(title, 'IA storage (USD/day)', hour)[0]).toBeCloseTo(4.8, 8);
    expect(rowsOf(title).map(optionsOf).map((o) => o.label)).not.toContain('Data access (USD/day)');
    const a = alarm('DailySpend');
    const stored = (standard: number) => ({
      'id:standard_bytes': repeat(3, standard), 'id:ia_bytes': repeat(3, 10 * GiB),
      'id:iasizeoverhead_bytes': repeat(3, NaN), 'id:archive_bytes': repeat(3, NaN), 'id:archivesizeoverhead_bytes': repeat(3, NaN),
    });
    expect(alarmFires(a, stored(1024 * GiB))).toBe(true); // $2,582.40
    // 1000 GiB: 100 - 48.83 = 51.17 MiB/s billed, $122.81; Standard $2,400; IA $4.80: $2,527.61. Under $2,550.
    expect(alarmFires(a, stored(1000 * GiB))).toBe(false);
  });

  test('prices enter the expressions as plain decimals, which metric math reads (never exponent notation)', () => {
    monitored(efs.ThroughputMode.ELASTIC, {}, { pricing: EfsPricing.custom({ ...TEST_PRICES, elasticReadPerGb: 0.0000001 }) });
    const reads = rowsOf('Data access spend (USD/hour)').map(optionsOf).find((o) => o.label === 'Data reads (USD/hour)')!.expression!;
    expect(reads).toBe('FILL(dataread_bytes,0)*0.0000001/1073741824*3600/PERIOD(dataread_bytes)');
  });

  test('One Zone storage has One Zone prices', () => {
    new SharedFileSystem(stack, 'Files', { vpc, oneZone: true }).addMonitoring('Monitoring', { pricing: prices });
    // $36.50 a GB-month is $1.20 a day.
    expect(line('Spend per day (USD/day)', 'Standard storage (USD/day)', { standard_bytes: [10 * GiB] })[0]).toBeCloseTo(12, 8);
    expect(spendNote()).toContain('Storage at One Zone prices.');
  });

  test('an imported Provisioned file system needs its provisioned throughput; others refuse it', () => {
    const imported = efs.FileSystem.fromFileSystemAttributes(stack, 'Imported', {
      fileSystemId: 'fs-0123456789abcdef0',
      securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'Sg', 'sg-0123456789abcdef0'),
    });
    expect(() => new FileSystemMonitoring(stack, 'Bad', { fileSystem: imported, throughputMode: efs.ThroughputMode.PROVISIONED }))
      .toThrow('FileSystemMonitoring(Test/Bad): provisionedThroughputPerSecond (provisioned_throughput_per_second) is required for a Provisioned file system not defined in this app (the spend row bills it), got undefined.');
    expect(() => new FileSystemMonitoring(stack, 'Elastic', { fileSystem: imported, throughputMode: efs.ThroughputMode.ELASTIC, provisionedThroughputPerSecond: Size.mebibytes(10) }))
      .toThrow('FileSystemMonitoring(Test/Elastic): provisionedThroughputPerSecond (provisioned_throughput_per_second) applies to throughputMode (throughput_mode) PROVISIONED only, got 10 MiB/s with throughputMode elastic.');
    new FileSystemMonitoring(stack, 'Good', { fileSystem: imported, throughputMode: efs.ThroughputMode.PROVISIONED, provisionedThroughputPerSecond: Size.mebibytes(10), pricing: prices });
    // 10 MiB/s on an empty file system: 10 x $2.40.
    expect(line('Spend per day (USD/day)', 'Provisioned throughput (USD/day)', { standard_bytes: [0] })[0]).toBeCloseTo(24, 8);
  });

  /** A fresh stack in `region` (none: environment-agnostic) with a VPC. */
  function stackIn(region?: string): void {
    stack = new Stack(new App(), 'Elsewhere', region ? { env: { account: '123456789012', region } } : {});
    vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
  }
  const spendNote = () => widgets().map((w) => w.properties.markdown ?? '').find((m) => m.startsWith('**Spend**'))!;
  /** What `cdk synth --strict` fails on: any warning or error annotation. */
  function expectNothingStrictFailsOn(): void {
    Annotations.fromStack(stack).hasNoWarning('*', Match.anyValue());
    Annotations.fromStack(stack).hasNoError('*', Match.anyValue());
  }

  test('a stack in a Region with shipped prices uses them, without an annotation (us-east-1)', () => {
    monitored(efs.ThroughputMode.ELASTIC);
    expect(line('Spend per day (USD/day)', 'Standard storage (USD/day)', { standard_bytes: [730 * GiB] })[0]).toBeCloseTo(24 * EfsPricing.US_EAST_1.standardStoragePerGbMonth, 8);
    expect(spendNote()).toContain('estimated at us-east-1 list prices, Regional, checked 2026-11-24. ');
    expectNothingStrictFailsOn();
    expect(Annotations.fromStack(stack).findInfo('*', Match.anyValue())).toEqual([]);
  });

  test('a stack in a China Region (no Price List there) gets billed usage without dollars, and nothing --strict fails on', () => {
    stackIn('cn-north-1');
    monitored(efs.ThroughputMode.ELASTIC);
    expectNothingStrictFailsOn();
    const infos = Annotations.fromStack(stack).findInfo('*', Match.stringLikeRegexp('no EFS list prices are known for cn-north-1'));
    expect(infos.map((i) => i.id)).toEqual(['/Elsewhere/Files/Monitoring']);
    expect(spendNote()).toMatch(/^\*\*Spend\*\*: no EFS list prices are known for cn-north-1, so this row shows what is billed, without dollars\./);
    // No dollars anywhere: no USD graph, no us-east-1 price in any expression, no budget alarm, no lookup.
    expect(titles().filter((t) => /Spend|Data access|Storage billed|MeteredIOBytes/.test(t!)))
      .toEqual(['Data access billed (GB/hour)', 'Storage billed by class (GB)', 'MeteredIOBytes per hour and band']);
    expect(JSON.stringify(widgets())).not.toMatch(/USD|\*0\.3\*|\*0\.06\//);
    expect(Object.keys(alarms()).filter((id) => id.includes('DailySpend'))).toEqual([]);
    Template.fromStack(stack).resourceCountIs('Custom::CdkEfsKitEfsPrices', 0);
    // In 5 minutes: 0.25 GiB of data and 0.05 GiB of metadata read is 0.3 GB, 3.6 GB an hour; 0.5 + 0.1 GiB written, 7.2 GB an hour.
    const fiveMinutes = { dataread_bytes: [0.25 * GiB], metadataread_bytes: [0.05 * GiB], datawrite_bytes: [0.5 * GiB], metadatawrite_bytes: [0.1 * GiB] };
    expect(line('Data access billed (GB/hour)', 'Reads, data and metadata (GB/hour)', fiveMinutes)[0]).toBeCloseTo(3.6, 10);
    expect(line('Data access billed (GB/hour)', 'Writes, data and metadata (GB/hour)', fiveMinutes)[0]).toBeCloseTo(7.2, 10);
    // IA bills each file as 128 KiB at least: its size overhead counts.
    const stored = { standard_bytes: [10 * GiB], ia_bytes: [90 * GiB], iasizeoverhead_bytes: [10 * GiB], archive_bytes: [NaN], archivesizeoverhead_bytes: [NaN] };
    expect(line('Storage billed by class (GB)', 'Standard storage (GB)', stored)[0]).toBeCloseTo(10, 10);
    expect(line('Storage billed by class (GB)', 'IA storage (GB)', stored)[0]).toBeCloseTo(100, 10);
    expect(line('Storage billed by class (GB)', 'Archive storage (GB)', stored)[0]).toBe(0);
  });

  test('without prices, Provisioned shows the MiB/s it is billed for and Bursting only storage', () => {
    stackIn('cn-northwest-1');
    monitored(efs.ThroughputMode.PROVISIONED);
    // 100 MiB/s provisioned; 1024 GiB of Standard includes 50 MiB/s.
    expect(line('Provisioned throughput billed (MiB/s)', 'Provisioned above the included baseline (MiB/s)', { standard_bytes: [1024 * GiB] })[0]).toBeCloseTo(50, 10);
    stackIn('cn-northwest-1');
    monitored(efs.ThroughputMode.BURSTING);
    expect(titles().filter((t) => /billed/.test(t!))).toEqual(['Storage billed by class (GB)']);
    // (SharedFileSystem warns about Bursting itself; the monitoring adds nothing --strict fails on.)
    expect(Annotations.fromStack(stack).findWarning('/Elsewhere/Files/Monitoring', Match.anyValue())).toEqual([]);
  });

  test('prices given are used in any Region, without an annotation or a lookup', () => {
    stackIn('eu-west-1');
    monitored(efs.ThroughputMode.ELASTIC, { dailySpendLimit: AlarmThreshold.usd(250) }, { pricing: prices });
    expect(line('Spend per day (USD/day)', 'Standard storage (USD/day)', { standard_bytes: [10 * GiB] })[0]).toBeCloseTo(24, 8);
    expect(spendNote()).toContain('estimated at test prices. ');
    expect(Annotations.fromStack(stack).findInfo('*', Match.anyValue())).toEqual([]);
    Template.fromStack(stack).resourceCountIs('Custom::CdkEfsKitEfsPrices', 0);
    expectNothingStrictFailsOn();
  });

  test('fails when a daily spend limit is set in a Region without any known prices and no pricing is given', () => {
    stackIn('cn-north-1');
    expect(() => monitored(efs.ThroughputMode.ELASTIC, { dailySpendLimit: AlarmThreshold.usd(25) })).toThrow(
      "FileSystemMonitoring(Elsewhere/Files/Monitoring): dailySpendLimit needs prices, and none are known for cn-north-1 (the AWS Price List cannot be called from the aws-cn partition): "
      + "give pricing: EfsPricing.custom({...}) with cn-north-1's, got dailySpendLimit $25 and no pricing.");
  });

  describe('prices looked up at deploy time (a Region without shipped prices)', () => {
    const lookupId = () => Object.keys(Template.fromStack(stack).findResources('Custom::CdkEfsKitEfsPrices'))[0];
    /** `value` with each Fn::GetAtt of the lookup replaced by `data`'s attribute, and each Fn::Join of strings joined, as CloudFormation does at deploy. */
    function deployed(value: any, data: Record<string, string>): any {
      if (Array.isArray(value)) return value.map((v) => deployed(v, data));
      if (value === null || typeof value !== 'object') return value;
      const att = value['Fn::GetAtt'];
      if (att && att[0] === lookupId()) return data[att[1]];
      const resolved = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deployed(v, data)]));
      const join = resolved['Fn::Join'];
      return join && join[1].every((p: unknown) => typeof p === 'string') ? join[1].join(join[0]) : resolved;
    }

    test('eu-west-1: the lookup (pricing:GetProducts on *, acknowledged), the spend row\'s expressions on its attributes, a budget alarm, and nothing --strict fails on', () => {
      stackIn('eu-west-1');
      monitored(efs.ThroughputMode.ELASTIC, { dailySpendLimit: AlarmThreshold.usd(25) });
      expectNothingStrictFailsOn();
      const infos = Annotations.fromStack(stack).findInfo('/Elsewhere/Files/Monitoring', Match.stringLikeRegexp('looked up in the AWS Price List at deploy time'));
      expect(infos).toHaveLength(1);
      const template = Template.fromStack(stack);
      template.resourceCountIs('Custom::CdkEfsKitEfsPrices', 1);
      template.hasResourceProperties('Custom::CdkEfsKitEfsPrices', {
        Region: 'eu-west-1', Fields: Object.keys(TEST_PRICES).filter((k) => k !== 'label').join(','), FiltersVersion: '1',
      });
      template.hasResourceProperties('AWS::IAM::Policy', {
        PolicyDocument: { Statement: [{ Action: 'pricing:GetProducts', Effect: 'Allow', Resource: '*' }] },
      });
      const body = JSON.stringify(Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0].Properties.DashboardBody);
      for (const field of ['elasticReadPerGb', 'elasticWritePerGb', 'standardStoragePerGbMonth', 'iaStoragePerGbMonth', 'archiveStoragePerGbMonth', 'Missing', 'EffectiveDate']) {
        expect(body).toContain(JSON.stringify({ 'Fn::GetAtt': [lookupId(), field] }));
      }
      expect(JSON.stringify(alarm('DailySpend'))).toContain(JSON.stringify({ 'Fn::GetAtt': [lookupId(), 'elasticWritePerGb'] }));
      expect(titles().filter((t) => /USD|billed/.test(t!)))
        .toEqual(['Data access spend (USD/hour)', 'Spend per day (USD/day)', 'Data access billed (GB/hour)', 'Storage billed by class (GB)']);
      expect(spendNote()).toContain('**Spend**, estimated at eu-west-1 list prices from the AWS Price List, looked up at deploy time. Effective TOKEN. '
        + 'Not in the Price List for the Region, so counted as $0 (the billed usage graphs show their part): TOKEN. ');
    });

    test('what the lookup answers, put in the template\'s tokens, is what the spend row and the budget alarm compute with', async () => {
      const standIn = await startPricingStandIn(efsCatalog('eu-west-1', 'EU', { oneZone: false }));
      try {
        const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
        stackIn('eu-west-1');
        monitored(efs.ThroughputMode.ELASTIC, { dailySpendLimit: AlarmThreshold.usd(25) });
        const properties = Object.values(Template.fromStack(stack).findResources('Custom::CdkEfsKitEfsPrices'))[0].Properties;
        const { Data } = await lookUp({ RequestType: 'Create', ResourceProperties: properties }, { getProducts: (a) => getProducts(a, { url: standIn.url, credentials }) });
        // 730 GB for a day at $0.33 a GB-month; a GB read per hour at $0.035.
        expect(line('Spend per day (USD/day)', 'Standard storage (USD/day)', { standard_bytes: [730 * GiB] }, Data)[0]).toBeCloseTo(24 * 0.33, 8);
        expect(line('Data access spend (USD/hour)', 'Data reads (USD/hour)', { dataread_bytes: [GiB / 12] }, Data)[0]).toBeCloseTo(0.035, 10);
        expect(widgets(Data).map((w) => w.properties.markdown ?? '').find((m) => m.startsWith('**Spend**')))
          .toContain('Effective 2026-11-01. Not in the Price List for the Region, so counted as $0 (the billed usage graphs show their part): oneZoneStoragePerGbMonth, oneZoneIaStoragePerGbMonth. ');
        // Writing 150 GB an hour at $0.07 is $252 a day: above the $25 budget in 2 of 3 hours trips it.
        const budget = deployed(alarm('DailySpend'), Data!) as AlarmProperties;
        const ids = ['dataread_bytes', 'metadataread_bytes', 'metadatawrite_bytes', 'standard_bytes', 'ia_bytes', 'iasizeoverhead_bytes', 'archive_bytes', 'archivesizeoverhead_bytes'];
        const hour = (gb: number) => ({ 'id:datawrite_bytes': [gb * GiB, gb * GiB, 0], ...Object.fromEntries(ids.map((id) => [`id:${id}`, [0, 0, 0]])) });
        expect(alarmFires(budget, hour(150))).toBe(true);
        expect(alarmFires(budget, hour(1))).toBe(false);
      } finally {
        await standIn.close();
      }
    });

    test('two monitored file systems in a stack share one lookup', () => {
      stackIn('ap-south-2');
      monitored(efs.ThroughputMode.ELASTIC);
      new SharedFileSystem(stack, 'Other', { vpc }).addMonitoring('Monitoring');
      Template.fromStack(stack).resourceCountIs('Custom::CdkEfsKitEfsPrices', 1);
      expectNothingStrictFailsOn();
    });

    test('cdk-nag and cfn-lint clean, the lookup included', () => {
      stackIn('eu-west-1');
      monitored(efs.ThroughputMode.PROVISIONED, { dailySpendLimit: AlarmThreshold.usd(25) });
      expect(nagErrors(stack).filter((e) => !/Vpc/.test(e))).toEqual([]);
      expect(cfnLintErrors(Template.fromStack(stack).toJSON())).toEqual([]);
    });
  });

  test('an environment-agnostic stack keeps us-east-1 prices, says so in the row, and has nothing --strict fails on', () => {
    stackIn(undefined);
    monitored(efs.ThroughputMode.ELASTIC);
    expect(line('Spend per day (USD/day)', 'Standard storage (USD/day)', { standard_bytes: [730 * GiB] })[0]).toBeCloseTo(24 * EfsPricing.US_EAST_1.standardStoragePerGbMonth, 8);
    expect(spendNote()).toContain("estimated at us-east-1 list prices, Regional, checked 2026-11-24 (the stack's Region is not known at synth).");
    expectNothingStrictFailsOn();
  });

  test('an imported file system without oneZone is priced as Regional, and the row says it assumed so', () => {
    const imported = efs.FileSystem.fromFileSystemAttributes(stack, 'Imported', {
      fileSystemId: 'fs-0123456789abcdef0',
      securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'Sg', 'sg-0123456789abcdef0'),
    });
    new FileSystemMonitoring(stack, 'Legacy', { fileSystem: imported, throughputMode: efs.ThroughputMode.ELASTIC, pricing: prices });
    // Regional Standard: $73 a GB-month, $2.40 a day (One Zone's would be $1.20).
    expect(line('Spend per day (USD/day)', 'Standard storage (USD/day)', { standard_bytes: [10 * GiB] })[0]).toBeCloseTo(24, 8);
    expect(spendNote()).toContain('Storage at Regional prices: oneZone was not given, so the file system is taken as Regional (the common case); give oneZone: true for a One Zone one.');
    expectNothingStrictFailsOn();
  });

  test('alarms by throughput mode: the anomaly alarm on by default for Elastic only, the budget off until given, both in the spend composite and not in the unhealthy one', () => {
    const topic = new sns.Topic(stack, 'Topic');
    const m = new SharedFileSystem(stack, 'Files', { vpc }).addMonitoring('Monitoring', { alarmTopic: topic, alarms: { dailySpendLimit: AlarmThreshold.usd(40) } });
    expect(Object.keys(m.alarms)).toEqual(['throughputUtilization', 'percentIOLimit', 'dailySpend', 'dataAccessAnomaly']);
    const composites = Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::CompositeAlarm')).map((r) => r.Properties);
    const ruleOf = (description: RegExp) => JSON.stringify(composites.find((c) => description.test(c.AlarmDescription))!.AlarmRule);
    const spendIds = Object.keys(alarms()).filter((id) => /DailySpend|DataAccessAnomaly/.test(id));
    expect(spendIds).toHaveLength(2);
    for (const id of spendIds) {
      expect(ruleOf(/a spend alarm \(dailySpend, dataAccessAnomaly\)/)).toContain(id);
      expect(ruleOf(/one of its alarms/)).not.toContain(id);
    }
    for (const c of composites) expect(c.AlarmActions).toEqual([{ Ref: expect.stringMatching(/^Topic/) }]);

    for (const mode of [efs.ThroughputMode.BURSTING, efs.ThroughputMode.PROVISIONED]) {
      stack = new Stack(new App(), mode);
      vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
      const { files, monitoring } = monitored(mode);
      expect(Object.keys(monitoring.alarms).filter((k) => /Spend|Anomaly/.test(k))).toEqual([]);
      expect(monitoring.spendAlarm).toBeUndefined();
      const budgeted = files.addMonitoring('Budgeted', { alarms: { dailySpendLimit: AlarmThreshold.usd(5) } });
      expect(Object.keys(budgeted.alarms).filter((k) => /Spend|Anomaly/.test(k))).toEqual(['dailySpend']);
      expect(budgeted.spendAlarm).toBeDefined();
    }
  });

  test('the anomaly alarm: MeteredIOBytes per hour above the upper edge of its band, 2 of 3 hours, band width settable', () => {
    monitored(efs.ThroughputMode.ELASTIC, { dataAccessAnomaly: AlarmThreshold.standardDeviations(5) });
    const a = alarm('DataAccessAnomaly') as AlarmProperties & { ThresholdMetricId: string };
    expect(a).toMatchObject({ ComparisonOperator: 'GreaterThanUpperThreshold', EvaluationPeriods: 3, DatapointsToAlarm: 2, TreatMissingData: 'notBreaching' });
    expect(a.Threshold).toBeUndefined();
    const band = a.Metrics!.find((m) => m.Expression)!;
    expect(a.ThresholdMetricId).toBe(band.Id);
    expect(band.Expression).toBe('ANOMALY_DETECTION_BAND(m0, 5)');
    expect(a.Metrics!.find((m) => m.Id === 'm0')!.MetricStat).toMatchObject({ Metric: { Namespace: 'AWS/EFS', MetricName: 'MeteredIOBytes' }, Period: HOUR, Stat: 'Sum' });
  });

  test('fails when a spend alarm gets a bad value, another unit, or a mode that does not bill access', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    expect(() => files.addMonitoring('A', { alarms: { dailySpendLimit: AlarmThreshold.usd(0) } }))
      .toThrow('FileSystemMonitoring(Test/Files/A): alarms.dailySpendLimit (alarms.daily_spend_limit) must be a budget in US dollars above 0, got 0.');
    expect(() => files.addMonitoring('B', { alarms: { dailySpendLimit: AlarmThreshold.percent(50) } }))
      .toThrow('FileSystemMonitoring(Test/Files/B): alarms.dailySpendLimit (alarms.daily_spend_limit) takes AlarmThreshold.usd(...) or AlarmThreshold.off(), got AlarmThreshold.percent(50).');
    expect(() => files.addMonitoring('C', { alarms: { dataAccessAnomaly: AlarmThreshold.standardDeviations(-1) } }))
      .toThrow('FileSystemMonitoring(Test/Files/C): alarms.dataAccessAnomaly (alarms.data_access_anomaly) must be a band width above 0 standard deviations, got -1.');
    const bursting = new SharedFileSystem(stack, 'Bursting', { vpc, throughputMode: efs.ThroughputMode.BURSTING });
    expect(() => bursting.addMonitoring('D', { alarms: { dataAccessAnomaly: AlarmThreshold.standardDeviations(3) } }))
      .toThrow('FileSystemMonitoring(Test/Bursting/D): alarms.dataAccessAnomaly (alarms.data_access_anomaly) applies to throughputMode (throughput_mode) ELASTIC only (data access billed per GB), got AlarmThreshold.standardDeviations(3) with throughputMode bursting.');
    bursting.addMonitoring('E', { alarms: { dataAccessAnomaly: AlarmThreshold.off() } });
  });
});

describe('seeds', () => {
  test('a Lambda seed gets a row with its progress, rate and failures, and an alarm that trips on one failure', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
    files.addSeed('Content', { accessPoint: web, source: SeedSource.asset(siteDir) });
    files.addMonitoring('Monitoring');
    expect(titles()).toEqual(expect.arrayContaining(['Seed files written', 'Seed rate (files/s)', 'Seed failures']));
    const seedWidget = widgets().find((w) => w.properties.title === 'Seed files written')!;
    const [namespace, name, ...dimensions] = seedWidget.properties.metrics![0].slice(0, 6) as string[];
    expect([namespace, name]).toEqual(['CdkEfsKit', 'SeedFilesWritten']);
    // The dimensions Powertools publishes: its `service`, and the seed's construct path.
    expect(Object.fromEntries([[dimensions[0], dimensions[1]], [dimensions[2], dimensions[3]]])).toEqual({ service: 'cdk-efs-kit-seed', Seed: 'Test/Files/Content' });
    const a = alarm('SeedFailuresContent');
    // Requests of this seed that its handler failed (the time limit running out included): the seed's own
    // metric, as the functions serve every seed on the access point.
    const none = { 'SeedFilesFailed:Sum': [NaN], 'SeedRunsFailed:Sum': [NaN] };
    expect(alarmFires(a, { ...none, 'SeedRunsFailed:Sum': [1] })).toBe(true);
    expect(alarmFires(a, { ...none, 'SeedFilesFailed:Sum': [3] })).toBe(true);
    expect(alarmFires(a, { ...none, 'SeedFilesFailed:Sum': [0] })).toBe(false);
    expect(alarmFires(a, none)).toBe(false);
  });

  test('a DataSync seed shows the files its executions transfer, and alarms on failed executions through an EventBridge rule', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    const ap = files.addAccessPoint('Data', AccessPointPreset.applicationUser('/data'));
    const bucket = new s3.Bucket(stack, 'Bucket');
    files.addSeed('Import', { accessPoint: ap, source: SeedSource.s3(bucket, 'data/'), engine: SeedEngine.dataSync() });
    files.addMonitoring('Monitoring');
    const rule = Object.values(Template.fromStack(stack).findResources('AWS::Events::Rule'))[0].Properties;
    expect(rule.EventPattern).toMatchObject({ 'source': ['aws.datasync'], 'detail-type': ['DataSync Task Execution State Change'], 'detail': { State: ['ERROR'] } });
    expect(rule.EventPattern.resources[0].prefix['Fn::Join'][1]).toEqual([{ 'Fn::GetAtt': [expect.stringMatching(/Task/), 'TaskArn'] }, '/execution/']);
    const a = alarm('SeedFailuresImport');
    expect(alarmFires(a, { 'MatchedEvents:Sum': [1] })).toBe(true);
    expect(alarmFires(a, { 'MatchedEvents:Sum': [NaN] })).toBe(false);
    // DataSync's own metric for the task, whether or not the deploy waits for it.
    const written = widgets().find((w) => w.properties.title === 'Seed files written')!;
    expect(written.properties.metrics![0].slice(0, 4)).toEqual(['AWS/DataSync', 'FilesTransferred', 'TaskId', 'TOKEN']);
    expect(titles()).not.toContain('Seed rate (files/s)');
  });

  test('a Distributed Map seed alarms on failed files and on executions that failed, timed out or were stopped', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    const ap = files.addAccessPoint('Data', AccessPointPreset.applicationUser('/data'));
    const bucket = new s3.Bucket(stack, 'Bucket');
    files.addSeed('Import', { accessPoint: ap, source: SeedSource.s3(bucket, 'data/'), engine: SeedEngine.distributedMap() });
    files.addMonitoring('Monitoring');
    const a = alarm('SeedFailuresImport');
    const none = { 'SeedFilesFailed:Sum': [NaN], 'ExecutionsFailed:Sum': [NaN], 'ExecutionsTimedOut:Sum': [NaN], 'ExecutionsAborted:Sum': [NaN] };
    expect(alarmFires(a, none)).toBe(false);
    for (const metric of ['SeedFilesFailed:Sum', 'ExecutionsFailed:Sum', 'ExecutionsTimedOut:Sum', 'ExecutionsAborted:Sum']) {
      expect(alarmFires(a, { ...none, [metric]: [1] })).toBe(true);
    }
  });
});

describe('alarm ids', () => {
  test('a seed\'s and a probe\'s alarms are named by their construct ids: adding one before them leaves their logical ids as they were', () => {
    const idsWith = (seedsFirst: string[]) => {
      stack = new Stack(new App(), 'Test');
      vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
      const files = new SharedFileSystem(stack, 'Files', { vpc });
      const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
      for (const id of seedsFirst) files.addSeed(id, { accessPoint: web, source: SeedSource.asset(siteDir), targetPath: `/${id}` });
      files.addSeed('Content', { accessPoint: web, source: SeedSource.asset(siteDir), targetPath: '/content' });
      files.addProbe('Probe');
      files.addMonitoring('Monitoring');
      return Object.keys(alarms()).filter((id) => id.includes('SeedFailuresContent') || id.includes('ProbeFailuresProbe'));
    };
    const before = idsWith([]);
    expect(before).toHaveLength(2);
    expect(idsWith(['Assets'])).toEqual(before);
  });

  test('two seeds with one id under different scopes are told apart by their paths', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
    const a = new FileSystemSeed(new Construct(stack, 'A'), 'Content', { fileSystem: files, accessPoint: web, source: SeedSource.asset(siteDir), targetPath: '/a' });
    const b = new FileSystemSeed(new Construct(stack, 'B'), 'Content', { fileSystem: files, accessPoint: web, source: SeedSource.asset(siteDir), targetPath: '/b' });
    files.addMonitoring('Monitoring', { seeds: [a, b] });
    expect(Object.keys(alarms()).filter((id) => id.includes('SeedFailures')).map((id) => id.replace(/[A-F0-9]{8}$/, '')).sort())
      .toEqual(['FilesMonitoringSeedFailuresTestAContent', 'FilesMonitoringSeedFailuresTestBContent']);
  });
});

describe('probes', () => {
  // `values` on the small operation at `slow`, 5 ms on the others: the alarm must see each of them.
  const p99 = (values: number[], slow = 0, count = CANARY_SMALL_OPERATIONS.length) =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`id:p99_${i}`, i === slow ? values : repeat(values.length, 5)]));

  test('a probe gets a row with its latency percentiles and throughput for whatever it ran (SEARCH over its metrics)', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    files.addProbe('Probe');
    files.addMonitoring('Monitoring');
    expect(titles()).toEqual(expect.arrayContaining(['Probe latency p50 (ms)', 'Probe latency p99 (ms)', 'Probe throughput (bytes/s) and failures']));
    const p99Widget = widgets().find((w) => w.properties.title === 'Probe latency p99 (ms)')!;
    const search = (p99Widget.properties.metrics![0][0] as { expression: string }).expression;
    expect(search).toBe(`SEARCH('{CdkEfsKit,FileSystemId,Operation,Scenario} MetricName="LatencyP99" FileSystemId="TOKEN"', 'Average', 300)`);
    expectDocumentedMetricsAndResolvedIds(widgets());
  });

  test('probe failures: one failed scenario, refused request or failed invocation trips the alarm', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    files.addProbe('Probe');
    files.addMonitoring('Monitoring');
    const a = alarm('ProbeFailuresProbe');
    expect(alarmFires(a, { 'ProbeFailures:Sum': [1], 'Errors:Sum': [NaN] })).toBe(true);
    expect(alarmFires(a, { 'ProbeFailures:Sum': [NaN], 'Errors:Sum': [1] })).toBe(true);
    expect(alarmFires(a, { 'ProbeFailures:Sum': [0], 'Errors:Sum': [0] })).toBe(false);
    expect(alarmFires(a, { 'ProbeFailures:Sum': [NaN], 'Errors:Sum': [NaN] })).toBe(false);
  });

  test('a canary probe adds a p99 SLO alarm on the slowest small operation: 2 of 3 runs above 50 ms trip it', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    files.addProbe('Probe', { canary: { interval: Duration.minutes(10) } });
    files.addMonitoring('Monitoring');
    const a = alarm('ProbeLatencyProbe');
    expect(a.Metrics!.filter((m) => m.MetricStat).map((m) => m.MetricStat!.Metric.MetricName)).toEqual(Array(CANARY_SMALL_OPERATIONS.length).fill('LatencyP99'));
    expect(a.Metrics!.filter((m) => m.MetricStat).every((m) => m.MetricStat!.Period === 600)).toBe(true);
    CANARY_SMALL_OPERATIONS.forEach((_, slow) => {
      expect(alarmFires(a, p99([60, 8, 8], slow))).toBe(false);
      expect(alarmFires(a, p99([8, 60, 70], slow))).toBe(true);
      expect(alarmFires(a, p99([60, 8, 70], slow))).toBe(true);
      expect(alarmFires(a, p99([40, 45, 49], slow))).toBe(false);
      expect(alarmFires(a, p99([NaN, NaN, NaN], slow))).toBe(false);
    });
  });

  test('the latency alarm watches the small operations the canary\'s own request runs, and warns when it runs none', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    files.addProbe('Metadata', { canary: { interval: Duration.minutes(5), request: { scenarios: { metadata: { files: 16 } } } } });
    files.addProbe('Throughput', { canary: { interval: Duration.minutes(5), request: { scenarios: { 'block-sync': {} } } } });
    files.addMonitoring('Monitoring');
    const a = alarm('ProbeLatencyMetadata');
    const scenarioOf = (metric: object) => (metric as { Dimensions: Array<{ Name: string; Value: unknown }> }).Dimensions.find((d) => d.Name === 'Scenario')!.Value;
    expect(a.Metrics!.filter((m) => m.MetricStat).map((m) => scenarioOf(m.MetricStat!.Metric))).toEqual(['metadata', 'metadata', 'metadata']);
    expect(alarmFires(a, p99([60, 70, 80], 2, 3))).toBe(true);
    expect(Object.keys(alarms()).filter((id) => id.includes('ProbeLatency'))).toHaveLength(1);
    Annotations.fromStack(stack).hasWarning('*', Match.stringLikeRegexp('canary runs none of metadata and write-sizes'));
  });

  test('the SLO is settable or off, and probes without a canary get no latency alarm', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    files.addProbe('Manual');
    files.addProbe('Canary', { canary: { interval: Duration.minutes(5) } });
    files.addMonitoring('Monitoring', { alarms: { probeLatencyP99: AlarmThreshold.duration(Duration.millis(20)) } });
    expect(Object.keys(alarms()).filter((id) => id.includes('ProbeLatency')).map((id) => id.replace(/[A-F0-9]{8}$/, ''))).toEqual(['FilesMonitoringProbeLatencyCanary']);
    const a = alarm('ProbeLatencyCanary');
    expect(a.Threshold).toBe(20);
    expect(alarmFires(a, p99([25, 25, 25]))).toBe(true);

    stack = new Stack(new App(), 'Off');
    vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
    const other = new SharedFileSystem(stack, 'Files', { vpc });
    other.addProbe('Canary', { canary: { interval: Duration.minutes(5) } });
    other.addMonitoring('Monitoring', { alarms: { probeLatencyP99: AlarmThreshold.off() } });
    expect(Object.keys(alarms()).some((id) => id.includes('ProbeLatency'))).toBe(false);
  });
});

test('cdk-nag and cfn-lint clean', () => {
  const topic = new sns.Topic(stack, 'Topic', { enforceSSL: true });
  const files = new SharedFileSystem(stack, 'Files', { vpc, throughputMode: efs.ThroughputMode.BURSTING });
  files.addProbe('Probe', { canary: { interval: Duration.minutes(5) } });
  files.addMonitoring('Monitoring', { alarmTopic: topic, alarms: { minimumClientConnections: AlarmThreshold.count(2) } });
  // Both spend alarms, the anomaly detection one included, and the Provisioned fixed line.
  new SharedFileSystem(stack, 'Elastic', { vpc }).addMonitoring('Monitoring', { alarmTopic: topic, alarms: { dailySpendLimit: AlarmThreshold.usd(20) } });
  new SharedFileSystem(stack, 'Provisioned', { vpc, throughputMode: efs.ThroughputMode.PROVISIONED, provisionedThroughputPerSecond: Size.mebibytes(10) })
    .addMonitoring('Monitoring', { alarms: { dailySpendLimit: AlarmThreshold.usd(20) } });
  expect(nagErrors(stack).filter((e) => !/Vpc|Topic/.test(e))).toEqual([]);
  expect(cfnLintErrors(Template.fromStack(stack).toJSON())).toEqual([]);
});

describe('replication', () => {
  const REPLICA = 'fs-0123456789abcdef0';
  const importedReplica = () => efs.FileSystem.fromFileSystemAttributes(stack, 'Replica', {
    fileSystemId: REPLICA, securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'ReplicaSg', 'sg-0123456789abcdef0'),
  });
  const replicating = (replicationConfiguration: efs.ReplicationConfiguration, alarms: FileSystemAlarmOptions = {}) =>
    new SharedFileSystem(stack, 'Files', { vpc, replicationConfiguration }).addMonitoring('Monitoring', { alarms });

  test('an existing destination: TimeSinceLastSync with both its dimensions, in the composite alarm', () => {
    const monitoring = replicating(efs.ReplicationConfiguration.existingFileSystem(importedReplica()));
    const lag = alarm('ReplicationLag');
    expect(lag).toMatchObject({
      Namespace: 'AWS/EFS', MetricName: 'TimeSinceLastSync', Statistic: 'Maximum', Period: 300,
      Threshold: 3600, EvaluationPeriods: 3, DatapointsToAlarm: 3, ComparisonOperator: 'GreaterThanThreshold', TreatMissingData: 'notBreaching',
    });
    expect((lag as any).Dimensions).toEqual([
      { Name: 'DestinationFileSystemId', Value: REPLICA },
      { Name: 'FileSystemId', Value: stack.resolve((monitoring.node.scope as SharedFileSystem).fileSystemId) },
    ]);
    expect(Object.keys(monitoring.alarms)).toContain('replicationLag');
    const rule = JSON.stringify(Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::CompositeAlarm'))[0].Properties.AlarmRule);
    expect(rule).toContain(Object.keys(alarms()).find((id) => id.startsWith('FilesMonitoringReplicationLag')));
  });

  test('trips when the last sync is more than an hour old for 15 minutes; 50 minutes or a dip does not', () => {
    replicating(efs.ReplicationConfiguration.existingFileSystem(importedReplica()));
    const lag = alarm('ReplicationLag');
    expect(alarmFires(lag, { 'TimeSinceLastSync:Maximum': repeat(3, 4000) })).toBe(true);
    expect(alarmFires(lag, { 'TimeSinceLastSync:Maximum': repeat(3, 3000) })).toBe(false);
    expect(alarmFires(lag, { 'TimeSinceLastSync:Maximum': [4000, 600, 4000] })).toBe(false);
  });

  test('a new destination: a Metrics Insights query over both dimensions, for this source', () => {
    replicating(efs.ReplicationConfiguration.regionalFileSystem('us-west-2'));
    const lag = alarm('ReplicationLag');
    expect(lag.Metrics).toHaveLength(1);
    const query = lag.Metrics![0] as any;
    expect(query.Period).toBe(300);
    expect(stack.resolve(query.Expression)).toEqual({
      'Fn::Join': ['', [
        'SELECT MAX(TimeSinceLastSync) FROM SCHEMA("AWS/EFS", DestinationFileSystemId, FileSystemId) WHERE FileSystemId = \'',
        { Ref: expect.stringMatching(/^Files/) }, '\'',
      ]],
    });
  });

  test('a row with a note and the graph, with the threshold drawn', () => {
    replicating(efs.ReplicationConfiguration.existingFileSystem(importedReplica()));
    const all = widgets();
    const graphAt = all.findIndex((w) => w.properties.title === 'TimeSinceLastSync (s)');
    expect(graphAt).toBeGreaterThan(0);
    expect(all[graphAt - 1].properties.markdown).toMatch(/^\*\*Replication\.\*\* Seconds since the last successful sync/);
    expect(JSON.stringify(all[graphAt].properties)).toContain('"value":3600');
  });

  test('an imported file system, told its destination', () => {
    new FileSystemMonitoring(stack, 'Legacy', {
      fileSystem: efs.FileSystem.fromFileSystemAttributes(stack, 'Old', {
        fileSystemId: 'fs-00000000000000001', securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'OldSg', 'sg-00000000000000001'),
      }),
      throughputMode: efs.ThroughputMode.ELASTIC,
      replicationDestinationFileSystemId: REPLICA,
      alarms: { replicationLag: AlarmThreshold.duration(Duration.minutes(30)) },
    });
    const lag = Object.entries(alarms()).find(([id]) => id.startsWith('LegacyReplicationLag'))![1] as any;
    expect(lag.Threshold).toBe(1800);
    expect(lag.Dimensions).toEqual([{ Name: 'DestinationFileSystemId', Value: REPLICA }, { Name: 'FileSystemId', Value: 'fs-00000000000000001' }]);
  });

  test('across accounts, the destination id comes from its ARN', () => {
    stack = new Stack(new App(), 'Cross', { env: { account: '111111111111', region: 'us-east-1' } });
    vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
    const replica = efs.FileSystem.fromFileSystemAttributes(stack, 'Replica', {
      fileSystemArn: `arn:aws:elasticfilesystem:us-west-2:222222222222:file-system/${REPLICA}`,
      securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'ReplicaSg', 'sg-0123456789abcdef0'),
    });
    replicating(efs.ReplicationConfiguration.existingFileSystem(replica));
    expect((alarm('ReplicationLag') as any).Dimensions[0]).toEqual({ Name: 'DestinationFileSystemId', Value: REPLICA });
  });

  test('no replication, no row and no alarm; replicationLag off keeps the row only', () => {
    monitored(efs.ThroughputMode.ELASTIC);
    expect(widgets().some((w) => w.properties.title === 'TimeSinceLastSync (s)')).toBe(false);
    stack = new Stack(new App(), 'Off');
    vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
    replicating(efs.ReplicationConfiguration.regionalFileSystem(), { replicationLag: AlarmThreshold.off() });
    expect(widgets().some((w) => w.properties.title === 'TimeSinceLastSync (s)')).toBe(true);
    expect(Object.keys(alarms()).some((id) => id.includes('ReplicationLag'))).toBe(false);
  });

  test('fails when replicationLag is set for a file system that does not replicate', () => {
    expect(() => monitored(efs.ThroughputMode.ELASTIC, { replicationLag: AlarmThreshold.duration(Duration.hours(2)) }))
      .toThrow(/alarms.replicationLag \(alarms\.replication_lag\) applies to a replicating file system only; pass replicationDestinationFileSystemId \(replication_destination_file_system_id\) for one not defined in this app, got AlarmThreshold.duration\(2 hours\)\./);
  });

  test('fails when replicationLag is shorter than the alarm\'s period', () => {
    expect(() => replicating(efs.ReplicationConfiguration.regionalFileSystem(), { replicationLag: AlarmThreshold.duration(Duration.minutes(2)) }))
      .toThrow(/alarms.replicationLag \(alarms\.replication_lag\) must be at least 5 minutes \(the alarm's period\), got "2 minutes"\./);
  });

  test('fails when replicationLag is not a duration', () => {
    expect(() => replicating(efs.ReplicationConfiguration.regionalFileSystem(), { replicationLag: AlarmThreshold.percent(50) }))
      .toThrow(/alarms.replicationLag \(alarms\.replication_lag\) takes AlarmThreshold.duration\(...\) or AlarmThreshold.off\(\), got AlarmThreshold.percent\(50\)\./);
  });

  test('is cdk-nag and cfn-lint clean', () => {
    replicating(efs.ReplicationConfiguration.oneZoneFileSystem('us-west-2', 'us-west-2a'));
    expect(nagErrors(stack.node.findChild('Files'))).toEqual([]);
    expect(cfnLintErrors(Template.fromStack(stack).toJSON())).toEqual([]);
  });
});
