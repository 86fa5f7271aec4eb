import { Annotations, Arn, ArnFormat, Duration, Size, SizeRoundingBehavior, Stack, Token } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cw_actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct, IConstruct } from 'constructs';
import { EfsMetricName, EfsMetrics, IoKind, StorageClass } from './efs-metrics';
import { PROBE_METRIC } from '../probe/contract/metric-names';
import { CANARY_SMALL_OPERATIONS } from '../probe/canary';
import { BenchmarkProbe, LatencyPercentile } from '../probe/benchmark-probe';
import type { FileSystemSeed } from '../seed/file-system-seed';
import { AlarmThreshold } from './alarm-threshold';
import { SeedEngineKind } from '../seed/seed-engine-options';
import { EfsPricing } from '../cost/efs-pricing';
import type { SpendModel } from './spend-math';
import { addSpendRow, SpendAlarmSettings } from './spend-row';
import { addReplicationRow, ReplicationWatch } from './replication-row';
import { graph, GRAPH_HEIGHT, note, TEXT_WIDTH, WIDTH } from './dashboard-widgets';
import { brand, hasBrand } from '../core/type-brand';
import { check } from '../core/validate';
import { ValidationError } from '../core/validation-error';

/**
 * The alarms of a [FileSystemMonitoring](#cdk-efs-kit.FileSystemMonitoring): each has a default threshold, and
 * `AlarmThreshold.off()` turns it off.
 */
export interface FileSystemAlarmOptions {
  /**
   * Percent of the permitted throughput in use for 15 minutes (MeteredIOBytes over
   * PermittedThroughput), as `AlarmThreshold.percent(n)`. Past 80% for that long, the next peak is
   * throttled.
   * @default AlarmThreshold.percent(80)
   */
  readonly throughputUtilization?: AlarmThreshold;
  /**
   * PercentIOLimit (General Purpose mode) for 15 minutes, as `AlarmThreshold.percent(n)`. AWS
   * recommends 100; at 95 there is still time to act.
   * @default AlarmThreshold.percent(95)
   */
  readonly percentIOLimit?: AlarmThreshold;
  /**
   * Bursting only: alarm when, at the rate of the last hour, the burst credits run out within this
   * time, as `AlarmThreshold.duration(d)` (1 hour to under 30 days). The early warning AWS's own
   * `BurstCreditBalance <= 0` alarm lacks.
   * @default AlarmThreshold.duration(Duration.hours(24))
   */
  readonly creditsRunOutWithin?: AlarmThreshold;
  /**
   * Bursting only: BurstCreditBalance (Minimum) at or below this for 15 minutes, as
   * `AlarmThreshold.size(s)`: throughput is at the baseline already (AWS's recommended alarm, at 0).
   * @default AlarmThreshold.size(Size.bytes(0))
   */
  readonly burstCreditFloor?: AlarmThreshold;
  /**
   * Alarm when fewer clients than this are connected for 5 minutes (ClientConnections), as
   * `AlarmThreshold.count(n)`, e.g. the number of tasks that should have the file system mounted.
   * @default AlarmThreshold.off() - a file system may be idle
   */
  readonly minimumClientConnections?: AlarmThreshold;
  /**
   * Alarm when a seed (passed in `seeds`) fails to copy files or fails a run.
   * @default true
   */
  readonly seedFailures?: boolean;
  /**
   * Probes with a canary (passed in `probes`): alarm when the p99 latency of the slowest small
   * operation (open+close, stat, create, a 1 KiB file write) is above this in 2 of 3 canary runs,
   * as `AlarmThreshold.duration(d)`. This is the latency a web application or CMS feels per file
   * it touches.
   * @default AlarmThreshold.duration(Duration.millis(50))
   */
  readonly probeLatencyP99?: AlarmThreshold;
  /**
   * Alarm when a probe (passed in `probes`) fails: a scenario failed or hit errors, a request was
   * refused, or the function failed.
   * @default true
   */
  readonly probeFailures?: boolean;
  /**
   * Alarm when the projected daily spend is above this budget in 2 of the last 3 hours, as
   * `AlarmThreshold.usd(n)`: the last hour's data access (Elastic) 24 times, plus a day of
   * Provisioned throughput and of storage by class, at the monitoring's `pricing`. A spend alarm:
   * not part of `unhealthyAlarm`, but of `spendAlarm`.
   * @default AlarmThreshold.off() - the budget is yours to give
   */
  readonly dailySpendLimit?: AlarmThreshold;
  /**
   * Elastic only: alarm when MeteredIOBytes per hour is above the upper edge of its CloudWatch
   * anomaly detection band in 2 of 3 hours, as `AlarmThreshold.standardDeviations(n)` (the band's
   * width). CloudWatch learns the band from the file system's own history (up to two weeks, daily
   * and weekly patterns included), so there is no budget to choose: it fires when access is far
   * above normal, e.g. a job re-reading the same files in a loop. A spend alarm, as `dailySpendLimit`.
   * Bursting and Provisioned do not bill access per GB: setting it for them is an error.
   * @default AlarmThreshold.standardDeviations(3) with Elastic throughput, else off
   */
  readonly dataAccessAnomaly?: AlarmThreshold;
  /**
   * A replicating file system: alarm when TimeSinceLastSync (seconds since the last sync to the
   * destination) stays above this for 15 minutes, as `AlarmThreshold.duration(d)` (at least 5
   * minutes). EFS aims for 15 minutes on most file systems, so the default alarms on a stall, not on
   * a busy hour. Setting it for a file system that does not replicate is an error.
   * @default AlarmThreshold.duration(Duration.hours(1)) when the file system replicates, else off
   */
  readonly replicationLag?: AlarmThreshold;
}

/** What [SharedFileSystem.addMonitoring](#cdk-efs-kit.SharedFileSystem.addMonitoring) takes: a [FileSystemMonitoring](#cdk-efs-kit.FileSystemMonitoring)'s settings, the file system aside. */
export interface MonitoringOptions {
  /**
   * The dashboard to add rows to; several file systems can share one.
   * @default - a new dashboard
   */
  readonly dashboard?: cloudwatch.Dashboard;
  /**
   * Name of the new dashboard (when `dashboard` is not given).
   * @default - generated by CloudFormation
   */
  readonly dashboardName?: string;
  /**
   * Heading of this file system's rows.
   * @default - the construct path
   */
  readonly title?: string;
  /**
   * Alarm thresholds.
   * @default - every alarm at its default threshold
   */
  readonly alarms?: FileSystemAlarmOptions;
  /**
   * Notified when the composite "file system unhealthy" alarm changes to ALARM and back to OK.
   * @default - no notification
   */
  readonly alarmTopic?: sns.ITopic;
  /**
   * Seeds that fill this file system: their progress, rate and failures get a row and an alarm.
   * @default - none; `SharedFileSystem.addMonitoring` passes the seeds added so far
   */
  readonly seeds?: FileSystemSeed[];
  /**
   * Benchmark probes of this file system: their latency and throughput get a row, their failures
   * and canary latency alarms.
   * @default - none; `SharedFileSystem.addMonitoring` passes the probes added so far
   */
  readonly probes?: BenchmarkProbe[];
  /**
   * The prices of the spend row and the daily spend alarm.
   * @default EfsPricing.US_EAST_1 (with a synth warning when the stack is in another Region)
   */
  readonly pricing?: EfsPricing;
}

/** Properties of a [FileSystemMonitoring](#cdk-efs-kit.FileSystemMonitoring). */
export interface FileSystemMonitoringProps extends MonitoringOptions {
  /** The file system to watch: a SharedFileSystem's `fileSystem`, any `efs.FileSystem`, or an imported one. */
  readonly fileSystem: efs.IFileSystem;
  /**
   * Its throughput mode, which decides the credit widgets and alarms.
   * @default - read from the file system when it is defined in this app; required for imported ones
   */
  readonly throughputMode?: efs.ThroughputMode;
  /**
   * Its performance mode (PercentIOLimit exists in General Purpose mode only).
   * @default - read from the file system when it is defined in this app, else GENERAL_PURPOSE
   */
  readonly performanceMode?: efs.PerformanceMode;
  /**
   * Its provisioned throughput (throughputMode PROVISIONED only), which the spend row bills.
   * @default - read from the file system when it is defined in this app; required for imported Provisioned ones
   */
  readonly provisionedThroughputPerSecond?: Size;
  /**
   * Whether it is a One Zone file system, whose storage has One Zone prices.
   * @default - read from the file system when it is defined in this app, else false
   */
  readonly oneZone?: boolean;
  /**
   * The id of the file system it replicates to: adds the replication row and the
   * `replicationLag` alarm, on TimeSinceLastSync with both its dimensions.
   * @default - read from the file system when it is defined in this app (a destination EFS creates
   * at deploy time is matched by a Metrics Insights query on the source's id); none for imported ones
   */
  readonly replicationDestinationFileSystemId?: string;
}

/** The alarm settings with their defaults applied and checked: undefined is off. */
interface AlarmSettings extends SpendAlarmSettings {
  readonly throughputUtilization?: number;
  readonly percentIOLimit?: number;
  readonly creditsRunOutWithin?: Duration;
  readonly burstCreditFloor?: Size;
  readonly minimumClientConnections?: number;
  readonly seedFailures: boolean;
  readonly probeLatencyP99?: Duration;
  readonly probeFailures: boolean;
  readonly replicationLag?: Duration;
}

/**
 * A CloudWatch dashboard and alarms for an EFS file system, built on the metrics and the metric math
 * AWS documents: throughput by kind, IOPS and I/O size, permitted throughput used, PercentIOLimit,
 * burst credits and the time until they run out (Bursting), connections and storage by class, what
 * it costs (spend per hour and per day at an [EfsPricing](#cdk-efs-kit.EfsPricing)), and the seeds' progress. Each row
 * starts with a note on how to read it. A composite alarm ORs the health alarms, another the spend alarms.
 *
 * @example
 * // Any file system, imported ones too, given its throughput mode; files.addMonitoring(...) is the short form.
 * new FileSystemMonitoring(this, 'LegacyMonitoring', {
 *   fileSystem: imported,
 *   throughputMode: efs.ThroughputMode.BURSTING,
 *   alarms: { creditsRunOutWithin: AlarmThreshold.duration(Duration.hours(12)) },
 *   alarmTopic,
 *   dashboard,
 * });
 */
export class FileSystemMonitoring extends Construct {
  /** Whether `x` is a FileSystemMonitoring, made by any copy of this package. */
  public static isFileSystemMonitoring(x: any): x is FileSystemMonitoring {
    return hasBrand(x, 'FileSystemMonitoring');
  }

  /** The dashboard the rows were added to (new, or the one given). */
  public readonly dashboard: cloudwatch.Dashboard;
  /** Every alarm this construct created, by name (e.g. `throughputUtilization`, `dailySpend`). */
  public readonly alarms: Record<string, cloudwatch.Alarm> = {};
  /** ALARM when any alarm in `alarms` but the spend alarms is (none when every such alarm is off). */
  public readonly unhealthyAlarm?: cloudwatch.CompositeAlarm;
  /** ALARM when a spend alarm (`dailySpend`, `dataAccessAnomaly`) is (none when both are off). */
  public readonly spendAlarm?: cloudwatch.CompositeAlarm;
  /** The throughput mode the widgets and alarms were chosen for. */
  public readonly throughputMode: efs.ThroughputMode;
  /** The performance mode the widgets and alarms were chosen for. */
  public readonly performanceMode: efs.PerformanceMode;

  private readonly fileSystemId: string;

  constructor(scope: Construct, id: string, props: FileSystemMonitoringProps) {
    super(scope, id);
    brand(this, 'FileSystemMonitoring');
    const where = `FileSystemMonitoring(${this.node.path})`;
    this.fileSystemId = props.fileSystem.fileSystemId;
    const declared = declaredSettings(props.fileSystem);
    const throughputMode = props.throughputMode ?? declared.throughputMode;
    if (!throughputMode) {
      throw new ValidationError(`${where}: throughputMode is required for a file system not defined in this app (it decides the burst credit widgets and alarms), got undefined.`, this);
    }
    this.throughputMode = throughputMode;
    this.performanceMode = props.performanceMode ?? declared.performanceMode ?? efs.PerformanceMode.GENERAL_PURPOSE;
    const replication = props.replicationDestinationFileSystemId !== undefined
      ? { destinationFileSystemId: props.replicationDestinationFileSystemId } : declared.replication;
    const alarms = alarmSettings(this, where, props.alarms ?? {}, this.throughputMode, this.performanceMode, replication !== undefined);
    const spendModel = this.spendModel(where, props, declared);

    this.dashboard = props.dashboard ?? new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(3),
    });
    const title = props.title ?? this.node.path;
    this.dashboard.addWidgets(new cloudwatch.TextWidget({ markdown: `# ${title}\nEFS file system \`${this.fileSystemId}\`: ${this.throughputMode} throughput, ${this.performanceMode} performance mode.`, width: WIDTH, height: 2 }));
    this.addActivityRow();
    this.addLimitsRow(alarms);
    this.addClientsAndStorageRow(alarms);
    if (replication) {
      const lag = addReplicationRow(this, this.dashboard, this.fileSystemId, replication, alarms.replicationLag);
      if (lag) this.alarms.replicationLag = lag;
    }
    const spend = addSpendRow(this, this.dashboard, spendModel, alarms);
    const seeds = props.seeds ?? [];
    const probes = props.probes ?? [];
    seeds.forEach((seed) => this.addSeedRow(seed, alarmKeyOf(seed, seeds), alarms));
    probes.forEach((probe) => this.addProbeRow(probe, alarmKeyOf(probe, probes), alarms));

    const health = Object.values(this.alarms);
    Object.assign(this.alarms, spend);
    this.unhealthyAlarm = this.anyOf('Unhealthy', `EFS ${title}: one of its alarms is in ALARM.`, health, props.alarmTopic);
    this.spendAlarm = this.anyOf('Spend', `EFS ${title}: a spend alarm (${Object.keys(spend).join(', ')}) is in ALARM.`, Object.values(spend), props.alarmTopic);
  }

  /** A composite alarm of `alarms` that notifies `topic` (none when `alarms` is empty). */
  private anyOf(id: string, description: string, alarms: cloudwatch.Alarm[], topic?: sns.ITopic): cloudwatch.CompositeAlarm | undefined {
    if (alarms.length === 0) return undefined;
    const composite = new cloudwatch.CompositeAlarm(this, id, { alarmDescription: description, alarmRule: cloudwatch.AlarmRule.anyOf(...alarms) });
    if (topic) {
      composite.addAlarmAction(new cw_actions.SnsAction(topic));
      composite.addOkAction(new cw_actions.SnsAction(topic));
    }
    return composite;
  }

  /** The throughput mode's billing, the prices and the provisioned throughput; the prices warn when they are not the stack's Region's. */
  private spendModel(where: string, props: FileSystemMonitoringProps, declared: DeclaredSettings): SpendModel {
    const provisioned = this.throughputMode === efs.ThroughputMode.PROVISIONED;
    const given = props.provisionedThroughputPerSecond?.toMebibytes({ rounding: SizeRoundingBehavior.NONE });
    if (given !== undefined && !provisioned) {
      throw new ValidationError(`${where}: provisionedThroughputPerSecond applies to throughputMode PROVISIONED only, got ${given} MiB/s with throughputMode ${this.throughputMode}.`, this);
    }
    const provisionedMibps = given ?? (provisioned ? declared.provisionedMibps : undefined);
    if (provisioned && provisionedMibps === undefined) {
      throw new ValidationError(`${where}: provisionedThroughputPerSecond is required for a Provisioned file system not defined in this app (the spend row bills it), got undefined.`, this);
    }
    const region = Stack.of(this).region;
    if (!props.pricing && !Token.isUnresolved(region) && region !== 'us-east-1') {
      Annotations.of(this).addWarningV2('cdk-efs-kit:spendPricing',
        `The spend row and alarm use us-east-1 prices, but the stack is in ${region}: pass pricing: EfsPricing.custom({...}) with ${region}'s.`);
    }
    return {
      fileSystemId: this.fileSystemId,
      pricing: props.pricing ?? EfsPricing.US_EAST_1,
      throughputMode: this.throughputMode,
      oneZone: props.oneZone ?? declared.oneZone,
      provisionedMibps,
    };
  }

  /** What the file system is doing: throughput by kind, operations by kind, and their size. */
  private addActivityRow(): void {
    const kinds = [IoKind.DATA_READ, IoKind.DATA_WRITE, IoKind.METADATA];
    this.dashboard.addWidgets(
      note('**Activity.** Throughput and operations per second, split into data reads, data writes and metadata. '
        + 'Many small operations and a small average I/O size mean latency, not bandwidth, is the limit: '
        + 'parallelise across directories and use larger I/O.'),
      graph('Throughput (MiB/s)', kinds.map((k) => EfsMetrics.throughputMiBps(this.fileSystemId, k)), { stacked: true, label: 'MiB/s' }),
      graph('Operations per second', kinds.map((k) => EfsMetrics.iops(this.fileSystemId, k)), { stacked: true, label: 'ops/s' }),
      graph('Average I/O size (KiB)', [IoKind.DATA_READ, IoKind.DATA_WRITE].map((k) => EfsMetrics.averageIoSizeKiB(this.fileSystemId, k)), { label: 'KiB' }),
    );
  }

  /** How close the file system is to its limits, and the alarms on them. */
  private addLimitsRow(alarms: AlarmSettings): void {
    const utilization = EfsMetrics.permittedThroughputUtilization(this.fileSystemId);
    const widgets: cloudwatch.IWidget[] = [
      note('**Limits.** Permitted throughput used is metered throughput over what the mode allows (Elastic: the '
        + 'write maximum; reads count one third). Sustained above 80% means throttling is near. '
        + (this.throughputMode === efs.ThroughputMode.BURSTING
          ? 'On Bursting, throughput above the baseline spends credits; the hours-left line is the time until they run out at the last hour\'s rate (capped at 30 days).'
          : '')),
      graph('Permitted throughput used (%)', [utilization], { label: '%', max: 100 }),
    ];
    const threshold = alarms.throughputUtilization;
    if (threshold !== undefined) {
      this.alarms.throughputUtilization = utilization.createAlarm(this, 'ThroughputUtilization', {
        alarmDescription: `Permitted throughput used >= ${threshold}% for 15 minutes: reads and writes will be throttled at the next peak.`,
        threshold, evaluationPeriods: 15, datapointsToAlarm: 15,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }
    if (this.performanceMode === efs.PerformanceMode.GENERAL_PURPOSE) {
      const percentIOLimit = EfsMetrics.metric(this.fileSystemId, EfsMetricName.PERCENT_IO_LIMIT);
      widgets.push(graph('PercentIOLimit (%)', [percentIOLimit], { label: '%', max: 100 }));
      const limit = alarms.percentIOLimit;
      if (limit !== undefined) {
        this.alarms.percentIOLimit = percentIOLimit.createAlarm(this, 'PercentIOLimit', {
          alarmDescription: `PercentIOLimit >= ${limit}% for 15 minutes: the General Purpose operations limit is near.`,
          threshold: limit, evaluationPeriods: 15, datapointsToAlarm: 15,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        });
      }
    }
    if (this.throughputMode === efs.ThroughputMode.BURSTING) widgets.push(...this.burstCredits(alarms));
    this.dashboard.addWidgets(...widgets);
  }

  private burstCredits(alarms: AlarmSettings): cloudwatch.IWidget[] {
    const credits = EfsMetrics.metric(this.fileSystemId, EfsMetricName.BURST_CREDIT_BALANCE, { statistic: cloudwatch.Stats.MINIMUM });
    // Hours until the balance reaches zero at the rate of the last period; 720 (30 days) when it is not falling.
    const hoursLeft = new cloudwatch.MathExpression({
      expression: 'IF(RATE(credits) < 0, credits / ABS(RATE(credits)) / 3600, 720)',
      usingMetrics: { credits: EfsMetrics.metric(this.fileSystemId, EfsMetricName.BURST_CREDIT_BALANCE, { statistic: cloudwatch.Stats.AVERAGE, period: Duration.hours(1) }) },
      label: 'Hours until burst credits run out',
      period: Duration.hours(1),
    });
    const runOut = alarms.creditsRunOutWithin;
    if (runOut !== undefined) {
      this.alarms.creditsRunningOut = hoursLeft.createAlarm(this, 'CreditsRunningOut', {
        alarmDescription: `Burst credits run out within ${runOut.toHumanString()} at the last hour's rate; then throughput drops to the baseline (50 KiB/s per GiB stored).`,
        threshold: runOut.toSeconds() / 3600, evaluationPeriods: 2, datapointsToAlarm: 2,
        comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }
    const floor = alarms.burstCreditFloor;
    if (floor !== undefined) {
      this.alarms.creditsExhausted = credits.createAlarm(this, 'CreditsExhausted', {
        alarmDescription: `BurstCreditBalance <= ${floor.toBytes()} bytes for 15 minutes: throughput is at the baseline.`,
        threshold: floor.toBytes(), evaluationPeriods: 15, datapointsToAlarm: 15,
        comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }
    return [
      graph('BurstCreditBalance (bytes)', [credits], { label: 'bytes' }),
      graph('Hours until credits run out', [hoursLeft], { label: 'hours' }),
    ];
  }

  /** Who is connected and what is stored where. */
  private addClientsAndStorageRow(alarms: AlarmSettings): void {
    const connections = EfsMetrics.metric(this.fileSystemId, EfsMetricName.CLIENT_CONNECTIONS);
    const storage = (storageClass: StorageClass) => EfsMetrics.metric(this.fileSystemId, EfsMetricName.STORAGE_BYTES,
      { period: Duration.minutes(15), label: storageClass, dimensionsMap: { StorageClass: storageClass } });
    this.dashboard.addWidgets(
      note('**Clients and storage.** One connection per mounted instance, task or Lambda execution environment; '
        + 'zero when clients are expected means mounts are failing. Storage is reported every 15 minutes per class; '
        + 'IA and Archive cost less to store and more to read.'),
      graph('ClientConnections', [connections], { label: 'connections' }),
      graph('StorageBytes by class', [StorageClass.STANDARD, StorageClass.INFREQUENT_ACCESS, StorageClass.ARCHIVE].map(storage), { stacked: true, label: 'bytes' }),
    );
    const minimum = alarms.minimumClientConnections;
    if (minimum !== undefined) {
      this.alarms.clientConnections = connections.createAlarm(this, 'ClientConnections', {
        alarmDescription: `Fewer than ${minimum} client connections for 5 minutes: clients that should mount the file system are not connected.`,
        threshold: minimum, evaluationPeriods: 5, datapointsToAlarm: 5,
        comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
        // No data means no client reported a connection.
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      });
    }
  }

  /** A seed's progress and rate, and an alarm on its failures. */
  private addSeedRow(seed: FileSystemSeed, key: string, alarms: AlarmSettings): void {
    const failures = seed.metricFailures();
    const widgets: cloudwatch.IWidget[] = [
      note(`**Seed ${seed.node.path}** (${seed.engineKind} engine). Files written and the rate of each run; `
        + 'failures above zero mean content is missing on the file system.'),
      graph('Seed files written', [seed.metricFilesWritten()], { label: 'files' }),
    ];
    // DataSync publishes no per-invocation rate: its files written per period say as much.
    if (seed.engineKind !== SeedEngineKind.DATASYNC) widgets.push(graph('Seed rate (files/s)', [seed.metricFilesPerSecond()], { label: 'files/s' }));
    widgets.push(graph('Seed failures', [failures], { label: 'failures' }));
    this.dashboard.addWidgets(...widgets);
    if (alarms.seedFailures) {
      this.alarms[`seedFailures${key}`] = this.anyFailureAlarm(`SeedFailures${key}`, failures, `Seed ${seed.node.path} failed to copy files or failed a run.`);
    }
  }

  /** Trips on any failure in a 5-minute period; no data means nothing ran, not a failure. */
  private anyFailureAlarm(id: string, failures: cloudwatch.IMetric, description: string): cloudwatch.Alarm {
    return new cloudwatch.Alarm(this, id, {
      metric: failures, alarmDescription: description, threshold: 1, evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }

  /** A probe's latency percentiles and throughput for whatever it ran, and alarms on its failures and canary latency. */
  private addProbeRow(probe: BenchmarkProbe, key: string, alarms: AlarmSettings): void {
    const failures = probe.metricFailures();
    this.dashboard.addWidgets(
      note(`**Probe ${probe.node.path}**${probe.canaryInterval ? `, a canary every ${probe.canaryInterval.toHumanString()}` : ''}. `
        + 'Latency as an application feels it, per scenario and operation (p50 is the typical call, p99 the slow one in a hundred), '
        + 'and the throughput each reached. Small operations cost a round trip each; if p99 climbs while EFS throughput is flat, '
        + 'look at clients and connections.'),
      graph('Probe latency p50 (ms)', [probe.searchOperations(PROBE_METRIC.latencyP50)], { label: 'ms' }),
      graph('Probe latency p99 (ms)', [probe.searchOperations(PROBE_METRIC.latencyP99)], { label: 'ms' }),
      new cloudwatch.GraphWidget({
        title: 'Probe throughput (bytes/s) and failures', left: [probe.searchOperations(PROBE_METRIC.throughput)], right: [failures],
        width: TEXT_WIDTH, height: GRAPH_HEIGHT,
        leftYAxis: { label: 'bytes/s', showUnits: false, min: 0 }, rightYAxis: { label: 'failures', showUnits: false, min: 0 },
      }),
    );
    if (alarms.probeFailures) {
      this.alarms[`probeFailures${key}`] = this.anyFailureAlarm(`ProbeFailures${key}`, failures,
        `Probe ${probe.node.path} failed: a scenario failed or hit errors, a request was refused, or the function failed.`);
    }
    const slo = alarms.probeLatencyP99;
    const operations = probe.canarySmallOperations;
    if (slo !== undefined && probe.canaryInterval && operations.length === 0) {
      const scenarios = [...new Set(CANARY_SMALL_OPERATIONS.map((o) => o.scenario))].join(' and ');
      Annotations.of(this).addWarningV2('cdk-efs-kit:probeLatencyUnwatched',
        `Probe ${probe.node.path}: its canary runs none of ${scenarios}, so no latency alarm watches it.`);
    } else if (slo !== undefined && probe.canaryInterval) {
      // One datapoint per canary run: the period is the canary's interval, at least 5 minutes.
      const period = Duration.seconds(Math.max(300, probe.canaryInterval.toSeconds()));
      const slowest = new cloudwatch.MathExpression({
        expression: `MAX([${operations.map((_, i) => `p99_${i}`).join(', ')}])`,
        usingMetrics: Object.fromEntries(operations.map((o, i) => [`p99_${i}`, probe.metricLatency(o.scenario, o.operation, LatencyPercentile.P99, { period })])),
        label: 'Slowest small operation p99 (ms)',
        period,
      });
      this.alarms[`probeLatency${key}`] = slowest.createAlarm(this, `ProbeLatency${key}`, {
        alarmDescription: `Probe ${probe.node.path}: p99 latency of a small operation (${operations.map((o) => o.operation).join(', ')}) above ${slo.toMilliseconds()} ms in 2 of 3 canary runs.`,
        threshold: slo.toMilliseconds(), evaluationPeriods: 3, datapointsToAlarm: 2,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }
  }
}

/**
 * What names a seed's or probe's alarms: its construct id (letters and digits), so that adding or
 * removing another leaves its alarms' logical ids, and so the alarms, as they are; its path where
 * another in `all` has the same id.
 */
function alarmKeyOf(construct: IConstruct, all: IConstruct[]): string {
  const alphanumeric = (s: string) => s.replace(/[^A-Za-z0-9]/g, '');
  const shared = all.filter((c) => alphanumeric(c.node.id) === alphanumeric(construct.node.id)).length > 1;
  return alphanumeric(shared ? construct.node.path : construct.node.id);
}

/** What a file system defined in this app (SharedFileSystem or efs.FileSystem) declares, if visible. */
interface DeclaredSettings {
  readonly throughputMode?: efs.ThroughputMode;
  readonly performanceMode?: efs.PerformanceMode;
  readonly provisionedMibps?: number;
  readonly oneZone: boolean;
  /** Set when it replicates. */
  readonly replication?: ReplicationWatch;
}

function declaredSettings(fileSystem: efs.IFileSystem): DeclaredSettings {
  const cfn = fileSystem.node.defaultChild;
  if (!efs.CfnFileSystem.isCfnFileSystem(cfn)) return { oneZone: false };
  return {
    replication: declaredReplication(cfn),
    // CloudFormation's default is Bursting.
    throughputMode: (cfn.throughputMode as efs.ThroughputMode | undefined) ?? efs.ThroughputMode.BURSTING,
    performanceMode: (cfn.performanceMode as efs.PerformanceMode | undefined) ?? efs.PerformanceMode.GENERAL_PURPOSE,
    provisionedMibps: cfn.provisionedThroughputInMibps,
    // A One Zone file system names its Availability Zone.
    oneZone: cfn.availabilityZoneName !== undefined,
  };
}

/** The replication a file system defined in this app declares; the destination by its id, also when it is named by its ARN (cross-account). */
function declaredReplication(cfn: efs.CfnFileSystem): ReplicationWatch | undefined {
  const config = cfn.replicationConfiguration as efs.CfnFileSystem.ReplicationConfigurationProperty | undefined;
  const destinations = config?.destinations as efs.CfnFileSystem.ReplicationDestinationProperty[] | undefined;
  if (!destinations || destinations.length === 0) return undefined;
  const id = destinations[0].fileSystemId;
  if (id === undefined || Token.isUnresolved(id) || !id.startsWith('arn:')) return { destinationFileSystemId: id };
  return { destinationFileSystemId: Arn.split(id, ArnFormat.SLASH_RESOURCE_NAME).resourceName };
}

/**
 * The alarm settings with their defaults, each checked for its unit and range; a threshold for an
 * alarm the file system's modes do not have is an error, not ignored.
 */
function alarmSettings(scope: IConstruct, where: string, o: FileSystemAlarmOptions, throughputMode: efs.ThroughputMode, performanceMode: efs.PerformanceMode, replicates: boolean): AlarmSettings {
  const prop = (name: string) => `alarms.${name}`;
  const given = (threshold?: AlarmThreshold) => threshold !== undefined && threshold._isOn();
  for (const name of ['creditsRunOutWithin', 'burstCreditFloor'] as const) {
    if (given(o[name]) && throughputMode !== efs.ThroughputMode.BURSTING) {
      throw new ValidationError(`${where}: ${prop(name)} applies to throughputMode BURSTING only (burst credits), got ${o[name]} with throughputMode ${throughputMode}.`, scope);
    }
  }
  if (given(o.dataAccessAnomaly) && throughputMode !== efs.ThroughputMode.ELASTIC) {
    throw new ValidationError(`${where}: ${prop('dataAccessAnomaly')} applies to throughputMode ELASTIC only (data access billed per GB), got ${o.dataAccessAnomaly} with throughputMode ${throughputMode}.`, scope);
  }
  if (given(o.percentIOLimit) && performanceMode !== efs.PerformanceMode.GENERAL_PURPOSE) {
    throw new ValidationError(`${where}: ${prop('percentIOLimit')} applies to performanceMode GENERAL_PURPOSE only (PercentIOLimit), got ${o.percentIOLimit} with performanceMode ${performanceMode}.`, scope);
  }
  if (given(o.replicationLag) && !replicates) {
    throw new ValidationError(`${where}: ${prop('replicationLag')} applies to a replicating file system only; pass replicationDestinationFileSystemId for one not defined in this app, got ${o.replicationLag}.`, scope);
  }
  const replicationLag = (o.replicationLag ?? (replicates ? AlarmThreshold.duration(Duration.hours(1)) : AlarmThreshold.off()))._duration(where, prop('replicationLag'));
  if (replicationLag) check(replicationLag.toSeconds() >= 300, where, prop('replicationLag'), replicationLag.toHumanString(), 'must be at least 5 minutes (the alarm\'s period)', scope);
  const percent = (name: string, threshold: AlarmThreshold) => {
    const value = threshold._percent(where, prop(name));
    if (value !== undefined) check(value > 0 && value <= 100, where, prop(name), value, 'must be a percentage above 0 and at most 100', scope);
    return value;
  };
  const creditsRunOutWithin = (o.creditsRunOutWithin ?? AlarmThreshold.duration(Duration.hours(24)))._duration(where, prop('creditsRunOutWithin'));
  if (creditsRunOutWithin) {
    const hours = creditsRunOutWithin.toSeconds() / 3600;
    check(hours >= 1 && hours < 720, where, prop('creditsRunOutWithin'), creditsRunOutWithin.toHumanString(), 'must be from 1 hour to under 30 days', scope);
  }
  const minimumClientConnections = (o.minimumClientConnections ?? AlarmThreshold.off())._count(where, prop('minimumClientConnections'));
  if (minimumClientConnections !== undefined) {
    check(Number.isInteger(minimumClientConnections) && minimumClientConnections >= 1 && minimumClientConnections <= 25000,
      where, prop('minimumClientConnections'), minimumClientConnections, 'must be an integer from 1 to 25,000 (the EFS connection limit)', scope);
  }
  const above0 = (name: string, value: number | undefined, problem: string) => {
    if (value !== undefined) check(Number.isFinite(value) && value > 0, where, prop(name), value, problem, scope);
    return value;
  };
  const elastic = throughputMode === efs.ThroughputMode.ELASTIC;
  return {
    throughputUtilization: percent('throughputUtilization', o.throughputUtilization ?? AlarmThreshold.percent(80)),
    percentIOLimit: percent('percentIOLimit', o.percentIOLimit ?? AlarmThreshold.percent(95)),
    creditsRunOutWithin,
    burstCreditFloor: (o.burstCreditFloor ?? AlarmThreshold.size(Size.bytes(0)))._size(where, prop('burstCreditFloor')),
    minimumClientConnections,
    seedFailures: o.seedFailures ?? true,
    probeLatencyP99: (o.probeLatencyP99 ?? AlarmThreshold.duration(Duration.millis(50)))._duration(where, prop('probeLatencyP99')),
    probeFailures: o.probeFailures ?? true,
    replicationLag,
    dailySpendLimitUsd: above0('dailySpendLimit', (o.dailySpendLimit ?? AlarmThreshold.off())._usd(where, prop('dailySpendLimit')), 'must be a budget in US dollars above 0'),
    dataAccessAnomalyStdDevs: above0('dataAccessAnomaly',
      (o.dataAccessAnomaly ?? (elastic ? AlarmThreshold.standardDeviations(3) : AlarmThreshold.off()))._standardDeviations(where, prop('dataAccessAnomaly')),
      'must be a band width above 0 standard deviations'),
  };
}
