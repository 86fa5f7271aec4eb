import { dataSyncEngine } from './engines/datasync-engine';
import { distributedMapEngine } from './engines/distributed-map-engine';
import type { EngineWiring, SeedWiring, SeedWiringContext } from './engines/seed-wiring';
import { singleFunctionEngine } from './engines/single-function-engine';
import type { SeedOptions } from './file-system-seed';
import { DataSyncEngineOptions, DistributedMapEngineOptions, SeedEngineKind, SingleFunctionEngineOptions } from './seed-engine-options';

/**
 * How a seed runs at deploy time. One Lambda function (the default) handles archives and prefixes
 * up to a few GB per deploy; DataSync is AWS's managed transfer service for large S3 prefixes; a
 * Distributed Map spreads millions of S3 objects over many Lambda workers.
 *
 * @example
 * // A large S3 prefix, copied by AWS DataSync; SeedEngine.distributedMap() for millions of small files.
 * files.addSeed('Datasets', {
 *   accessPoint: jobs,
 *   source: SeedSource.s3(bucket, 'datasets/'),
 *   engine: SeedEngine.dataSync({ verifyMode: DataSyncVerifyMode.ONLY_FILES_TRANSFERRED }),
 * });
 */
export class SeedEngine {
  /** One Lambda function running the cdk-efs-kit copier, resuming across invocations. */
  public static singleFunction(options: SingleFunctionEngineOptions = {}): SeedEngine {
    return new SeedEngine(SeedEngineKind.SINGLE_FUNCTION, options, undefined, undefined, singleFunctionEngine(options));
  }

  /** An AWS DataSync task (S3 sources only), run and awaited at deploy time. */
  public static dataSync(options: DataSyncEngineOptions = {}): SeedEngine {
    return new SeedEngine(SeedEngineKind.DATASYNC, undefined, options, undefined, dataSyncEngine(options));
  }

  /**
   * A Step Functions Distributed Map (S3 sources only) that lists the prefix and runs the cdk-efs-kit
   * copier on batches of keys in up to thousands of parallel Lambda workers.
   */
  public static distributedMap(options: DistributedMapEngineOptions = {}): SeedEngine {
    return new SeedEngine(SeedEngineKind.DISTRIBUTED_MAP, undefined, undefined, options, distributedMapEngine(options));
  }

  private constructor(
    /** Which engine this is. */
    public readonly kind: SeedEngineKind,
    /** The options given to `singleFunction()`. */
    public readonly singleFunctionOptions: SingleFunctionEngineOptions | undefined,
    /** The options given to `dataSync()`. */
    public readonly dataSyncOptions: DataSyncEngineOptions | undefined,
    /** The options given to `distributedMap()`. */
    public readonly distributedMapOptions: DistributedMapEngineOptions | undefined,
    private readonly wiring: EngineWiring,
  ) {}

  /**
   * The seed options this engine cannot honour, each with the reason.
   * @internal
   */
  public get _unsupportedOptions(): Partial<Record<keyof SeedOptions, string>> {
    return this.wiring.unsupportedOptions;
  }

  /**
   * Builds this engine's copy for `context.seed`: its run, its custom resource, its failure metrics.
   * @internal
   */
  public _wire(context: SeedWiringContext): SeedWiring {
    return this.wiring.wire(context);
  }

  /** The factory call that makes this engine, e.g. `SeedEngine.dataSync()`, for messages. */
  public toString(): string {
    const factory = { [SeedEngineKind.SINGLE_FUNCTION]: 'singleFunction', [SeedEngineKind.DATASYNC]: 'dataSync', [SeedEngineKind.DISTRIBUTED_MAP]: 'distributedMap' }[this.kind];
    return `SeedEngine.${factory}()`;
  }
}
