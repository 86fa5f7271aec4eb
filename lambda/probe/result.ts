import type { CheckResult } from '../shared/mount-checks/check-result';
import type { MeteredIo } from './metering';
import type { Percentiles, Spread } from './stats';

/**
 * The shape of a probe run's result: what the Lambda returns, what `cdk-efs-kit probe --json`
 * writes, and what `cdk-efs-kit compare` and the HTML report read. Sizes are in bytes, times in
 * seconds or milliseconds as the names say.
 */

/** One operation kind (a phase of a scenario) in one round. */
export interface OperationRound {
  /** What was timed, e.g. `create-many-directories` or `write-1MiB-file`. */
  readonly operation: string;
  /** Operations that succeeded. */
  readonly count: number;
  readonly errors: number;
  /** Wall time of the phase. */
  readonly seconds: number;
  /** Bytes written or read by the operations. */
  readonly bytes: number;
  readonly opsPerSecond: number;
  readonly bytesPerSecond: number;
  /** Latency of one operation, as the application feels it. */
  readonly latencyMs: Percentiles;
  /** What EFS meters for the operations that succeeded, estimated from what each sends (see metering.ts). */
  readonly metered: MeteredIo;
}

/** One operation kind over all rounds: each figure's mean and spread. */
export interface OperationSummary {
  readonly operation: string;
  readonly count: number;
  readonly errors: number;
  readonly opsPerSecond: Spread;
  readonly bytesPerSecond: Spread;
  readonly latencyMs: { readonly p50: Spread; readonly p90: Spread; readonly p99: Spread; readonly max: Spread };
}

export interface ScenarioRound {
  readonly round: number;
  readonly startedAt: string;
  readonly operations: OperationRound[];
}

/** A finding a scenario reports besides timings, e.g. whether locks are honoured. */
export type FindingValue = string | number | boolean | null;

export interface ScenarioResult {
  readonly scenario: string;
  /** The published benchmark the scenario reproduces and its figure. */
  readonly reproduces: string;
  readonly params: Record<string, unknown>;
  readonly rounds: ScenarioRound[];
  readonly summary: OperationSummary[];
  readonly findings: Record<string, FindingValue>;
  /** Distinct error messages (the first few), when operations failed. */
  readonly errorMessages: string[];
  /** Set when the scenario stopped early (its error); the rounds hold what was measured before. */
  readonly failure?: string;
  /** What its timed operations metered over all rounds, and what that cost under each throughput mode. */
  readonly cost: ScenarioCost;
}

/**
 * What a scenario's timed operations (not its setup) metered over all its rounds, and what that
 * run cost under each throughput mode, at the result's `pricing`. Bursting costs nothing beyond
 * storage: it spends burst credits for at most `metered.meteredIOBytes`.
 */
export interface ScenarioCost {
  readonly metered: MeteredIo;
  /** Wall time of the timed phases, over all rounds. */
  readonly seconds: number;
  /** Elastic: the bytes read and written, at its prices. */
  readonly elasticUsd: number;
  /** The scenario's average metered throughput (at least 1 MiB/s, the smallest Provisioned throughput). */
  readonly provisionedMibps: number;
  /** Provisioned at `provisionedMibps` for `seconds`, none of it included with storage (the probe does not know the size). */
  readonly provisionedUsd: number;
  /** What provisioning `provisionedMibps`, for this speed, costs a month. */
  readonly provisionedUsdPerMonth: number;
  /** Elastic's cost of this traffic kept up for a month (730 hours) at the measured rate. */
  readonly elasticUsdPerMonth?: number;
  /**
   * The same metered bytes on S3 Files (it meters each operation as EFS's Elastic does: 32 KiB of
   * data, 4 KiB of metadata at least), at the result's `s3FilesPricing`, as if every read came from
   * the high-performance storage; the sync's export of what was written (billed as a read) is left
   * out. Absent from results written before the probe priced it.
   */
  readonly s3FilesUsd?: number;
  /** S3 Files' cost of this traffic kept up for a month at the measured rate. */
  readonly s3FilesUsdPerMonth?: number;
}

/** What the probe measured on the target before planning: used to estimate each scenario's time. */
export interface Calibration {
  /** Median time to create and close an empty file: one metadata round trip. */
  readonly roundTripMs: number;
  /** Sequential write throughput with 1 MiB writes and an fsync at the end. */
  readonly writeBytesPerSecond: number;
}

export interface ProbeBudget {
  readonly maxBytes: number;
  /** Unlimited (null) when the caller gave no time budget. */
  readonly maxSeconds: number | null;
  readonly plannedBytes: number;
  readonly estimatedSeconds: number | null;
}

export interface ProbeResult {
  readonly status: 'ok' | 'failed';
  readonly tool: string;
  readonly version: string;
  /** A name for this run, e.g. `elastic`, shown by `compare`. */
  readonly label: string;
  /** The directory probed. */
  readonly target: string;
  readonly fileSystemId?: string;
  readonly startedAt: string;
  readonly seconds: number;
  readonly rounds: number;
  readonly pauseSeconds: number;
  readonly budget: ProbeBudget;
  readonly calibration?: Calibration;
  /** The label of the prices the scenarios' costs are at (an EfsPricing). */
  readonly pricing: string;
  /** The label of the S3 Files prices of `s3FilesUsd` (an S3FilesPricing). */
  readonly s3FilesPricing?: string;
  /** What was probed: an S3 Files mount when the probe was given its bucket, else EFS (or another NFS server). */
  readonly fileSystemKind?: 'efs' | 's3-files';
  readonly scenarios: ScenarioResult[];
  /**
   * The doctor's checks that apply where the probe runs, on `target` (see mount-checks.ts): its mount
   * and type, the NFS options, the POSIX identity. Information only: they do not change `status`.
   * Absent from results written before the probe reported them.
   */
  readonly mountChecks?: CheckResult[];
}

/** What the probe returns instead of running when the request is invalid or does not fit its budgets. */
export interface ProbeRejection {
  readonly status: 'invalid' | 'refused';
  readonly errors: string[];
  /** The scenarios and parameters a request may use, with their defaults and limits. */
  readonly allowed: Record<string, unknown>;
}

/** A scenario that stopped early or whose operations returned errors: the run's status is then 'failed'. */
export function scenarioFailed(scenario: ScenarioResult): boolean {
  return scenario.failure !== undefined || scenario.summary.some((o) => o.errors > 0);
}

export function isRejection(outcome: ProbeResult | ProbeRejection): outcome is ProbeRejection {
  return outcome.status === 'invalid' || outcome.status === 'refused';
}
