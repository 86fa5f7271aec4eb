import { Annotations } from 'aws-cdk-lib';
import { DistributedMapSeedRun } from './distributed-map-seed-run';
import { functionSize, requireObjects, requireS3Route } from './engine-requirements';
import { seedFunctionPlacement } from './seed-function-placement';
import { EngineWiring, targetOf } from './seed-wiring';
import { check } from '../../core/validate';
import type { DistributedMapEngineOptions } from '../seed-engine-options';
import { DEFAULT_METRIC_PERIOD } from '../../core/metric-period';

/** SeedEngine.distributedMap(): a Step Functions Distributed Map of Lambda workers over batches of keys. */
export function distributedMapEngine(options: DistributedMapEngineOptions): EngineWiring {
  return {
    unsupportedOptions: {
      prune: 'its workers copy batches of keys and keep no record of what earlier seeds wrote',
      removeOnDelete: 'its workers keep no record of what they wrote',
      archiveLimits: 'it copies S3 objects as they are and extracts no archive',
    },
    wire: (context) => {
      const { seed, props, source, settings, where } = context;
      requireObjects(context);
      const placement = seedFunctionPlacement(context);
      const maxConcurrency = options.maxConcurrency ?? 100;
      check(Number.isInteger(maxConcurrency) && maxConcurrency >= 1 && maxConcurrency <= 10000, where, 'maxConcurrency', maxConcurrency, 'must be an integer from 1 to 10,000 (the Distributed Map limit)', seed);
      if (maxConcurrency > 3000) {
        Annotations.of(seed).addWarningV2('cdk-efs-kit:seedConnectionBurst',
          `maxConcurrency ${maxConcurrency}: each worker is one EFS client connection, and EFS accepts 3,000 new connections in a burst, then 500 a minute.`);
      }
      const run = new DistributedMapSeedRun(seed, 'DistributedMap', {
        ...options,
        maxConcurrency,
        fileSystem: props.fileSystem,
        accessPoint: props.accessPoint,
        bucket: source.bucket,
        prefix: source.key,
        // S3 Inventory CSV reports URL-encode keys: the worker decodes them.
        batchInput: options.inventory ? { ...settings, KeysUrlEncoded: 'true' } : settings,
        mountPath: settings.MountPath,
        concurrency: Number(settings.Concurrency),
        workerSize: functionSize(context, options),
        workerPlacement: placement,
        trigger: source.fingerprint,
        target: targetOf(context),
        waitForCompletion: props.waitForCompletion ?? true,
      });
      const period = { period: DEFAULT_METRIC_PERIOD };
      const failureMetrics = {
        files_failed: context.filesFailed,
        // A run that ends any way but SUCCEEDED left content out: failed, timed out, or stopped.
        runs_failed: run.stateMachine.metricFailed(period),
        runs_timed_out: run.stateMachine.metricTimedOut(period),
        runs_aborted: run.stateMachine.metricAborted(period),
      };
      requireS3Route(context, 'the Distributed Map\'s workers', placement);
      return { resource: run.resource, function: run.worker, failureMetrics };
    },
  };
}
