import { AlarmThreshold } from './alarm-threshold';

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
