import { Fn } from 'aws-cdk-lib';
import { DataSyncSeedRun } from './datasync-seed-run';
import { requireNonRootUser, requireObjects } from './engine-requirements';
import { EngineWiring, targetOf } from './seed-wiring';
import type { DataSyncEngineOptions } from '../seed-engine-options';
import { ValidationError } from '../../core/validation-error';

/** SeedEngine.dataSync(): an AWS DataSync task from the S3 prefix to the access point. */
export function dataSyncEngine(options: DataSyncEngineOptions): EngineWiring {
  return {
    unsupportedOptions: {
      concurrency: 'DataSync sets its own parallelism',
      removeOnDelete: 'DataSync keeps no record of what it wrote',
      archiveLimits: 'DataSync copies S3 objects as they are and extracts no archive',
    },
    wire: (context) => {
      const { props, source, settings, where, engine } = context;
      requireObjects(context);
      const removeDeletedFiles = options.removeDeletedFiles ?? props.prune ?? false;
      if (options.transferAll && removeDeletedFiles) {
        // https://docs.aws.amazon.com/datasync/latest/userguide/API_Options.html, PreserveDeletedFiles:
        // "If you set this parameter to REMOVE, you can't set TransferMode to ALL."
        throw new ValidationError(`${where}: transferAll cannot be combined with ${options.removeDeletedFiles ? 'removeDeletedFiles' : 'prune'} in ${engine}: `
          + 'DataSync refuses TransferMode ALL with PreserveDeletedFiles REMOVE (transferring everything, it does not scan the destination, '
          + 'so it cannot know what to delete); drop one of them, got transferAll true.', context.seed);
      }
      requireNonRootUser(context);
      const run = new DataSyncSeedRun(context.seed, 'DataSync', {
        ...options,
        fileSystem: props.fileSystem,
        accessPoint: props.accessPoint,
        vpc: props.fileSystem.vpc,
        subnet: props.fileSystem.mountTargetSubnets.subnets[0],
        mountTargetsReady: props.fileSystem.mountTargetsReady,
        bucket: source.bucket,
        prefix: source.key,
        subdirectory: `/${settings.TargetSubPath}`,
        trigger: source.fingerprint,
        target: targetOf(context),
        removeDeletedFiles,
        waitForCompletion: props.waitForCompletion ?? true,
      });
      return {
        resource: run.resource,
        dataSyncTaskId: Fn.select(1, Fn.split('/', run.task.attrTaskArn)),
        failureMetrics: { failed_executions: run.metricFailedExecutions() },
      };
    },
  };
}
