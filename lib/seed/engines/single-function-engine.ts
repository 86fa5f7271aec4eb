import { Duration } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { functionSize, requireS3Route } from './engine-requirements';
import { SeedFunctionPlacement, seedFunctionNetwork, seedFunctionPlacement } from './seed-function-placement';
import type { EngineWiring, SeedWiringContext } from './seed-wiring';
import { sharedSeedProvider } from './shared-seed-provider';
import { DEPLOY_TIME_LIMIT_SECONDS } from '../../core/contract/deploy-time-limit';
import type { DeployTimeProvider } from '../../core/deploy-time-run';
import { handlerCode } from '../../core/handler-code';
import type { SingleFunctionEngineOptions } from '../seed-engine-options';
import { grantSourceRead } from '../seed-grants';

/** SeedEngine.singleFunction(): onEvent starts the copy; isComplete resumes it from its checkpoint until it is done. */
export function singleFunctionEngine(options: SingleFunctionEngineOptions): EngineWiring {
  return {
    unsupportedOptions: {
      waitForCompletion: `its copy runs inside the deploy's custom resource, and must finish within the deploy's time limit of ${DEPLOY_TIME_LIMIT_SECONDS / 60} minutes; `
        + 'to copy S3 objects for longer, use SeedEngine.distributedMap() or SeedEngine.dataSync()',
    },
    wire: (context) => {
      const { seed, props, settings, source } = context;
      const placement = seedFunctionPlacement(context);
      const handlers = seedHandlers(context, options, placement);
      for (const fn of [handlers.onEvent, handlers.isComplete!]) grantSourceRead(fn, source);
      const resource = handlers.addResource(seed, 'Resource', { resourceType: 'Custom::CdkEfsKitSeed', properties: { ...settings } });
      // The seed's own wait for its mount targets, whoever made the functions it shares.
      resource.node.addDependency(props.fileSystem.mountTargetsAvailable, props.fileSystem.mountTargetsReady);
      requireS3Route(context, 'the seed functions', placement);
      // The functions serve every seed on the access point: their Errors are not this seed's, its own failures are.
      const failureMetrics = { files_failed: context.filesFailed, runs_failed: context.runsFailed };
      return { resource, function: handlers.onEvent, failureMetrics };
    },
  };
}

/**
 * The seed function and its resume function, with their Provider, shared by the seeds of the stack
 * that mount the same access point of the same file system with the same mount path, thread pool,
 * size, timeout and subnets (everything the functions are built from).
 */
function seedHandlers(context: SeedWiringContext, options: SingleFunctionEngineOptions, placement: SeedFunctionPlacement): DeployTimeProvider {
  const { seed, props, settings } = context;
  const size = functionSize(context, options);
  const timeout = options.timeout ?? Duration.minutes(15);
  return sharedSeedProvider(seed, {
    kind: 'SingleFunction',
    key: {
      fileSystem: props.fileSystem.node.path, accessPoint: props.accessPoint.node.path, mountPath: settings.MountPath,
      threadPoolSize: settings.Concurrency, memoryMiB: size.memorySize, ...size.environment, timeoutSeconds: timeout.toSeconds(),
      ...(placement.key === undefined ? {} : { subnets: placement.key }),
    },
    newFunction: (scope, id, handler) => {
      const description = `cdk-efs-kit seed handler for the seeds through ${props.accessPoint.node.path}`;
      const fn = new lambda.Function(scope, id, {
        runtime: lambda.Runtime.NODEJS_22_X,
        code: handlerCode('seed'),
        handler,
        ...size,
        timeout,
        ...seedFunctionNetwork(scope, `${id}SecurityGroup`, props.fileSystem.vpc, placement, description),
        description,
      });
      // The seed's own function: it writes the content, so it cannot wait for it.
      props.fileSystem.mountOnLambda(fn, props.accessPoint, { mountPath: settings.MountPath, threadPoolSize: Number(settings.Concurrency), waitForSeeds: false });
      return fn;
    },
    onEventId: 'Function',
    isCompleteId: 'ResumeFunction',
    queryInterval: Duration.seconds(10),
  });
}
