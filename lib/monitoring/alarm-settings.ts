import { Duration, Size } from 'aws-cdk-lib';
import * as efs from 'aws-cdk-lib/aws-efs';
import { IConstruct } from 'constructs';
import { FileSystemAlarmOptions } from './alarm-options';
import { AlarmThreshold } from './alarm-threshold';
import type { ProbeAlarmSettings } from './probe-rows';
import { SpendAlarmSettings } from './spend-row';
import { check } from '../core/validate';
import { ValidationError } from '../core/validation-error';
import { propName } from '../core/contract/prop-name';

/** The alarm settings with their defaults applied and checked: undefined is off. */
export interface AlarmSettings extends SpendAlarmSettings, ProbeAlarmSettings {
  readonly throughputUtilization?: number;
  readonly percentIOLimit?: number;
  readonly creditsRunOutWithin?: Duration;
  readonly burstCreditFloor?: Size;
  readonly minimumClientConnections?: number;
  readonly seedFailures: boolean;
  readonly replicationLag?: Duration;
}

/**
 * The alarm settings with their defaults, each checked for its unit and range; a threshold for an
 * alarm the file system's modes do not have is an error, not ignored.
 */
export function alarmSettings(scope: IConstruct, where: string, o: FileSystemAlarmOptions, throughputMode: efs.ThroughputMode, performanceMode: efs.PerformanceMode, replicates: boolean): AlarmSettings {
  const prop = (name: string) => propName(`alarms.${name}`);
  const given = (threshold?: AlarmThreshold) => threshold !== undefined && threshold._isOn();
  for (const name of ['creditsRunOutWithin', 'burstCreditFloor'] as const) {
    if (given(o[name]) && throughputMode !== efs.ThroughputMode.BURSTING) {
      throw new ValidationError(`${where}: ${prop(name)} applies to ${propName('throughputMode')} BURSTING only (burst credits), got ${o[name]} with throughputMode ${throughputMode}.`, scope);
    }
  }
  if (given(o.dataAccessAnomaly) && throughputMode !== efs.ThroughputMode.ELASTIC) {
    throw new ValidationError(`${where}: ${prop('dataAccessAnomaly')} applies to ${propName('throughputMode')} ELASTIC only (data access billed per GB), got ${o.dataAccessAnomaly} with throughputMode ${throughputMode}.`, scope);
  }
  if (given(o.percentIOLimit) && performanceMode !== efs.PerformanceMode.GENERAL_PURPOSE) {
    throw new ValidationError(`${where}: ${prop('percentIOLimit')} applies to ${propName('performanceMode')} GENERAL_PURPOSE only (PercentIOLimit), got ${o.percentIOLimit} with performanceMode ${performanceMode}.`, scope);
  }
  if (given(o.replicationLag) && !replicates) {
    throw new ValidationError(`${where}: ${prop('replicationLag')} applies to a replicating file system only; pass ${propName('replicationDestinationFileSystemId')} for one not defined in this app, got ${o.replicationLag}.`, scope);
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
