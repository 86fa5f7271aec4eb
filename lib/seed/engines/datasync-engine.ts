import { DataSyncSeedRun } from './datasync-seed-run';
import { requireNonRootUser, requireObjects } from './engine-requirements';
import { EngineWiring, SeedWiringContext, targetOf } from './seed-wiring';
import { MountTargetIpAddressType } from '../../file-system/mount-targets-ready';
import type { DataSyncEngineOptions } from '../seed-engine-options';
import { ValidationError } from '../../core/validation-error';
import { propName } from '../../core/contract/prop-name';

/** SeedEngine.dataSync(): an AWS DataSync task from the S3 prefix to the access point. */
export function dataSyncEngine(options: DataSyncEngineOptions): EngineWiring {
  return {
    unsupportedOptions: {
      concurrency: 'DataSync sets its own parallelism',
      removeOnDelete: 'DataSync keeps no record of what it wrote',
      archiveLimits: 'DataSync copies S3 objects as they are and extracts no archive',
      vpcSubnets: 'DataSync runs no function in the VPC: its EFS location reaches the file system from a mount target\'s subnet',
    },
    wire: (context) => {
      const { props, source, settings, where, engine } = context;
      requireObjects(context);
      refuseIpv6Only(context);
      const removeDeletedFiles = options.removeDeletedFiles ?? props.prune ?? false;
      if (options.transferAll && removeDeletedFiles) {
        // https://docs.aws.amazon.com/datasync/latest/userguide/API_Options.html, PreserveDeletedFiles:
        // "If you set this parameter to REMOVE, you can't set TransferMode to ALL."
        throw new ValidationError(`${where}: ${propName('transferAll')} cannot be combined with ${propName(options.removeDeletedFiles ? 'removeDeletedFiles' : 'prune')} in ${engine}: `
          + 'DataSync refuses TransferMode ALL with PreserveDeletedFiles REMOVE (transferring everything, it does not scan the destination, '
          + 'so it cannot know what to delete); drop one of them, got transferAll true.', context.seed);
      }
      requireNonRootUser(context);
      const run = new DataSyncSeedRun(context.seed, 'DataSync', {
        ...options,
        bucket: source.bucket,
        prefix: source.key,
        into: {
          kind: 'efs',
          fileSystem: props.fileSystem,
          accessPoint: props.accessPoint,
          vpc: props.fileSystem.vpc,
          subnet: props.fileSystem.mountTargetSubnets.subnets[0],
          mountTargetsReady: props.fileSystem.mountTargetsReady,
          subdirectory: `/${settings.TargetSubPath}`,
        },
        trigger: source.fingerprint,
        target: targetOf(context),
        removeDeletedFiles,
        waitForCompletion: props.waitForCompletion ?? true,
      });
      return {
        resource: run.resource,
        dataSyncTaskId: run.taskId,
        failureMetrics: { failed_executions: run.metricFailedExecutions() },
      };
    },
  };
}

/**
 * DataSync's EFS location puts its network interfaces in the file system's first mount target
 * subnet (IPv6-only, for a created file system's IPV6_ONLY mount targets). DataSync's documentation
 * says it can use IPv6 addresses with EFS (https://docs.aws.amazon.com/datasync/latest/userguide/datasync-network.html,
 * "IPv6 support"), but not that an EFS location works from an IPv6-only subnet or with IPv6-only
 * mount targets: refused at synth rather than left to fail at deploy.
 */
function refuseIpv6Only(context: SeedWiringContext): void {
  if (context.props.fileSystem.mountTargetIpAddressType !== MountTargetIpAddressType.IPV6_ONLY) return;
  throw new ValidationError(`${context.where}: ${context.engine} cannot seed a file system whose mount targets are IPV6_ONLY: its EFS location runs in the file system's `
    + 'first mount target subnet and reaches the mount targets over IPv6 only, which DataSync does not document for EFS locations; use SeedEngine.singleFunction() '
    + `or SeedEngine.distributedMap() with the seed's ${propName('vpcSubnets')} (dual-stack subnets in zones with a mount target), got ${propName('mountTargetIpAddressType')} IPV6_ONLY.`, context.seed);
}
