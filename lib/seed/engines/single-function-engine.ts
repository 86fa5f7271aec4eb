import { Duration } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { functionSize, requireCloudFormationRoute, requireS3Route } from './engine-requirements';
import { LargestAsked } from './largest-asked';
import { SeedFunctionPlacement, seedFunctionNetwork, seedFunctionPlacement } from './seed-function-placement';
import type { EngineWiring, SeedWiringContext } from './seed-wiring';
import { resourceIdVia, sharedSeedProvider } from './shared-seed-provider';
import { DEPLOY_TIME_LIMIT_SECONDS } from '../../core/contract/deploy-time-limit';
import type { DeployTimeProvider } from '../../core/deploy-time-run';
import { handlerCode } from '../../core/handler-code';
import { check } from '../../core/validate';
import { MAX_INVOCATION_TIMEOUT_SECONDS, MIN_INVOCATION_TIMEOUT_SECONDS } from '../contract/resource-properties';
import type { SingleFunctionEngineOptions } from '../seed-engine-options';
import { grantOwnStackRead, grantSourceRead } from '../seed-grants';

/** SeedEngine.singleFunction(): onEvent starts the copy; isComplete resumes it from its checkpoint until it is done. */
export function singleFunctionEngine(options: SingleFunctionEngineOptions): EngineWiring {
  return {
    unsupportedOptions: {
      waitForCompletion: `its copy runs inside the deploy's custom resource, and must finish within the deploy's time limit of ${DEPLOY_TIME_LIMIT_SECONDS / 60} minutes; `
        + 'to copy S3 objects for longer, use SeedEngine.distributedMap() or SeedEngine.dataSync()',
    },
    wire: (context) => {
      const { seed, props, settings, source } = context;
      const timeout = options.timeout ?? Duration.minutes(15);
      check(timeout.toSeconds() >= MIN_INVOCATION_TIMEOUT_SECONDS && timeout.toSeconds() <= MAX_INVOCATION_TIMEOUT_SECONDS, context.where, 'timeout', `${timeout.toSeconds()} s`,
        `must be from ${MIN_INVOCATION_TIMEOUT_SECONDS / 60} to ${MAX_INVOCATION_TIMEOUT_SECONDS / 60} minutes (each invocation stops starting files a minute before its end; Lambda's most is 15)`, seed);
      const placement = seedFunctionPlacement(context);
      const handlers = seedHandlers(context, options, placement);
      // The function's timeout and thread pool are the largest its seeds ask; each seed's own travel
      // with its requests, so changing them changes no ServiceToken.
      const asked = askedOf(handlers);
      asked.timeoutSeconds.ask(timeout.toSeconds());
      asked.threadPoolSize.ask(Number(settings.Concurrency));
      for (const fn of [handlers.onEvent, handlers.isComplete!]) grantSourceRead(fn, source);
      const resource = handlers.addResource(seed, resourceIdVia('Resource', handlers), {
        resourceType: 'Custom::CdkEfsKitSeed',
        properties: { ...settings, InvocationTimeoutSeconds: String(timeout.toSeconds()) },
      });
      // The seed's own wait for its mount targets, whoever made the functions it shares.
      resource.node.addDependency(props.fileSystem.mountTargetsAvailable, props.fileSystem.mountTargetsReady);
      requireS3Route(context, 'the seed functions', placement);
      // A Delete with removeOnDelete reads which seeds of the stack are live (onEvent answers Deletes). Granted
      // whatever this seed asks: the Delete runs with the old properties, so an old seed's may need it after
      // every seed on the functions left removeOnDelete.
      grantOwnStackRead(handlers.onEvent);
      if (props.removeOnDelete) requireCloudFormationRoute(context, 'the seed functions', placement);
      // The functions serve every seed on the access point: their Errors are not this seed's, its own failures are.
      const failureMetrics = { files_failed: context.filesFailed, runs_failed: context.runsFailed };
      return { resource, function: handlers.onEvent, failureMetrics };
    },
  };
}

/** What the seeds sharing a provider's functions ask of their timeout and thread pool. */
interface SharedFunctionAsks {
  readonly timeoutSeconds: LargestAsked;
  readonly threadPoolSize: LargestAsked;
}

const asks = new WeakMap<DeployTimeProvider, SharedFunctionAsks>();
const askedOf = (handlers: DeployTimeProvider) => asks.get(handlers)!;

/**
 * The seed function and its resume function, with their Provider, shared by the seeds of the stack
 * that mount the same access point of the same file system with the same mount path, size and
 * subnets: what a function is built from and no request can change. A change of one of them moves
 * the seed to other functions, and its resource to another logical id (resourceIdVia).
 */
function seedHandlers(context: SeedWiringContext, options: SingleFunctionEngineOptions, placement: SeedFunctionPlacement): DeployTimeProvider {
  const { seed, props, settings } = context;
  const size = functionSize(context, options);
  const fresh: SharedFunctionAsks = { timeoutSeconds: new LargestAsked(), threadPoolSize: new LargestAsked() };
  const handlers = sharedSeedProvider(seed, {
    kind: 'SingleFunction',
    key: {
      fileSystem: props.fileSystem.node.path, accessPoint: props.accessPoint.node.path, mountPath: settings.MountPath,
      memoryMiB: size.memorySize, ...size.environment,
      ...(placement.key === undefined ? {} : { subnets: placement.key }),
    },
    newFunction: (scope, id, handler) => {
      const description = `cdk-efs-kit seed handler for the seeds through ${props.accessPoint.node.path}`;
      const fn = new lambda.Function(scope, id, {
        runtime: lambda.Runtime.NODEJS_22_X,
        code: handlerCode('seed'),
        handler,
        ...size,
        timeout: Duration.seconds(fresh.timeoutSeconds.value),
        ...seedFunctionNetwork(scope, `${id}SecurityGroup`, props.fileSystem.vpc, placement, description),
        description,
      });
      // The seed's own function: it writes the content, so it cannot wait for it.
      props.fileSystem.mountOnLambda(fn, props.accessPoint, { mountPath: settings.MountPath, threadPoolSize: fresh.threadPoolSize.value, waitForSeeds: false });
      return fn;
    },
    onEventId: 'Function',
    isCompleteId: 'ResumeFunction',
    queryInterval: Duration.seconds(10),
  });
  if (!asks.has(handlers)) asks.set(handlers, fresh);
  return handlers;
}
