import { Duration, Size } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { CANARY_REQUEST, smallOperationsOf } from './canary';
import { DEFAULT_MAX_BYTES, PROBE_THREAD_POOL_SIZE } from './contract/limits';
import { PROBE_DIMENSIONS, PROBE_METRIC, PROBE_METRICS_NAMESPACE } from './contract/metric-names';
import { LAMBDA_MIB_PER_VCPU } from '../core/contract/lambda-cpu';
import { AccessPointPreset } from '../file-system/access-point-preset';
import { handlerCode } from '../core/handler-code';
import { acknowledgeFunction } from '../core/nag';
import { packageVersion } from '../core/package-root';
import { allowClientTo, dependOnRulesBetween } from '../core/security-group-rules';
import { defaultPrivateSubnets } from '../core/subnets';
import { brand, hasBrand } from '../core/type-brand';
import { check } from '../core/validate';
import { ProbeOperation, ProbeRequest } from './probe-request';
import { checkIpv6Placement } from '../file-system/function-placement';
import { MountTargetIpAddressType } from '../file-system/mount-targets-ready';
import { isSharedFileSystemLike } from '../file-system/shared-file-system-brand';
import { ValidationError } from '../core/validation-error';
import { DEFAULT_METRIC_PERIOD } from '../core/metric-period';

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

/** What [SharedFileSystem.addProbe](#cdk-efs-kit.SharedFileSystem.addProbe) takes: a [BenchmarkProbe](#cdk-efs-kit.BenchmarkProbe)'s settings, the file system aside. */
export interface ProbeOptions {
  /**
   * The access point the probe works through (its scratch files go in a subdirectory, removed after each run).
   * @default - a new access point at /cdk-efs-kit-probe, as uid/gid 1000
   */
  readonly accessPoint?: efs.IAccessPoint;
  /**
   * Subnets for the function, with a route to the mount targets. Where the mount targets have IPv6
   * addresses (DUAL_STACK, IPV6_ONLY), dual-stack subnets in zones with a mount target: the
   * function then sends IPv6 (`ipv6AllowedForDualStack`). A SharedFileSystem with IPV6_ONLY mount
   * targets needs it: Lambda cannot run in their IPv6-only subnets.
   * @default - the SharedFileSystem's mount target subnets, else the VPC's private subnets (isolated ones where none has egress)
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
  /** The file system to measure: a SharedFileSystem, or any `efs.IFileSystem` (then give `vpc`). */
  readonly fileSystem: efs.IFileSystem;
  /**
   * The VPC of the file system's mount targets.
   * @default - the SharedFileSystem's VPC; required for other file systems
   */
  readonly vpc?: ec2.IVpc;
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

const MOUNT_PATH = '/mnt/probe';

/**
 * aws-cdk's mount of an access point on a function (FileSystemConfigs, the mount target dependency)
 * with neither of its side effects that fail strict checks: its port 2049 rule, which adds an egress
 * rule the function's security group (all outbound allowed) ignores with a warning (the probe opens
 * the port with `allowClientTo`), and its `ClientMount` on `*` (cdk-nag IAM5): the probe's mount and
 * write are granted on the file system, for its access point only, as a SharedFileSystem grants them.
 */
class ProbeMount extends lambda.FileSystem {
  constructor(fileSystem: efs.IFileSystem, accessPoint: efs.IAccessPoint, mountPath: string) {
    const { arn, localMountPath, dependency } = lambda.FileSystem.fromEfsAccessPoint(accessPoint, mountPath).config;
    super({
      arn, localMountPath, dependency,
      policies: [new iam.PolicyStatement({
        actions: ['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite'],
        resources: [fileSystem.fileSystemArn],
        conditions: {
          Bool: { 'elasticfilesystem:AccessedViaMountTarget': 'true' },
          StringEquals: { 'elasticfilesystem:AccessPointArn': accessPoint.accessPointArn },
        },
      })],
    });
  }
}

/**
 * A Lambda function that measures what applications feel on an EFS file system: the experiments of
 * published EFS benchmarks (file sizes, creates across directories, block size x sync, parallel writers,
 * small-file trees, 80/20 reads, metadata, locking), invoked with a JSON request and returning the
 * JSON result, with latency percentiles and throughput published as metrics; optionally on a schedule.
 *
 * @example
 * // Any file system, imported ones too; files.addProbe('Probe', { ... }) is the short form.
 * const probe = new BenchmarkProbe(this, 'LegacyProbe', {
 *   fileSystem: imported,
 *   vpc,
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
  /** The access point the probe works through. */
  public readonly accessPoint: efs.IAccessPoint;
  /** The file system measured (the FileSystemId dimension of the metrics). */
  public readonly fileSystemId: string;
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
    const shared = isSharedFileSystemLike(props.fileSystem) ? props.fileSystem : undefined;
    const vpc = props.vpc ?? shared?.vpc;
    if (!vpc) throw new ValidationError(`${where}: vpc is required for a file system that is not a SharedFileSystem (the function must run in the VPC of its mount targets), got undefined.`, this);
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

    this.fileSystemId = props.fileSystem.fileSystemId;
    this.metricsNamespace = props.metricsNamespace ?? PROBE_METRICS_NAMESPACE;
    const preset = AccessPointPreset.applicationUser('/cdk-efs-kit-probe').options;
    this.accessPoint = props.accessPoint ?? new efs.AccessPoint(this, 'AccessPoint', { fileSystem: props.fileSystem, ...preset });
    // The handler checks its uid/gid against the access point's user: known only for the one made here.
    const knownAccessPoint: Record<string, string> = props.accessPoint ? {} : {
      PROBE_ACCESS_POINT_ID: this.accessPoint.accessPointId,
      PROBE_ACCESS_POINT_POSIX_USER: `${preset.posixUser!.uid}:${preset.posixUser!.gid}`,
    };
    const vpcSubnets = props.vpcSubnets ?? (shared ? { subnets: shared.mountTargetSubnets.subnets } : defaultPrivateSubnets(vpc));
    const reachesIpv6 = shared !== undefined && shared.mountTargetIpAddressType !== MountTargetIpAddressType.IPV4_ONLY;
    if (shared && reachesIpv6) checkIpv6Placement(this, where, shared, vpc, props.vpcSubnets);

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
      // (the probe calls no AWS API), which the mount adds by group and so holds for both families;
      // Lambda's default group allows all outbound IPv4 and no IPv6.
      securityGroups: reachesIpv6 ? [new ec2.SecurityGroup(this, 'SecurityGroup', {
        vpc,
        allowAllOutbound: false,
        description: `cdk-efs-kit benchmark probe ${this.node.path}: TCP 2049 to the mount targets`,
      })] : undefined,
      description: `cdk-efs-kit benchmark probe ${this.node.path}`,
      filesystem: shared ? undefined : new ProbeMount(props.fileSystem, this.accessPoint, MOUNT_PATH),
      environment: {
        PROBE_MOUNT_PATH: MOUNT_PATH,
        PROBE_FILE_SYSTEM_ID: this.fileSystemId,
        PROBE_MAX_BYTES: String(maxBytes),
        PROBE_METRICS_NAMESPACE: this.metricsNamespace,
        CDK_EFS_KIT_VERSION: packageVersion(),
        ...knownAccessPoint,
      },
    });
    if (shared) {
      // The probe measures the file system, not the seeded content: it need not wait for seeds.
      shared.mountOnLambda(this.function, this.accessPoint, { mountPath: MOUNT_PATH, threadPoolSize: PROBE_THREAD_POOL_SIZE, waitForSeeds: false });
    } else {
      allowClientTo(this.function, props.fileSystem, props.fileSystem.connections.defaultPort ?? ec2.Port.tcp(efs.FileSystem.DEFAULT_PORT));
      // The function mounts when it starts: not before its NFS rules exist.
      dependOnRulesBetween(this.function.node.defaultChild!, this.function, props.fileSystem);
      this.function.addEnvironment('UV_THREADPOOL_SIZE', String(PROBE_THREAD_POOL_SIZE));
    }
    acknowledgeFunction(this.function);

    if (props.canary) {
      const request = props.canary.request ?? CANARY_REQUEST;
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
