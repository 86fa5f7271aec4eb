import type { CustomResource } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { SeedResourceProperties } from '../contract/resource-properties';
import { placeTarget } from '../contract/seed-place';
import type { FileSystemSeedProps, SeedOptions } from '../file-system-seed';
import type { SeedSourceConfig } from '../seed-source';

/**
 * What a seed engine gets from the FileSystemSeed it copies for, and what it gives back: each
 * engine (one module beside this one) builds its own run behind SeedEngine, as a SeedSource binds.
 */

/** What the seed knows once its props are checked and its source is bound. */
export interface SeedWiringContext {
  /** The seed: the scope of the engine's constructs and warnings. */
  readonly seed: Construct;
  /** `FileSystemSeed(<path>)`, how every message starts. */
  readonly where: string;
  /** The engine's factory call, e.g. `SeedEngine.dataSync()`, for messages. */
  readonly engine: string;
  readonly props: FileSystemSeedProps;
  readonly source: SeedSourceConfig;
  /** The custom resource's properties, as checked against the seed's contract. */
  readonly settings: SeedResourceProperties;
  /** The seed's own `SeedFilesFailed` metric, for engines that publish it. */
  readonly filesFailed: cloudwatch.IMetric;
  /** The seed's own `SeedRunsFailed` metric: requests of its custom resource that the seed handler failed. */
  readonly runsFailed: cloudwatch.IMetric;
}

/** What an engine built. */
export interface SeedWiring {
  /** The custom resource whose completion means the content is in place. */
  readonly resource: CustomResource;
  /** The function that copies (single function, shared by the seeds on its access point), or the batch worker (Distributed Map). */
  readonly function?: lambda.Function;
  /** Metrics that count this seed's failures, by their id in the seed's `metricFailures` expression. */
  readonly failureMetrics: Record<string, cloudwatch.IMetric>;
  /** The DataSync task's id (`task-...`), the dimension of its AWS/DataSync metrics. */
  readonly dataSyncTaskId?: string;
}

/** One engine: the seed options it cannot honour (with the reason), and how it builds its run. */
export interface EngineWiring {
  readonly unsupportedOptions: Partial<Record<keyof SeedOptions, string>>;
  wire(context: SeedWiringContext): SeedWiring;
}

/** Where the copy lands (file system, access point, target path), as tokens the template resolves. */
export function targetOf(context: SeedWiringContext): string {
  return placeTarget(context.props.fileSystem.fileSystemId, context.props.accessPoint.accessPointId, context.settings.TargetSubPath);
}
