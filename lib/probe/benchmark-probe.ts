import { Duration, Size } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { smallOperationsOf } from './canary';
import { DEFAULT_MAX_BYTES } from './contract/limits';
import { PROBE_DIMENSIONS, PROBE_METRIC, PROBE_METRICS_NAMESPACE } from './contract/metric-names';
import { PROBE_MOUNT_PATH, probeMountOf } from './probe-mount';
import { ProbeOperation, ProbeRequest } from './probe-request';
import { LAMBDA_MIB_PER_VCPU } from '../core/contract/lambda-cpu';
import { handlerCode } from '../core/handler-code';
import { DEFAULT_METRIC_PERIOD } from '../core/metric-period';
import { acknowledgeFunction } from '../core/nag';
import { packageVersion } from '../core/package-root';
import { brand, hasBrand } from '../core/type-brand';
import { check } from '../core/validate';
import { checkIpv6Placement } from '../file-system/function-placement';
import { FileSystemKind, IMountableFileSystem } from '../file-system/mountable-file-system';
import { MountTargetIpAddressType } from '../file-system/mount-targets-ready';

/** A probe that runs on a schedule: a light request whose latencies feed dashboards and alarms. */
export interface ProbeCanaryOptions {
  /** How often it runs. */
  readonly interval: Duration;
  /**
   * What it runs.
   * @default - a few seconds of small writes, creates and metadata calls (1.25 MiB, about 500 round trips)
   */
  readonly request?: ProbeRequest;
}

/** What `addProbe` of a SharedFileSystem or an S3FilesFileSystem takes: a [BenchmarkProbe](#cdk-efs-kit.BenchmarkProbe)'s settings, the file system aside. */
export interface ProbeOptions {
  /**
   * The EFS access point the probe works through (its scratch files go in a subdirectory, removed
   * after each run). On S3 Files the probe always makes its own, so that its bucket grants reach
   * that prefix only.
   * @default - a new access point at /cdk-efs-kit-probe, as uid/gid 1000
   */
  readonly accessPoint?: efs.IAccessPoint;
  /**
   * Subnets for the function, with a route to the mount targets. Where the mount targets have IPv6
   * addresses (DUAL_STACK, IPV6_ONLY), dual-stack subnets in zones with a mount target: the
   * function then sends IPv6 (`ipv6AllowedForDualStack`). A SharedFileSystem with IPV6_ONLY mount
   * targets needs it: Lambda cannot run in their IPv6-only subnets. On S3 Files they also need a
   * route to S3 (egress or an S3 endpoint): the probe's own scenarios call it.
   * @default - the file system's mount target subnets
   */
  readonly vpcSubnets?: ec2.SubnetSelection;
  /**
   * Memory of the function; Lambda gives one full vCPU at 1,769 MB, and the probe should not be CPU-bound.
   * @default Size.mebibytes(1769)
   */
  readonly memorySize?: Size;
  /**
   * Timeout of the function: the time budget of one invocation (minus a safety margin).
   * @default Duration.minutes(15)
   */
  readonly timeout?: Duration;
  /**
   * Reserved concurrency: a probe must measure the file system, not become its load.
   * @default 1
   */
  readonly reservedConcurrentExecutions?: number;
  /**
   * Bytes one invocation may write and read; a request asking more is refused.
   * @default Size.gibibytes(8)
   */
  readonly maxBytesPerInvocation?: Size;
  /**
   * CloudWatch namespace of the probe's metrics.
   * @default 'CdkEfsKit'
   */
  readonly metricsNamespace?: string;
  /**
   * Run a light request on a schedule, so its latencies are measured all the time.
   * @default - no schedule: the probe runs when invoked
   */
  readonly canary?: ProbeCanaryOptions;
}

/** Properties of a [BenchmarkProbe](#cdk-efs-kit.BenchmarkProbe). */
export interface BenchmarkProbeProps extends ProbeOptions {
  /**
   * The file system to measure: a SharedFileSystem (any `efs.IFileSystem` through
   * `SharedFileSystem.fromFileSystem`) or an S3FilesFileSystem.
   */
  readonly fileSystem: IMountableFileSystem;
}

/** The latency percentiles the probe publishes per operation. */
export enum LatencyPercentile {
  /** The typical call. */
  P50 = 'p50',
  /** Nine calls in ten are faster. */
  P90 = 'p90',
  /** The slow call in a hundred. */
  P99 = 'p99',
  /** The slowest call of a round. */
  MAX = 'max',
}

/** Options for [BenchmarkProbe.searchOperations](#cdk-efs-kit.BenchmarkProbe.searchOperations). */
export interface ProbeSearchOptions {
  /**
   * Statistic of every metric found.
   * @default 'Average'
   */
  readonly statistic?: string;
  /**
   * Period of every metric found.
   * @default Duration.minutes(5)
   */
  readonly period?: Duration;
  /**
   * Label of the expression.
   * @default '' - CloudWatch names each series after its dimensions
   */
  readonly label?: string;
}

/**
 * A Lambda function that measures what applications feel on an EFS or S3 Files file system: the
 * experiments of published EFS benchmarks (file sizes, creates across directories, block size x sync,
 * parallel writers, small-file trees, 80/20 reads, metadata, locking), and on S3 Files its own (the
 * import of a new directory, reads below and above the direct-read threshold, the export lag to the
 * bucket), invoked with a JSON request and returning the JSON result, with latency percentiles and
 * throughput published as metrics; optionally on a schedule.
 *
 * @example
 * // Any EFS file system, imported ones too: wrap it once; files.addProbe('Probe', { ... }) is the short form.
 * const legacy = SharedFileSystem.fromFileSystem(this, 'Legacy', imported, { vpc });
 * const probe = new BenchmarkProbe(this, 'LegacyProbe', {
 *   fileSystem: legacy,
 *   canary: { interval: Duration.minutes(30) },
 * });
 * probe.grantInvoke(ciRole);
 * dashboard.addWidgets(new cloudwatch.GraphWidget({
 *   left: [probe.metricLatency('metadata', 'stat', LatencyPercentile.P99)],
 * }));
 */
export class BenchmarkProbe extends Construct {
  /** Whether `x` is a BenchmarkProbe, made by any copy of this package. */
  public static isBenchmarkProbe(x: any): x is BenchmarkProbe {
    return hasBrand(x, 'BenchmarkProbe');
  }

  /** The probe function: invoke it with a request, it returns the result. */
  public readonly function: lambda.Function;
  /** The access point the probe works through (`fsap-…`). */
  public readonly accessPointId: string;
  /** The file system measured (the FileSystemId dimension of the metrics). */
  public readonly fileSystemId: string;
  /** Which kind of file system it measures. */
  public readonly fileSystemKind: FileSystemKind;
  /** The schedule's rule, when `canary` is set. */
  public readonly canaryRule?: events.Rule;
  /** How often the canary runs, when `canary` is set. */
  public readonly canaryInterval?: Duration;
  /**
   * The small operations (open-close, stat, create, a 1 KiB write) among the scenarios the canary
   * runs: what the monitoring's latency alarm watches. Empty without a canary.
   */
  public readonly canarySmallOperations: ProbeOperation[] = [];
  /** Namespace of the probe's metrics. */
  public readonly metricsNamespace: string;

  constructor(scope: Construct, id: string, props: BenchmarkProbeProps) {
    super(scope, id);
    brand(this, 'BenchmarkProbe');
    const where = `BenchmarkProbe(${this.node.path})`;
    const files = props.fileSystem;
    const reserved = props.reservedConcurrentExecutions ?? 1;
    check(Number.isInteger(reserved) && reserved >= 1, where, 'reservedConcurrentExecutions', reserved, 'must be an integer of at least 1', this);
    const maxBytes = props.maxBytesPerInvocation?.toBytes() ?? DEFAULT_MAX_BYTES;
    check(maxBytes >= 1, where, 'maxBytesPerInvocation', maxBytes, 'must be at least 1 byte', this);
    const timeout = props.timeout ?? Duration.minutes(15);
    check(timeout.toSeconds() >= 60, where, 'timeout', timeout.toHumanString(), 'must be at least 1 minute (scratch cleanup and metrics need a margin)', this);
    if (props.canary) {
      const minutes = props.canary.interval.toMinutes({ integral: false });
      check(Number.isInteger(minutes) && minutes >= 1, where, 'canary.interval', props.canary.interval.toHumanString(), 'must be a whole number of minutes, at least 1', this);
    }
    const mount = probeMountOf(this, where, files, props.accessPoint);

    this.fileSystemId = mount.fileSystemId;
    this.fileSystemKind = files.fileSystemKind;
    this.metricsNamespace = props.metricsNamespace ?? PROBE_METRICS_NAMESPACE;
    this.accessPointId = mount.accessPointId;
    const vpc = files.vpc;
    const vpcSubnets = props.vpcSubnets ?? { subnets: files.mountTargetSubnets.subnets };
    const reachesIpv6 = files.mountTargetIpAddressType !== MountTargetIpAddressType.IPV4_ONLY;
    if (reachesIpv6) checkIpv6Placement(this, where, files, vpc, props.vpcSubnets);

    this.function = new lambda.Function(this, 'Function', {
      runtime: lambda.Runtime.NODEJS_22_X,
      code: handlerCode('probe'),
      handler: 'index.handler',
      memorySize: (props.memorySize ?? Size.mebibytes(LAMBDA_MIB_PER_VCPU)).toMebibytes(),
      timeout,
      reservedConcurrentExecutions: reserved,
      vpc,
      vpcSubnets,
      ipv6AllowedForDualStack: reachesIpv6 ? true : undefined,
      // Where the mount targets have IPv6, a group that allows no outbound traffic but 2049 to them
      // (which the mount adds by group, so it holds for both families) and, on S3 Files, HTTPS to
      // the bucket; Lambda's default group allows all outbound IPv4 and no IPv6.
      securityGroups: reachesIpv6 ? [mount.securityGroup(this, vpc)] : undefined,
      description: `cdk-efs-kit benchmark probe ${this.node.path}`,
      environment: {
        PROBE_MOUNT_PATH,
        PROBE_FILE_SYSTEM_ID: this.fileSystemId,
        PROBE_MAX_BYTES: String(maxBytes),
        PROBE_METRICS_NAMESPACE: this.metricsNamespace,
        CDK_EFS_KIT_VERSION: packageVersion(),
        ...mount.environment,
      },
    });
    mount.mountOn(this.function, vpcSubnets);
    acknowledgeFunction(this.function);

    if (props.canary) {
      const request = props.canary.request ?? mount.canaryRequest;
      this.canaryInterval = props.canary.interval;
      this.canarySmallOperations = smallOperationsOf(request);
      this.canaryRule = new events.Rule(this, 'Canary', {
        description: `cdk-efs-kit probe canary of ${this.node.path}`,
        schedule: events.Schedule.rate(props.canary.interval),
        targets: [new targets.LambdaFunction(this.function, {
          event: events.RuleTargetInput.fromObject(request),
          retryAttempts: 0, // a missed run is a gap in the graph, not something to repeat late
        })],
      });
    }
  }

  /** Let `grantee` invoke the probe (e.g. a CI role that runs benchmarks). */
  public grantInvoke(grantee: iam.IGrantable): iam.Grant {
    return this.function.grantInvoke(grantee);
  }

  /**
   * Latency of one operation of one scenario, e.g. `('metadata', 'open-close', LatencyPercentile.P99)`: the Average
   * of the per-round percentile values the probe published.
   */
  public metricLatency(scenario: string, operation: string, percentile: LatencyPercentile, options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    const name = {
      [LatencyPercentile.P50]: PROBE_METRIC.latencyP50,
      [LatencyPercentile.P90]: PROBE_METRIC.latencyP90,
      [LatencyPercentile.P99]: PROBE_METRIC.latencyP99,
      [LatencyPercentile.MAX]: PROBE_METRIC.latencyMax,
    }[percentile];
    return this.operationMetric(name, scenario, operation, cloudwatch.Unit.MILLISECONDS, { label: `${scenario} ${operation} ${percentile}`, ...options });
  }

  /** Bytes per second one operation of a scenario moved (Average over rounds). */
  public metricThroughput(scenario: string, operation: string, options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.operationMetric(PROBE_METRIC.throughput, scenario, operation, cloudwatch.Unit.BYTES_PER_SECOND, options);
  }

  /** Operations per second of one operation of a scenario (Average over rounds). */
  public metricOperationsPerSecond(scenario: string, operation: string, options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return this.operationMetric(PROBE_METRIC.opsPerSecond, scenario, operation, cloudwatch.Unit.COUNT_PER_SECOND, options);
  }

  /**
   * Every scenario and operation the probe published for `metric` (e.g. 'LatencyP99'), found with
   * a CloudWatch SEARCH: dashboards show whatever was run. (Alarms cannot use SEARCH.)
   */
  public searchOperations(metric: string, options: ProbeSearchOptions = {}): cloudwatch.MathExpression {
    const { fileSystem, scenario, operation } = PROBE_DIMENSIONS;
    const period = options.period ?? DEFAULT_METRIC_PERIOD;
    return new cloudwatch.MathExpression({
      expression: `SEARCH('{${this.metricsNamespace},${fileSystem},${operation},${scenario}} MetricName="${metric}" ${fileSystem}="${this.fileSystemId}"', '${options.statistic ?? 'Average'}', ${period.toSeconds()})`,
      usingMetrics: {},
      label: options.label ?? '',
      period,
    });
  }

  /**
   * Probe runs that did not measure what they should, per period: failed or erroring scenarios and
   * refused requests (`ProbeFailures`), and invocations that failed outright (Lambda `Errors`).
   */
  public metricFailures(options: cloudwatch.MathExpressionOptions = {}): cloudwatch.MathExpression {
    return new cloudwatch.MathExpression({
      expression: 'FILL(probe_failures, 0) + FILL(probe_errors, 0)',
      usingMetrics: {
        probe_failures: new cloudwatch.Metric({
          namespace: this.metricsNamespace, metricName: PROBE_METRIC.failures, dimensionsMap: { [PROBE_DIMENSIONS.fileSystem]: this.fileSystemId },
          statistic: cloudwatch.Stats.SUM, unit: cloudwatch.Unit.COUNT, period: DEFAULT_METRIC_PERIOD,
        }),
        probe_errors: this.function.metricErrors({ period: DEFAULT_METRIC_PERIOD }),
      },
      label: 'Probe failures',
      period: DEFAULT_METRIC_PERIOD,
      ...options,
    });
  }

  private operationMetric(metricName: string, scenario: string, operation: string, unit: cloudwatch.Unit, options: cloudwatch.MetricOptions): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: this.metricsNamespace,
      metricName,
      dimensionsMap: { [PROBE_DIMENSIONS.fileSystem]: this.fileSystemId, [PROBE_DIMENSIONS.scenario]: scenario, [PROBE_DIMENSIONS.operation]: operation },
      unit,
      statistic: cloudwatch.Stats.AVERAGE,
      period: DEFAULT_METRIC_PERIOD,
      ...options,
    });
  }
}
