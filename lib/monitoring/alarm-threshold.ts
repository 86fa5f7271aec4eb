import { Duration, Size } from 'aws-cdk-lib';
import { ValidationError } from '../core/validation-error';
import { propName } from '../core/contract/prop-name';

/** What an [AlarmThreshold](#cdk-efs-kit.AlarmThreshold) measures in. */
enum ThresholdUnit {
  PERCENT = 'percent',
  COUNT = 'count',
  DURATION = 'duration',
  SIZE = 'size',
  USD = 'usd',
  STANDARD_DEVIATIONS = 'standardDeviations',
}

/**
 * The threshold of one of [FileSystemMonitoring](#cdk-efs-kit.FileSystemMonitoring)'s alarms, or `off()` for no alarm. Each alarm
 * takes the unit its documentation names (`percent`, `count`, `duration`, `size`, `usd` or
 * `standardDeviations`); another is an error at synth time.
 *
 * @example
 * files.addMonitoring('Monitoring', {
 *   alarms: {
 *     throughputUtilization: AlarmThreshold.percent(90),
 *     percentIOLimit: AlarmThreshold.off(),
 *     minimumClientConnections: AlarmThreshold.count(1),
 *     dailySpendLimit: AlarmThreshold.usd(40),
 *   },
 * });
 */
export class AlarmThreshold {
  /** No alarm. */
  public static off(): AlarmThreshold {
    return new AlarmThreshold(undefined, undefined);
  }

  /** A percentage, above 0 and at most 100. */
  public static percent(value: number): AlarmThreshold {
    return new AlarmThreshold(ThresholdUnit.PERCENT, value);
  }

  /** A number of things, e.g. client connections. */
  public static count(value: number): AlarmThreshold {
    return new AlarmThreshold(ThresholdUnit.COUNT, value);
  }

  /** A length of time, e.g. a latency or how soon something runs out. */
  public static duration(value: Duration): AlarmThreshold {
    return new AlarmThreshold(ThresholdUnit.DURATION, value);
  }

  /** An amount of data. */
  public static size(value: Size): AlarmThreshold {
    return new AlarmThreshold(ThresholdUnit.SIZE, value);
  }

  /** An amount of money in US dollars, e.g. a daily budget. */
  public static usd(value: number): AlarmThreshold {
    return new AlarmThreshold(ThresholdUnit.USD, value);
  }

  /** The width of a CloudWatch anomaly detection band, in standard deviations of the metric's expected value. */
  public static standardDeviations(value: number): AlarmThreshold {
    return new AlarmThreshold(ThresholdUnit.STANDARD_DEVIATIONS, value);
  }

  private constructor(private readonly unit: ThresholdUnit | undefined, private readonly value: number | Duration | Size | undefined) {}

  /** @internal Whether this threshold turns its alarm on. */
  public _isOn(): boolean {
    return this.unit !== undefined;
  }

  /** @internal The percentage, undefined when off; throws naming `prop` when of another unit. */
  public _percent(where: string, prop: string): number | undefined {
    return this.valueIn(ThresholdUnit.PERCENT, where, prop) as number | undefined;
  }

  /** @internal The count, undefined when off; throws naming `prop` when of another unit. */
  public _count(where: string, prop: string): number | undefined {
    return this.valueIn(ThresholdUnit.COUNT, where, prop) as number | undefined;
  }

  /** @internal The duration, undefined when off; throws naming `prop` when of another unit. */
  public _duration(where: string, prop: string): Duration | undefined {
    return this.valueIn(ThresholdUnit.DURATION, where, prop) as Duration | undefined;
  }

  /** @internal The size, undefined when off; throws naming `prop` when of another unit. */
  public _size(where: string, prop: string): Size | undefined {
    return this.valueIn(ThresholdUnit.SIZE, where, prop) as Size | undefined;
  }

  /** @internal The dollars, undefined when off; throws naming `prop` when of another unit. */
  public _usd(where: string, prop: string): number | undefined {
    return this.valueIn(ThresholdUnit.USD, where, prop) as number | undefined;
  }

  /** @internal The band's width, undefined when off; throws naming `prop` when of another unit. */
  public _standardDeviations(where: string, prop: string): number | undefined {
    return this.valueIn(ThresholdUnit.STANDARD_DEVIATIONS, where, prop) as number | undefined;
  }

  /** `AlarmThreshold.percent(80)`, as written. */
  public toString(): string {
    if (this.unit === undefined) return 'AlarmThreshold.off()';
    const value = this.unit === ThresholdUnit.DURATION ? (this.value as Duration).toHumanString()
      : this.unit === ThresholdUnit.SIZE ? `${(this.value as Size).toBytes()} bytes` : String(this.value);
    return `AlarmThreshold.${this.unit}(${value})`;
  }

  private valueIn(unit: ThresholdUnit, where: string, prop: string) {
    if (this.unit !== undefined && this.unit !== unit) {
      throw new ValidationError(`${where}: ${propName(prop)} takes AlarmThreshold.${unit}(...) or AlarmThreshold.off(), got ${this}.`);
    }
    return this.value;
  }
}
