import { AlarmThreshold } from './alarm-threshold';

/**
 * The alarms of an [S3FilesMonitoring](#cdk-efs-kit.S3FilesMonitoring): each has a default threshold, and
 * `AlarmThreshold.off()` turns it off (`false` for `pendingExportsGrowing`).
 */
export interface S3FilesAlarmOptions {
  /**
   * LostAndFoundFiles (Maximum) at or above this in a 5-minute period, as `AlarmThreshold.count(n)`:
   * the bucket won a conflict and the file system's copy went to the lost+found directory, which is
   * never exported to the bucket nor cleaned. The alarm stays on until someone deals with the files.
   * @default AlarmThreshold.count(1)
   */
  readonly lostAndFoundFiles?: AlarmThreshold;
  /**
   * ImportFailures (Sum) in a 5-minute period, as `AlarmThreshold.count(n)`: objects of the bucket
   * that could not be imported for good; the file system does not show them.
   * @default AlarmThreshold.count(1)
   */
  readonly importFailures?: AlarmThreshold;
  /**
   * ExportFailures (Sum) in a 5-minute period, as `AlarmThreshold.count(n)`: changes that could not
   * be exported for good; the bucket does not have them.
   * @default AlarmThreshold.count(1)
   */
  readonly exportFailures?: AlarmThreshold;
  /**
   * ExportAge (Maximum) above this for 15 minutes, as `AlarmThreshold.duration(d)` (at least 5
   * minutes): the write-back to the bucket is falling behind. S3 Files exports a change about a
   * minute after it is written (third-party timings, unverified), so the default is ten such windows.
   * @default AlarmThreshold.duration(Duration.minutes(10))
   */
  readonly exportAge?: AlarmThreshold;
  /**
   * Alarm when PendingExports (the smallest of each 15 minutes) has grown in each of the last four
   * quarter-hours while ExportAge (its smallest) stayed above two write-back windows (120 s): changes
   * arrive faster than they reach the bucket. A backlog that rises with the write rate while exports
   * keep up does not count.
   * @default true
   */
  readonly pendingExportsGrowing?: boolean;
  /**
   * Alarm when fewer clients than this are connected for 5 minutes (ClientConnections), as
   * `AlarmThreshold.count(n)`.
   * @default AlarmThreshold.off() - a file system may be idle
   */
  readonly minimumClientConnections?: AlarmThreshold;
  /**
   * Probes with a canary (passed in `probes`): alarm when the p99 latency of the slowest small
   * operation (open+close, stat, create, a 1 KiB file write) is above this in 2 of 3 canary runs,
   * as `AlarmThreshold.duration(d)`. S3 Files serves small files from its high-performance tier, as
   * EFS does, so the default is EFS's.
   * @default AlarmThreshold.duration(Duration.millis(50))
   */
  readonly probeLatencyP99?: AlarmThreshold;
  /**
   * Alarm when a probe (passed in `probes`) fails: a scenario failed or hit errors (a file that
   * never reached the bucket, a prefix never imported), a request was refused, or the function failed.
   * @default true
   */
  readonly probeFailures?: boolean;
  /**
   * Alarm when a seed (passed in `seeds`) fails: a file it could not write, or a run that failed,
   * timed out or whose files did not show through the mount in time.
   * @default true
   */
  readonly seedFailures?: boolean;
  /**
   * Alarm when the projected daily spend is above this budget in 2 of the last 3 hours, as
   * `AlarmThreshold.usd(n)`: the last hour's data access 24 times (each operation at the least it is
   * metered as) and a day of the high-performance storage, at the monitoring's `pricing`. A spend
   * alarm: not part of `unhealthyAlarm`, but of `spendAlarm`.
   * @default AlarmThreshold.off() - the budget is yours to give
   */
  readonly dailySpendLimit?: AlarmThreshold;
  /**
   * Alarm when the average data write (DataWriteBytes Sum over SampleCount) is under this in each of
   * the last 3 hours, as `AlarmThreshold.size(s)`: S3 Files bills each write as 32 KiB at least, so
   * a workload of smaller writes pays for more than it writes. A spend alarm, as `dailySpendLimit`.
   * @default AlarmThreshold.size(Size.kibibytes(32))
   */
  readonly averageWriteSize?: AlarmThreshold;
}
