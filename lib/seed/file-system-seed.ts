import { Annotations, CfnResource, CustomResource, Duration, Fn, Size, Token } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from './contract/limits';
import { DEPLOY_TIME_LIMIT_SECONDS } from '../core/contract/deploy-time-limit';
import { LAMBDA_MAX_MEMORY_MIB, LAMBDA_MAX_VCPUS, LAMBDA_MIB_PER_VCPU } from '../core/contract/lambda-cpu';
import { copyWorkersFor, SEED_WORKERS_ENV } from './contract/copy-workers';
import { SEED_METRIC, SEED_METRICS_NAMESPACE, SEED_METRICS_SERVICE } from './contract/metric-names';
import { seedPropertyProblems, SeedResourceProperties, targetSubPathProblem } from './contract/resource-properties';
import { handlerCode } from '../core/handler-code';
import { DataSyncSeedRun } from './engines/datasync-seed-run';
import { deployTimeRun } from '../core/deploy-time-run';
import { DistributedMapSeedRun, SeedFunctionSize } from './engines/distributed-map-seed-run';
import { isImportedVpc, subnetsWithoutS3 } from './s3-route';
import { grantSourceRead } from './seed-grants';
import { claimSeedPlace } from './seed-places';
import { brand, hasBrand } from '../core/type-brand';
import { check } from '../core/validate';
import { DataSyncEngineOptions, DistributedMapEngineOptions, SeedEngine, SeedEngineKind, SingleFunctionEngineOptions } from './seed-engine';
import { SeedSource, SeedSourceConfig, SeedSourceFormat } from './seed-source';
import type { ISharedFileSystem } from '../file-system/shared-file-system-base';

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
}

/** Properties of a [FileSystemSeed](#cdk-efs-kit.FileSystemSeed). */
export interface FileSystemSeedProps extends SeedOptions {
  /** The file system to fill. */
  readonly fileSystem: ISharedFileSystem;
}

const SEED_MOUNT_PATH = '/mnt/seed';
const DEFAULT_SEED_MEMORY_MIB = 2048;

/** The seed options each engine cannot honour, and why: giving one is an error at synth time. */
const UNSUPPORTED_OPTIONS: Record<SeedEngineKind, Partial<Record<keyof SeedOptions, string>>> = {
  [SeedEngineKind.SINGLE_FUNCTION]: {
    waitForCompletion: `its copy runs inside the deploy's custom resource, and must finish within the deploy's time limit of ${DEPLOY_TIME_LIMIT_SECONDS / 60} minutes; `
      + 'to copy S3 objects for longer, use SeedEngine.distributedMap() or SeedEngine.dataSync()',
  },
  [SeedEngineKind.DATASYNC]: {
    concurrency: 'DataSync sets its own parallelism',
    removeOnDelete: 'DataSync keeps no record of what it wrote',
    archiveLimits: 'DataSync copies S3 objects as they are and extracts no archive',
  },
  [SeedEngineKind.DISTRIBUTED_MAP]: {
    prune: 'its workers copy batches of keys and keep no record of what earlier seeds wrote',
    removeOnDelete: 'its workers keep no record of what they wrote',
    archiveLimits: 'it copies S3 objects as they are and extracts no archive',
  },
};

/** What each option does when left out: giving that value to any engine is the same as leaving it out. */
const OPTION_DEFAULTS: Partial<Record<keyof SeedOptions, unknown>> = { prune: false, removeOnDelete: false, waitForCompletion: true };

/**
 * Fills an EFS file system at deploy time, before anything that depends on it starts: from a local
 * directory or archive (as a CDK asset), an S3 prefix or an S3 archive; incremental, atomic per
 * file, and resumable. `service.node.addDependency(seed)` starts a service only once its content is there.
 *
 * @example
 * // What files.addSeed('Release', { ... }) makes, built directly.
 * const release = new FileSystemSeed(this, 'Release', {
 *   fileSystem: files,
 *   accessPoint: web,
 *   source: SeedSource.archive(bucket, 'releases/site-1.4.2.tar.gz'),
 * });
 * service.node.addDependency(release);
 */
export class FileSystemSeed extends Construct {
  /** Whether `x` is a FileSystemSeed, made by any copy of this package. */
  public static isFileSystemSeed(x: any): x is FileSystemSeed {
    return hasBrand(x, 'FileSystemSeed');
  }

  /** The seed function (single-function engine), or the batch worker (Distributed Map engine). */
  public readonly function?: lambda.Function;
  /** The custom resource whose completion means the content is in place. */
  public readonly resource: CustomResource;

  /** The engine that copies; it decides which metrics exist. */
  public readonly engineKind: SeedEngineKind;

  private readonly where: string;
  private readonly metricsName: string;
  private readonly failureMetrics: Record<string, cloudwatch.IMetric> = {};
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
      this.where, 'targetPath', targetPath, "must be an absolute path under the access point's root, without empty, '.' or '..' parts or names starting with .cdk-efs-kit");
    check(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= MAX_CONCURRENCY, this.where, 'concurrency', concurrency, `must be an integer from 1 to ${MAX_CONCURRENCY}`);

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
      ...this.archiveLimitProperties(props.archiveLimits, source.format),
    };
    // The handler checks these again on every request (it is the trust boundary), with the same function.
    const problems = seedPropertyProblems(settings, (value) => Token.isUnresolved(value));
    if (problems.length > 0) throw new Error(`${this.where}: ${problems.join('; ')}.`);
    claimSeedPlace({ seed: this, fileSystem: props.fileSystem, accessPoint: props.accessPoint, targetSubPath }, this.where);

    switch (engine.kind) {
      case SeedEngineKind.DATASYNC: {
        const run = this.runWithDataSync(props, engine, source, settings);
        this.resource = run.resource;
        this.dataSyncTaskId = Fn.select(1, Fn.split('/', run.task.attrTaskArn));
        this.failureMetrics.failed_executions = run.metricFailedExecutions();
        break;
      }
      case SeedEngineKind.DISTRIBUTED_MAP: {
        const run = this.runWithDistributedMap(props, engine, source, settings);
        this.function = run.worker;
        this.resource = run.resource;
        const period = { period: Duration.minutes(5) };
        this.failureMetrics.files_failed = this.metricFilesFailed();
        // A run that ends any way but SUCCEEDED left content out: failed, timed out, or stopped.
        this.failureMetrics.runs_failed = run.stateMachine.metricFailed(period);
        this.failureMetrics.runs_timed_out = run.stateMachine.metricTimedOut(period);
        this.failureMetrics.runs_aborted = run.stateMachine.metricAborted(period);
        this.requireS3Route(props.fileSystem, 'the Distributed Map\'s workers');
        break;
      }
      default: {
        const run = this.runInOneFunction(props, engine.singleFunctionOptions ?? {}, source, settings);
        this.function = run.onEvent;
        this.resource = run.resource;
        const period = { period: Duration.minutes(5) };
        this.failureMetrics.files_failed = this.metricFilesFailed();
        this.failureMetrics.seed_errors = run.onEvent.metricErrors(period);
        // A slice that fails, or the time limit running out, fails in the resume function.
        this.failureMetrics.resume_errors = run.isComplete!.metricErrors(period);
        this.requireS3Route(props.fileSystem, 'the seed functions');
      }
    }
  }

  /**
   * Files written per period: Sum of `SeedFilesWritten` (single-function and Distributed Map engines,
   * which publish the seed's own metrics), or of DataSync's `FilesTransferred` for the task.
   */
  public metricFilesWritten(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    if (this.dataSyncTaskId) return this.dataSyncMetric('FilesTransferred', cloudwatch.Unit.COUNT, options);
    return this.seedMetric(SEED_METRIC.written, cloudwatch.Unit.COUNT, cloudwatch.Stats.SUM, options);
  }

  /** Files that could not be copied, per period (Sum of `SeedFilesFailed`). */
  public metricFilesFailed(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.seedMetric(SEED_METRIC.failed, cloudwatch.Unit.COUNT, cloudwatch.Stats.SUM, options);
  }

  /** Bytes the seed went through, per period: Sum of `SeedBytes`, or of DataSync's `BytesTransferred` for the task. */
  public metricBytes(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    if (this.dataSyncTaskId) return this.dataSyncMetric('BytesTransferred', cloudwatch.Unit.BYTES, options);
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
      period: Duration.minutes(5),
      ...options,
    });
  }

  private seedMetric(metricName: string, unit: cloudwatch.Unit, statistic: string, options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: SEED_METRICS_NAMESPACE,
      metricName,
      dimensionsMap: { service: SEED_METRICS_SERVICE, Seed: this.metricsName },
      unit,
      statistic,
      period: Duration.minutes(5),
      ...options,
    });
  }

  /** AWS/DataSync metrics of the task (dimension TaskId), as DataSync publishes them per execution. */
  private dataSyncMetric(metricName: string, unit: cloudwatch.Unit, options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: 'AWS/DataSync', metricName, dimensionsMap: { TaskId: this.dataSyncTaskId! }, unit,
      statistic: cloudwatch.Stats.SUM, period: Duration.minutes(5), ...options,
    });
  }

  /** onEvent starts the copy; isComplete resumes it from its checkpoint until it is done. */
  private runInOneFunction(props: FileSystemSeedProps, options: SingleFunctionEngineOptions, source: SeedSourceConfig, settings: SeedResourceProperties) {
    return deployTimeRun(this, {
      newFunction: (id, handler) => {
        const fn = new lambda.Function(this, id, {
          runtime: lambda.Runtime.NODEJS_22_X,
          code: handlerCode('seed'),
          handler,
          ...this.functionSize(options, 'SeedEngine.singleFunction()'),
          timeout: options.timeout ?? Duration.minutes(15),
          vpc: props.fileSystem.vpc,
          vpcSubnets: { subnets: props.fileSystem.mountTargetSubnets.subnets },
          description: `cdk-efs-kit seed ${this.node.path}`,
        });
        props.fileSystem.mountOnLambda(fn, props.accessPoint, { mountPath: SEED_MOUNT_PATH, threadPoolSize: Number(settings.Concurrency) });
        grantSourceRead(fn, source);
        return fn;
      },
      onEventId: 'Function',
      isCompleteId: 'ResumeFunction',
      queryInterval: Duration.seconds(10),
      resourceId: 'Resource',
      resourceType: 'Custom::CdkEfsKitSeed',
      properties: { ...settings },
    });
  }

  private runWithDataSync(props: FileSystemSeedProps, engine: SeedEngine, source: SeedSourceConfig, settings: SeedResourceProperties): DataSyncSeedRun {
    this.requireObjects(source, engine);
    const options: DataSyncEngineOptions = engine.dataSyncOptions ?? {};
    const removeDeletedFiles = options.removeDeletedFiles ?? props.prune ?? false;
    if (options.transferAll && removeDeletedFiles) {
      // https://docs.aws.amazon.com/datasync/latest/userguide/API_Options.html, PreserveDeletedFiles:
      // "If you set this parameter to REMOVE, you can't set TransferMode to ALL."
      throw new Error(`${this.where}: transferAll cannot be combined with ${options.removeDeletedFiles ? 'removeDeletedFiles' : 'prune'} in ${engine}: `
        + 'DataSync refuses TransferMode ALL with PreserveDeletedFiles REMOVE (transferring everything, it does not scan the destination, '
        + 'so it cannot know what to delete); drop one of them, got transferAll true.');
    }
    this.requireNonRootUser(props.accessPoint, engine);
    return new DataSyncSeedRun(this, 'DataSync', {
      ...options,
      fileSystem: props.fileSystem,
      accessPoint: props.accessPoint,
      vpc: props.fileSystem.vpc,
      subnet: props.fileSystem.mountTargetSubnets.subnets[0],
      bucket: source.bucket,
      prefix: source.key,
      subdirectory: `/${settings.TargetSubPath}`,
      trigger: source.fingerprint,
      target: `${props.fileSystem.fileSystemId}:${props.accessPoint.accessPointId}:/${settings.TargetSubPath}`,
      removeDeletedFiles,
      waitForCompletion: props.waitForCompletion ?? true,
    });
  }

  private runWithDistributedMap(props: FileSystemSeedProps, engine: SeedEngine, source: SeedSourceConfig, settings: SeedResourceProperties) {
    this.requireObjects(source, engine);
    const options: DistributedMapEngineOptions = engine.distributedMapOptions ?? {};
    const maxConcurrency = options.maxConcurrency ?? 100;
    check(Number.isInteger(maxConcurrency) && maxConcurrency >= 1 && maxConcurrency <= 10000, this.where, 'maxConcurrency', maxConcurrency, 'must be an integer from 1 to 10,000 (the Distributed Map limit)');
    if (maxConcurrency > 3000) {
      Annotations.of(this).addWarningV2('cdk-efs-kit:seedConnectionBurst',
        `maxConcurrency ${maxConcurrency}: each worker is one EFS client connection, and EFS accepts 3,000 new connections in a burst, then 500 a minute.`);
    }
    return new DistributedMapSeedRun(this, 'DistributedMap', {
      ...options,
      maxConcurrency,
      fileSystem: props.fileSystem,
      accessPoint: props.accessPoint,
      bucket: source.bucket,
      prefix: source.key,
      // S3 Inventory CSV reports URL-encode keys: the worker decodes them.
      batchInput: options.inventory ? { ...settings, KeysUrlEncoded: 'true' } : settings,
      mountPath: SEED_MOUNT_PATH,
      concurrency: Number(settings.Concurrency),
      workerSize: this.functionSize(options, 'SeedEngine.distributedMap()'),
      trigger: source.fingerprint,
      target: `${props.fileSystem.fileSystemId}:${props.accessPoint.accessPointId}:/${settings.TargetSubPath}`,
      waitForCompletion: props.waitForCompletion ?? true,
    });
  }

  /** Options the engine cannot honour are an error: nothing given is silently ignored. */
  private refuseUnsupportedOptions(props: FileSystemSeedProps, engine: SeedEngine): void {
    for (const [option, why] of Object.entries(UNSUPPORTED_OPTIONS[engine.kind])) {
      const value = props[option as keyof SeedOptions];
      if (value === undefined || value === OPTION_DEFAULTS[option as keyof SeedOptions]) continue;
      const given = typeof value === 'object' ? `{ ${Object.keys(value).join(', ')} }` : JSON.stringify(value);
      const instead = engine.kind === SeedEngineKind.SINGLE_FUNCTION ? 'leave it out' : 'leave it out or use SeedEngine.singleFunction()';
      throw new Error(`${this.where}: ${option} is not supported by ${engine}: ${why}; ${instead}, got ${given}.`);
    }
  }

  /**
   * The seed's functions read their source from S3 (an asset is an S3 object too): their subnets must
   * reach it. An app-defined VPC is checked once the app is built, so an endpoint added after the
   * seed counts; for an imported VPC, whose routes and endpoints are not in the app, a warning.
   */
  private requireS3Route(fileSystem: ISharedFileSystem, who: string): void {
    const subnets = fileSystem.mountTargetSubnets.subnets;
    const fix = `add an S3 gateway endpoint to the VPC (free): vpc.addGatewayEndpoint('S3', { service: ec2.GatewayVpcEndpointAwsService.S3 })`;
    if (isImportedVpc(fileSystem.vpc)) {
      if (subnetsWithoutS3(fileSystem.vpc, subnets).length > 0) {
        Annotations.of(this).addWarningV2('cdk-efs-kit:seedS3Route', `${who} run in the file system's subnets, which have no egress, and read the source from S3: `
          + `make sure the imported VPC has an S3 endpoint on their route tables, or ${fix}.`);
      }
      return;
    }
    this.node.addValidation({
      validate: () => {
        const cut = subnetsWithoutS3(fileSystem.vpc, subnets);
        if (cut.length === 0) return [];
        return [`${this.where}: ${who} run in the file system's subnets and read the source from S3, but ${cut.map((s) => s.node.path).join(', ')} `
          + `${cut.length === 1 ? 'has' : 'have'} no route to S3 (no egress, no S3 endpoint): ${fix}, or give the file system vpcSubnets with egress.`];
      },
    });
  }

  /**
   * DataSync mounts as root and writes through the access point as its POSIX user; without
   * ClientRootAccess (not granted), that user must not be root: EFS needs ClientRootAccess for an
   * access point user of uid or gid 0 (https://docs.aws.amazon.com/efs/latest/ug/enforce-identity-access-points.html),
   * and squashes root without it. Checked for access points defined in the app; an imported one is trusted.
   */
  private requireNonRootUser(accessPoint: efs.IAccessPoint, engine: SeedEngine): void {
    const cfn = accessPoint.node.defaultChild;
    if (!CfnResource.isCfnResource(cfn) || cfn.cfnResourceType !== 'AWS::EFS::AccessPoint') return;
    const user = (cfn as efs.CfnAccessPoint).posixUser;
    if (Token.isUnresolved(user)) return;
    const { uid, gid } = (user ?? {}) as Partial<efs.CfnAccessPoint.PosixUserProperty>;
    if (Token.isUnresolved(uid) || Token.isUnresolved(gid)) return;
    const problem = user === undefined ? 'enforces no POSIX user' : uid === '0' || gid === '0' ? `enforces uid ${uid} and gid ${gid} (root)` : undefined;
    if (!problem) return;
    throw new Error(`${this.where}: accessPoint ${accessPoint.node.path} ${problem}; ${engine} writes through the access point as its POSIX user `
      + 'and is not granted ClientRootAccess, so that user must not be root: give the access point a non-root posixUser, '
      + 'e.g. AccessPointPreset.applicationUser(path).');
  }

  /** The archive limits as resource properties (only those given: the handler defaults the rest). */
  private archiveLimitProperties(limits: SeedArchiveLimits | undefined, format: SeedSourceFormat): Partial<SeedResourceProperties> {
    if (!limits) return {};
    if (format === SeedSourceFormat.S3_OBJECTS) {
      throw new Error(`${this.where}: archiveLimits applies to archive sources (SeedSource.asset, SeedSource.archive), not to the S3 objects of SeedSource.s3.`);
    }
    const bytes = (name: string, size?: Size) => {
      if (size === undefined) return undefined;
      const value = size.toBytes();
      check(Number.isSafeInteger(value) && value >= 1, this.where, `archiveLimits.${name}`, value, 'must be at least 1 byte');
      return String(value);
    };
    const count = (name: string, value?: number) => {
      if (value === undefined) return undefined;
      check(Number.isSafeInteger(value) && value >= 1, this.where, `archiveLimits.${name}`, value, 'must be a positive integer');
      return String(value);
    };
    const properties = {
      MaxMemberBytes: bytes('maxMemberSize', limits.maxMemberSize),
      MaxTotalBytes: bytes('maxTotalSize', limits.maxTotalSize),
      MaxEntries: count('maxEntries', limits.maxEntries),
      MaxCompressionRatio: count('maxCompressionRatio', limits.maxCompressionRatio),
    };
    return Object.fromEntries(Object.entries(properties).filter(([, value]) => value !== undefined));
  }

  /**
   * A seed function's memory (as given, or sized for `vcpus`: Lambda allots a vCPU per 1,769 MB, 6 at
   * most), and the copy workers it runs for its vCPUs, told through its environment.
   */
  private functionSize(options: { readonly memorySize?: Size; readonly vcpus?: number }, engine: string): SeedFunctionSize {
    let memorySize = (options.memorySize ?? Size.mebibytes(DEFAULT_SEED_MEMORY_MIB)).toMebibytes();
    if (options.vcpus !== undefined) {
      if (options.memorySize !== undefined) throw new Error(`${this.where}: ${engine} takes memorySize or vcpus, not both (vcpus sizes the memory).`);
      check(Number.isInteger(options.vcpus) && options.vcpus >= 1 && options.vcpus <= LAMBDA_MAX_VCPUS, this.where, 'vcpus', options.vcpus, `must be an integer from 1 to ${LAMBDA_MAX_VCPUS} (Lambda's most)`);
      memorySize = Math.min(LAMBDA_MAX_MEMORY_MIB, options.vcpus * LAMBDA_MIB_PER_VCPU);
    }
    const vcpus = options.vcpus ?? Math.max(1, Math.round(memorySize / LAMBDA_MIB_PER_VCPU));
    return { memorySize, environment: { [SEED_WORKERS_ENV]: String(copyWorkersFor(vcpus)) } };
  }

  private requireObjects(source: SeedSourceConfig, engine: SeedEngine): void {
    if (source.format !== SeedSourceFormat.S3_OBJECTS) {
      throw new Error(`${this.where}: ${engine} copies S3 objects as they are and cannot extract archives; use SeedSource.s3(bucket, prefix), or SeedEngine.singleFunction() for ${source.format} sources.`);
    }
  }
}
