import { CfnResource, Duration, Token } from 'aws-cdk-lib';
import type * as datasync from 'aws-cdk-lib/aws-datasync';
import * as s3files from 'aws-cdk-lib/aws-s3files';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { CustomResource } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { archiveLimitProperties } from './archive-limit-properties';
import { placeId, SEED_PLACE_METADATA } from './contract/seed-place';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from './contract/limits';
import { SEED_METRIC } from './contract/metric-names';
import { dataSyncMetric, seedMetric } from './seed-metric';
import { MAX_INVOCATION_TIMEOUT_SECONDS, SeedResourceProperties, seedPropertyProblems, targetSubPathProblem } from './contract/resource-properties';
import {
  MAX_VISIBILITY_TIMEOUT_SECONDS, MIN_VISIBILITY_TIMEOUT_SECONDS, S3FilesSeedResourceProperties, s3FilesSeedPropertyProblems,
} from './contract/s3-files-seed-properties';
import { s3FilesDataSyncRun } from './engines/s3-files-datasync';
import { bucketPath, mountPath, s3FilesSeedFunctions, S3_FILES_SEED_MOUNT_PATH } from './engines/s3-files-seed-functions';
import type { SeedArchiveLimits } from './file-system-seed';
import { claimS3FilesSeedPlace, startS3FilesClientsAfter } from './s3-files-seed-places';
import { SeedEngine } from './seed-engine';
import { SeedEngineKind } from './seed-engine-options';
import { enterSeedLane } from './seed-lanes';
import { SeedSource } from './seed-source';
import { DEFAULT_METRIC_PERIOD } from '../core/metric-period';
import { brand, hasBrand } from '../core/type-brand';
import { check } from '../core/validate';
import { ValidationError } from '../core/validation-error';
import type { IS3FilesAccessPoint } from '../s3-files/s3-files-access-point';
import type { IS3FilesFileSystem } from '../s3-files/s3-files-file-system-base';
import { propName } from '../core/contract/prop-name';

/** Which way an [S3FilesSeed](#cdk-efs-kit.S3FilesSeed) writes. */
export enum SeedThrough {
  /**
   * Objects written to the file system's bucket (server-side copies from an S3 source): S3's
   * parallelism, no NFS round trip or 32 KiB write minimum per file, nothing on the
   * high-performance tier until a client reads it; the resource completes once the files show
   * through the mount. Files carry no POSIX owner or mode of the seed's.
   */
  BUCKET = 'bucket',
  /**
   * Files written through the mount by the EFS seed's copier, as the access point's POSIX user and
   * with the source's modes; S3 Files exports them to the bucket about a minute later. Each write
   * is metered as 32 KiB at least and lands on the high-performance tier.
   */
  MOUNT = 'mount',
}

/** What to seed onto an S3 Files file system, and how: [S3FilesFileSystem.addSeed](#cdk-efs-kit.S3FilesFileSystemBase.addSeed) takes these. */
export interface S3FilesSeedOptions {
  /** What to copy: the EFS seed's sources (a local directory or archive as an asset, an S3 prefix, an S3 archive). */
  readonly source: SeedSource;
  /**
   * Directory to fill: from the file system's root (the objects `<file system prefix><targetPath>/<file>`
   * of its bucket), or under the access point's root with `SeedThrough.MOUNT`.
   * @default '/'
   */
  readonly targetPath?: string;
  /**
   * Which way the seed writes: the bucket, or the mount where POSIX owners and modes matter.
   * @default SeedThrough.BUCKET
   */
  readonly through?: SeedThrough;
  /**
   * The access point a `SeedThrough.MOUNT` seed writes through: files get its POSIX user, and
   * nothing outside its root can be touched. Required with MOUNT; not for BUCKET.
   * @default - none
   */
  readonly accessPoint?: IS3FilesAccessPoint;
  /**
   * The engine that copies: `SeedEngine.singleFunction()` (its `memorySize`, `vcpus` and `timeout`
   * apply), or, for large S3 prefixes through the bucket, `SeedEngine.dataSync()`: a DataSync task
   * in Enhanced mode from the source prefix to the seed's key prefix, without prune or removal. The
   * Distributed Map engine does not serve S3 Files.
   * @default SeedEngine.singleFunction()
   */
  readonly engine?: SeedEngine;
  /**
   * Objects written at once, 1 to 1,024: S3 takes thousands of requests per second per prefix.
   * @default 64
   */
  readonly concurrency?: number;
  /**
   * Delete the objects an earlier seed wrote that the source no longer has, where they are still as
   * the seed wrote them (the same version). An object the application wrote, or rewrote, is never deleted.
   * @default false
   */
  readonly prune?: boolean;
  /**
   * Remove what the seed wrote when this resource is deleted from the stack: the objects it wrote
   * that nobody changed since (by their versions), then its manifest. Objects the application wrote
   * or rewrote are kept.
   * @default false - the objects stay in the bucket
   */
  readonly removeOnDelete?: boolean;
  /**
   * Limits on what an archive source may expand to (archive sources, local directories included).
   * @default - 8 GiB per member, 64 GiB in all, 1,000,000 members, a compression ratio of 100
   */
  readonly archiveLimits?: SeedArchiveLimits;
  /**
   * How long the seed waits, once its objects are written, for every seeded file to show through
   * the file system's mount with the source's size, before it fails naming those that did not. S3
   * Files imports a directory's entries when it is first looked up, and shows a change in a
   * directory it imported about 30 s later. From 1 minute to 2 minutes less than the engine's
   * `timeout` (the wait runs inside one invocation). Files are compared by type and size, not
   * content. `SeedThrough.BUCKET` only: through the mount the files are there once written.
   * @default Duration.minutes(5)
   */
  readonly visibilityTimeout?: Duration;
  /**
   * Subnets of the file system's VPC for the seed's functions, in zones with a mount target, with a
   * route to S3 (the seed writes the bucket and reads its source there). Seeds share their functions
   * only when they run in the same subnets.
   * @default - the file system's mount target subnets
   */
  readonly vpcSubnets?: ec2.SubnetSelection;
}

/** Properties of an [S3FilesSeed](#cdk-efs-kit.S3FilesSeed). */
export interface S3FilesSeedProps extends S3FilesSeedOptions {
  /** The file system to fill. */
  readonly fileSystem: IS3FilesFileSystem;
}

const DEFAULT_VISIBILITY_TIMEOUT = Duration.minutes(5);

/** What both paths' resource properties hold. */
type CommonProperties = Pick<SeedResourceProperties, 'Bucket' | 'Key' | 'Format' | 'Fingerprint' | 'MountPath' | 'Concurrency' | 'Prune' | 'RemoveOnDelete' | 'MetricsName'>;

const join = (...parts: string[]) => parts.filter((p) => p !== '').join('/');

/** The access point's root directory, from the file system's root ('' for it), as its template says; it must be known at synth. */
function accessPointRoot(seed: Construct, where: string, props: S3FilesSeedProps): string {
  const cfn = props.accessPoint?.node.defaultChild as s3files.CfnAccessPoint | undefined;
  const root = cfn && CfnResource.isCfnResource(cfn) ? cfn.rootDirectory : undefined;
  const rootPath = Token.isUnresolved(root) ? undefined : (root as s3files.CfnAccessPoint.RootDirectoryProperty | undefined)?.path ?? '/';
  if (rootPath === undefined || Token.isUnresolved(rootPath)) {
    throw new ValidationError(`${where}: the root directory of ${propName('accessPoint')} ${props.accessPoint?.node.path} is not known at synth; a SeedThrough.MOUNT seed needs it to know its place in the bucket: give an access point made with fileSystem.addAccessPoint.`, seed);
  }
  return rootPath.replace(/^\/+|\/+$/g, '');
}

/** Engines that cannot serve the path the seed writes through are refused. */
function refuseEngine(seed: Construct, where: string, engine: SeedEngine, through: SeedThrough): void {
  if (engine.kind === SeedEngineKind.DISTRIBUTED_MAP) {
    throw new ValidationError(`${where}: ${engine} does not serve S3 Files; use SeedEngine.dataSync() for a large S3 prefix (a DataSync task in Enhanced mode, S3 to S3, with no file-count quota) `
      + `or SeedEngine.singleFunction(), got ${engine}.`, seed);
  }
  if (engine.kind === SeedEngineKind.DATASYNC && through === SeedThrough.MOUNT) {
    throw new ValidationError(`${where}: ${engine} writes the bucket only (DataSync has no S3 Files location); use ${propName('through')} SeedThrough.BUCKET, `
      + 'or SeedEngine.singleFunction() through the mount, got SeedThrough.MOUNT.', seed);
  }
}

/**
 * Fills an S3 Files file system at deploy time. By default it writes its bucket: each file of the
 * source becomes an object under the file system's prefix (copied server-side from an S3 source,
 * uploaded from an asset or archive), with S3's parallelism and none of the mount's per-file round
 * trips, 32 KiB write minimums or export delay; incremental (an unchanged object is not written
 * again), prune and removal only of the objects the seed wrote and nobody changed since (by
 * version), and the resource completes once every seeded file shows through the mount. POSIX owner,
 * mode and times are not carried (objects have none). Where they matter, `SeedThrough.MOUNT` writes
 * through an access point with the EFS seed's copier instead. For a large S3 prefix,
 * `SeedEngine.dataSync()` copies with a DataSync task in Enhanced mode. Clients mounted with the file
 * system's mountOn* helpers start after its seeds. See docs/seed-s3-files.md.
 *
 * @example
 * const s3Files = new S3FilesFileSystem(this, 'S3Files', { vpc });
 * s3Files.addSeed('Site', { source: SeedSource.asset('./site'), targetPath: '/www', prune: true });
 */
export class S3FilesSeed extends Construct {
  /** Whether `x` is an S3FilesSeed, made by any copy of this package. */
  public static isS3FilesSeed(x: any): x is S3FilesSeed {
    return hasBrand(x, 'S3FilesSeed');
  }

  /**
   * The seed's onEvent function, shared by the stack's S3 Files seeds of the same path on the same
   * file system (and access point) with the same size and subnets; the copy itself runs in the
   * resume function beside it, which the Provider framework calls until the copy is done.
   */
  public readonly function: lambda.Function;
  /** Which way the seed writes. */
  public readonly through: SeedThrough;
  /** The custom resource whose completion means the content is in the bucket and shows through the mount. */
  public readonly resource: CustomResource;
  /** The key prefix of the file system's bucket that the seed fills (`''` for the whole bucket, else ending in '/'). */
  public readonly keyPrefix: string;
  /** The DataSync task that copies, with `SeedEngine.dataSync()`. */
  public readonly dataSyncTask?: datasync.CfnTask;

  private readonly metricsName: string;
  /** The DataSync task's id (`task-...`), the dimension of its AWS/DataSync metrics, and its failed executions. */
  private readonly dataSyncTaskId?: string;
  private readonly dataSyncFailures?: cloudwatch.IMetric;

  constructor(scope: Construct, id: string, props: S3FilesSeedProps) {
    super(scope, id);
    brand(this, 'S3FilesSeed');
    const where = `S3FilesSeed(${this.node.path})`;
    const engine = props.engine ?? SeedEngine.singleFunction();
    const through = props.through ?? SeedThrough.BUCKET;
    this.through = through;
    refuseEngine(this, where, engine, through);
    const targetPath = props.targetPath ?? '/';
    const subPath = targetPath.replace(/^\/+|\/+$/g, '');
    check(targetPath.startsWith('/') && targetSubPathProblem(subPath) === undefined, where, 'targetPath', targetPath,
      `must be an absolute path ${through === SeedThrough.MOUNT ? 'under the access point\'s root' : 'of the file system'}, without empty, '.' or '..' parts or names starting with .cdk-efs-kit`, this);
    const concurrency = props.concurrency ?? DEFAULT_CONCURRENCY;
    check(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= MAX_CONCURRENCY, where, 'concurrency', concurrency, `must be an integer from 1 to ${MAX_CONCURRENCY}`, this);

    const files = props.fileSystem;
    // An imported file system's prefix is not checked on import: 'data' would put the objects beside what it serves.
    check(Token.isUnresolved(files.prefix) || files.prefix === '' || (files.prefix.endsWith('/') && !files.prefix.startsWith('/')), where, 'fileSystem.prefix', files.prefix,
      "must be '' or a key prefix ending in '/' (e.g. 'data/'), as S3 Files serves it", this);
    // The directory the seed fills, from the file system's root (through the mount: under the access point's root).
    const placePath = through === SeedThrough.MOUNT ? join(accessPointRoot(this, where, props), subPath) : subPath;
    this.keyPrefix = `${files.prefix}${placePath === '' ? '' : `${placePath}/`}`;
    this.metricsName = this.node.path;
    const source = props.source.bind(this);
    const common = {
      Bucket: source.bucket.bucketName,
      Key: source.key,
      Format: source.format,
      Fingerprint: source.fingerprint,
      MountPath: S3_FILES_SEED_MOUNT_PATH,
      Concurrency: String(concurrency),
      Prune: String(props.prune ?? false),
      RemoveOnDelete: String(props.removeOnDelete ?? false),
      MetricsName: this.metricsName,
      ...archiveLimitProperties(this, where, props.archiveLimits, source.format),
    };
    // DataSync copies first; the seed's resource then claims the place and checks what shows through the mount.
    const dataSync = engine.kind === SeedEngineKind.DATASYNC ? s3FilesDataSyncRun(this, where, props, engine, source, this.keyPrefix) : undefined;
    const path = through === SeedThrough.MOUNT
      ? this.throughMount(where, props, common, subPath)
      : this.throughBucket(where, props, common, subPath, dataSync !== undefined);
    claimS3FilesSeedPlace(this, where, files, placePath);

    const wired = s3FilesSeedFunctions(this, where, props, engine, source, path);
    this.function = wired.function;
    this.resource = wired.resource;
    if (dataSync) {
      this.resource.node.addDependency(dataSync.resource);
      this.dataSyncTask = dataSync.task;
      this.dataSyncTaskId = dataSync.taskId;
      this.dataSyncFailures = dataSync.metricFailedExecutions();
    }
    if (through === SeedThrough.MOUNT) {
      // As on EFS: which place the resource seeds, for another seed resource's Delete to read.
      (this.resource.node.defaultChild as CfnResource).addMetadata(SEED_PLACE_METADATA, placeId(files.fileSystemId, props.accessPoint!.accessPointId, subPath));
    }
    enterSeedLane(this.resource);
    startS3FilesClientsAfter(this, files);
  }

  /** Objects written to the bucket, complete once they show through the mount. */
  private throughBucket(where: string, props: S3FilesSeedProps, common: CommonProperties, subPath: string, copiedByDataSync: boolean) {
    if (props.accessPoint) {
      throw new ValidationError(`${where}: ${propName('accessPoint')} applies to ${propName('through')} SeedThrough.MOUNT only: through the bucket the seed writes objects, which no access point's user owns; leave it out, or write through the mount.`, this);
    }
    const visibility = (props.visibilityTimeout ?? DEFAULT_VISIBILITY_TIMEOUT).toSeconds();
    // The wait runs inside one invocation, after the writes and before its last minute: a longer one could never end in its own message.
    const invocation = (props.engine?.singleFunctionOptions?.timeout ?? Duration.minutes(15)).toSeconds();
    const most = invocation - (MAX_INVOCATION_TIMEOUT_SECONDS - MAX_VISIBILITY_TIMEOUT_SECONDS);
    check(visibility >= MIN_VISIBILITY_TIMEOUT_SECONDS && visibility <= most, where, 'visibilityTimeout', `${visibility} s`,
      `must be from ${MIN_VISIBILITY_TIMEOUT_SECONDS / 60} minute to 2 minutes less than the engine's timeout (${invocation / 60} minutes): the wait runs inside one invocation`, this);
    const settings: S3FilesSeedResourceProperties = {
      ...common, TargetBucket: props.fileSystem.bucket.bucketName, TargetPrefix: this.keyPrefix, VisiblePath: subPath, VisibilityTimeoutSeconds: String(visibility),
      ...copiedByDataSync ? { CopiedBy: 'dataSync' as const } : {},
    };
    const problems = s3FilesSeedPropertyProblems(settings, (value) => Token.isUnresolved(value));
    if (problems.length > 0) throw new ValidationError(`${where}: ${problems.join('; ')}.`, this);
    return bucketPath(props.fileSystem, this.keyPrefix, { ...settings });
  }

  /** The EFS seed's copier through the access point: POSIX owner and modes, exported to the bucket by S3 Files. */
  private throughMount(where: string, props: S3FilesSeedProps, common: CommonProperties, subPath: string) {
    if (!props.accessPoint) {
      throw new ValidationError(`${where}: ${propName('accessPoint')} is required with ${propName('through')} SeedThrough.MOUNT: the seed writes through it, as its POSIX user; give one of the file system's access points (fileSystem.addAccessPoint), got undefined.`, this);
    }
    if (props.visibilityTimeout !== undefined) {
      throw new ValidationError(`${where}: ${propName('visibilityTimeout')} applies to SeedThrough.BUCKET only: through the mount the files are in the file system once written; leave it out, got ${props.visibilityTimeout.toHumanString()}.`, this);
    }
    const settings: SeedResourceProperties = {
      ...common, FileSystemId: props.fileSystem.fileSystemId, AccessPointId: props.accessPoint.accessPointId, TargetSubPath: subPath,
    };
    const problems = seedPropertyProblems(settings, (value) => Token.isUnresolved(value));
    if (problems.length > 0) throw new ValidationError(`${where}: ${problems.join('; ')}.`, this);
    return mountPath(props.fileSystem, props.accessPoint, { ...settings });
  }

  /** Objects written per period: Sum of `SeedFilesWritten`, or of DataSync's `FilesTransferred` for the task. */
  public metricFilesWritten(options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    if (this.dataSyncTaskId) return dataSyncMetric(this.dataSyncTaskId, 'FilesTransferred', cloudwatch.Unit.COUNT, options);
    return this.seedMetric(SEED_METRIC.written, cloudwatch.Unit.COUNT, cloudwatch.Stats.SUM, options);
  }

  /** Files that could not be written, per period (Sum of `SeedFilesFailed`). */
  public metricFilesFailed(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.seedMetric(SEED_METRIC.failed, cloudwatch.Unit.COUNT, cloudwatch.Stats.SUM, options);
  }

  /**
   * Failures of this seed per period: failed files and failed requests (the time limit and files that
   * did not show through the mount included), and DataSync executions that ended in ERROR.
   */
  public metricFailures(options: cloudwatch.MathExpressionOptions = {}): cloudwatch.MathExpression {
    const usingMetrics: Record<string, cloudwatch.IMetric> = {
      files_failed: this.metricFilesFailed(),
      runs_failed: this.seedMetric(SEED_METRIC.runsFailed, cloudwatch.Unit.COUNT, cloudwatch.Stats.SUM),
      ...this.dataSyncFailures ? { failed_executions: this.dataSyncFailures } : {},
    };
    return new cloudwatch.MathExpression({
      expression: Object.keys(usingMetrics).map((id) => `FILL(${id}, 0)`).join(' + '),
      usingMetrics,
      label: 'Seed failures',
      period: DEFAULT_METRIC_PERIOD,
      ...options,
    });
  }

  private seedMetric(metricName: string, unit: cloudwatch.Unit, statistic: string, options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return seedMetric(this.metricsName, metricName, unit, statistic, options);
  }
}
