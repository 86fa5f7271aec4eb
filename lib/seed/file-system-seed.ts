import { CfnResource, CustomResource, Size, Token } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from './contract/limits';
import { SEED_METRIC } from './contract/metric-names';
import { dataSyncMetric, seedMetric } from './seed-metric';
import { seedPropertyProblems, SeedResourceProperties, targetSubPathProblem } from './contract/resource-properties';
import { placeId, SEED_PLACE_METADATA } from './contract/seed-place';
import { enterSeedLane } from './seed-lanes';
import { startClientsAfter } from './seed-order';
import { claimSeedPlace } from './seed-places';
import { brand, hasBrand } from '../core/type-brand';
import { check } from '../core/validate';
import { SeedEngine } from './seed-engine';
import { SeedEngineKind } from './seed-engine-options';
import { SeedSource } from './seed-source';
import type { ISharedFileSystem } from '../file-system/shared-file-system-base';
import { ValidationError } from '../core/validation-error';
import { DEFAULT_METRIC_PERIOD } from '../core/metric-period';
import { propName } from '../core/contract/prop-name';
import { archiveLimitProperties } from './archive-limit-properties';

/**
 * Bounds on what an archive may expand to, so that a hostile or broken archive (a zip or gzip bomb)
 * cannot fill the file system or the function. Checked against what each member declares, before any
 * of it is written; a tripped limit fails the seed with a message naming the limit and the member.
 */
export interface SeedArchiveLimits {
  /**
   * Largest member.
   * @default Size.gibibytes(8)
   */
  readonly maxMemberSize?: Size;
  /**
   * All members together.
   * @default Size.gibibytes(64)
   */
  readonly maxTotalSize?: Size;
  /**
   * Members (files, directories, links) at most.
   * @default 1000000
   */
  readonly maxEntries?: number;
  /**
   * Bytes the archive expands to per byte of archive, at most, judged once it has expanded past 64 MiB.
   * Real content compresses 2 to 20 times; a run of zeros, 1,000 times.
   * @default 100
   */
  readonly maxCompressionRatio?: number;
}

/** What to seed, where, and how: [SharedFileSystem.addSeed](#cdk-efs-kit.SharedFileSystem.addSeed) takes these. */
export interface SeedOptions {
  /**
   * The access point the seed writes through: files get its POSIX user, and nothing outside its
   * root can be touched.
   */
  readonly accessPoint: efs.IAccessPoint;
  /** What to copy. */
  readonly source: SeedSource;
  /**
   * Directory under the access point's root to fill.
   * @default '/' - the access point's root
   */
  readonly targetPath?: string;
  /**
   * The engine that copies.
   * @default SeedEngine.singleFunction()
   */
  readonly engine?: SeedEngine;
  /**
   * Parallel file writes of the function (single-function engine) or of each worker (Distributed
   * Map), 1 to 1,024. EFS rewards parallelism across directories; each operation pays a network
   * round trip. Not for DataSync, which sets its own.
   * @default 64
   */
  readonly concurrency?: number;
  /**
   * Delete files that an earlier seed wrote and the source no longer has, then the directories the
   * source no longer has once nothing else is left in them. Files the seed did not write are never
   * touched. With DataSync, deletes whatever the source no longer has (`removeDeletedFiles`). Not
   * for the Distributed Map engine, whose workers keep no record of what earlier seeds wrote.
   * @default false
   */
  readonly prune?: boolean;
  /**
   * Remove what the seed wrote when this resource is deleted from the stack: the files, the
   * directories they were in once nothing else is left in them, and what an interrupted run left
   * (directories not yet published, temporary files), as after a failed Create rolls back. A file
   * changed since the seed wrote it is kept (and logged), and so is a place another seed owns now
   * (this seed's new place, after it moved). Single-function engine only: the others keep no
   * record of what they wrote.
   * @default false - the data stays on the file system
   */
  readonly removeOnDelete?: boolean;
  /**
   * Limits on what an archive source may expand to (archive sources, local directories included:
   * CDK uploads them as zips; single-function engine, the one that extracts archives).
   * @default - 8 GiB per member, 64 GiB in all, 1,000,000 members, a compression ratio of 100
   */
  readonly archiveLimits?: SeedArchiveLimits;
  /**
   * Whether the deploy waits for the copy. CloudFormation waits at most an hour for a custom
   * resource, so a waited seed has a time limit of 50 minutes: past it, the copy is stopped and the
   * deploy fails, saying so (what was copied stays, and the next run skips it). With false the
   * deploy only starts the copy and goes on, so resources that depend on the seed may start before
   * the content is there; the copy runs for as long as it needs (DataSync: until the execution ends;
   * Distributed Map: up to the state machine's 12 hours), its progress and failures show on the
   * seed's dashboard row and trip the seed's alarm (`FileSystemMonitoring`), a deploy with the
   * same source and place while it runs follows it rather than starting another, and one with another
   * source or place stops it and starts its own. DataSync and Distributed
   * Map engines only: the single-function engine's copy runs inside the deploy.
   * @default true
   */
  readonly waitForCompletion?: boolean;
  /**
   * Subnets of the file system's VPC for the seed's functions (the single-function engine's, the
   * Distributed Map's workers), in zones with a mount target, with a route to S3 (the seed reads its
   * source there). Where the mount targets have IPv6 addresses (DUAL_STACK, IPV6_ONLY), dual-stack
   * subnets: the functions then send IPv6 (`ipv6AllowedForDualStack`). A SharedFileSystem with
   * IPV6_ONLY mount targets needs it: Lambda cannot run in their IPv6-only subnets. Seeds share their
   * functions only when they run in the same subnets. Not for DataSync, which runs in a mount
   * target's subnet.
   * @default - the file system's mount target subnets
   */
  readonly vpcSubnets?: ec2.SubnetSelection;
}

/** Properties of a [FileSystemSeed](#cdk-efs-kit.FileSystemSeed). */
export interface FileSystemSeedProps extends SeedOptions {
  /** The file system to fill. */
  readonly fileSystem: ISharedFileSystem;
}

const SEED_MOUNT_PATH = '/mnt/seed';

/** What each option does when left out: giving that value to any engine is the same as leaving it out. */
const OPTION_DEFAULTS: Partial<Record<keyof SeedOptions, unknown>> = { prune: false, removeOnDelete: false, waitForCompletion: true };

/**
 * Fills an EFS file system at deploy time, before anything that depends on it starts: from a local
 * directory or archive (as a CDK asset), an S3 prefix or an S3 archive; incremental, atomic per
 * file, and resumable. A client mounted with a SharedFileSystem mountOn* helper through an access
 * point that sees the seed's place starts after the seed's resource, whichever was declared first
 * (the helpers' `waitForSeeds: false` opts out); for any other resource, `x.node.addDependency(seed.resource)`.
 *
 * @example
 * // What files.addSeed('Release', { ... }) makes, built directly.
 * const release = new FileSystemSeed(this, 'Release', {
 *   fileSystem: files,
 *   accessPoint: web,
 *   source: SeedSource.archive(bucket, 'releases/site-1.4.2.tar.gz'),
 * });
 * // A client mounted elsewhere than through the helpers waits with a dependency of its own.
 * service.node.addDependency(release.resource);
 */
export class FileSystemSeed extends Construct {
  /** Whether `x` is a FileSystemSeed, made by any copy of this package. */
  public static isFileSystemSeed(x: any): x is FileSystemSeed {
    return hasBrand(x, 'FileSystemSeed');
  }

  /**
   * The seed function (single-function engine: shared by the seeds of the stack that mount the same
   * access point with the same size and subnets), or the batch worker (Distributed Map engine).
   */
  public readonly function?: lambda.Function;
  /** The custom resource whose completion means the content is in place. */
  public readonly resource: CustomResource;

  /** The engine that copies; it decides which metrics exist. */
  public readonly engineKind: SeedEngineKind;

  private readonly where: string;
  private readonly metricsName: string;
  private readonly failureMetrics: Record<string, cloudwatch.IMetric>;
  /** The DataSync task's id (`task-...`), the dimension of its AWS/DataSync metrics. */
  private readonly dataSyncTaskId?: string;

  constructor(scope: Construct, id: string, props: FileSystemSeedProps) {
    super(scope, id);
    brand(this, 'FileSystemSeed');
    this.where = `FileSystemSeed(${this.node.path})`;
    const engine = props.engine ?? SeedEngine.singleFunction();
    this.refuseUnsupportedOptions(props, engine);
    const targetPath = props.targetPath ?? '/';
    const targetSubPath = targetPath.replace(/^\/+|\/+$/g, '');
    const concurrency = props.concurrency ?? DEFAULT_CONCURRENCY;
    check(targetPath.startsWith('/') && targetSubPathProblem(targetSubPath) === undefined,
      this.where, 'targetPath', targetPath, "must be an absolute path under the access point's root, without empty, '.' or '..' parts or names starting with .cdk-efs-kit", this);
    check(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= MAX_CONCURRENCY, this.where, 'concurrency', concurrency, `must be an integer from 1 to ${MAX_CONCURRENCY}`, this);

    this.engineKind = engine.kind;
    this.metricsName = this.node.path;
    const source = props.source.bind(this);
    const settings: SeedResourceProperties = {
      Bucket: source.bucket.bucketName,
      Key: source.key,
      Format: source.format,
      Fingerprint: source.fingerprint,
      MountPath: SEED_MOUNT_PATH,
      FileSystemId: props.fileSystem.fileSystemId,
      AccessPointId: props.accessPoint.accessPointId,
      TargetSubPath: targetSubPath,
      Concurrency: String(concurrency),
      Prune: String(props.prune ?? false),
      RemoveOnDelete: String(props.removeOnDelete ?? false),
      MetricsName: this.metricsName,
      ...archiveLimitProperties(this, this.where, props.archiveLimits, source.format),
    };
    // The handler checks these again on every request (it is the trust boundary), with the same function.
    const problems = seedPropertyProblems(settings, (value) => Token.isUnresolved(value));
    if (problems.length > 0) throw new ValidationError(`${this.where}: ${problems.join('; ')}.`, this);
    claimSeedPlace({ seed: this, fileSystem: props.fileSystem, accessPoint: props.accessPoint, targetSubPath }, this.where);

    const wiring = engine._wire({
      seed: this, where: this.where, engine: String(engine), props, source, settings, filesFailed: this.metricFilesFailed(),
      runsFailed: this.seedMetric(SEED_METRIC.runsFailed, cloudwatch.Unit.COUNT, cloudwatch.Stats.SUM),
    });
    this.function = wiring.function;
    this.resource = wiring.resource;
    // Which place the resource seeds, for another seed resource's Delete to read (an engine change replaces the resource, on the same place).
    (this.resource.node.defaultChild as CfnResource).addMetadata(SEED_PLACE_METADATA, placeId(props.fileSystem.fileSystemId, props.accessPoint.accessPointId, targetSubPath));
    enterSeedLane(this.resource);
    this.failureMetrics = wiring.failureMetrics;
    this.dataSyncTaskId = wiring.dataSyncTaskId;
    startClientsAfter(this, props.fileSystem);
  }

  /**
   * Files written per period: Sum of `SeedFilesWritten` (single-function and Distributed Map engines,
   * which publish the seed's own metrics), or of DataSync's `FilesTransferred` for the task.
   */
  public metricFilesWritten(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    if (this.dataSyncTaskId) return dataSyncMetric(this.dataSyncTaskId, 'FilesTransferred', cloudwatch.Unit.COUNT, options);
    return this.seedMetric(SEED_METRIC.written, cloudwatch.Unit.COUNT, cloudwatch.Stats.SUM, options);
  }

  /** Files that could not be copied, per period (Sum of `SeedFilesFailed`). */
  public metricFilesFailed(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.seedMetric(SEED_METRIC.failed, cloudwatch.Unit.COUNT, cloudwatch.Stats.SUM, options);
  }

  /** Bytes the seed went through, per period: Sum of `SeedBytes`, or of DataSync's `BytesTransferred` for the task. */
  public metricBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    if (this.dataSyncTaskId) return dataSyncMetric(this.dataSyncTaskId, 'BytesTransferred', cloudwatch.Unit.BYTES, options);
    return this.seedMetric(SEED_METRIC.bytes, cloudwatch.Unit.BYTES, cloudwatch.Stats.SUM, options);
  }

  /** Files written per second by each invocation (Average of `SeedFilesPerSecond`). */
  public metricFilesPerSecond(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.seedMetric(SEED_METRIC.rate, cloudwatch.Unit.COUNT_PER_SECOND, cloudwatch.Stats.AVERAGE, options);
  }

  /**
   * Failures of this seed per period, whatever the engine and whether the deploy waits: failed files
   * and failed invocations, the time limit included (single function), failed files and executions
   * that failed, timed out or were stopped (Distributed Map), executions that ended in ERROR, a
   * cancelled one included (DataSync). Above zero means content is missing.
   */
  public metricFailures(options: cloudwatch.MathExpressionOptions = {}): cloudwatch.MathExpression {
    const ids = Object.keys(this.failureMetrics);
    return new cloudwatch.MathExpression({
      expression: ids.map((id) => `FILL(${id}, 0)`).join(' + '),
      usingMetrics: this.failureMetrics,
      label: 'Seed failures',
      period: DEFAULT_METRIC_PERIOD,
      ...options,
    });
  }

  private seedMetric(metricName: string, unit: cloudwatch.Unit, statistic: string, options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return seedMetric(this.metricsName, metricName, unit, statistic, options);
  }


  /** Options the engine cannot honour are an error: nothing given is silently ignored. */
  private refuseUnsupportedOptions(props: FileSystemSeedProps, engine: SeedEngine): void {
    for (const [option, why] of Object.entries(engine._unsupportedOptions)) {
      const value = props[option as keyof SeedOptions];
      if (value === undefined || value === OPTION_DEFAULTS[option as keyof SeedOptions]) continue;
      const given = typeof value === 'object' ? `{ ${Object.keys(value).join(', ')} }` : JSON.stringify(value);
      const instead = engine.kind === SeedEngineKind.SINGLE_FUNCTION ? 'leave it out' : 'leave it out or use SeedEngine.singleFunction()';
      throw new ValidationError(`${this.where}: ${propName(option)} is not supported by ${engine}: ${why}; ${instead}, got ${given}.`, this);
    }
  }
}
