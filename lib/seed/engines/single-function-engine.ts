import { Duration } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { functionSize, requireS3Route } from './engine-requirements';
import type { EngineWiring, SeedWiringContext } from './seed-wiring';
import { DEPLOY_TIME_LIMIT_SECONDS } from '../../core/contract/deploy-time-limit';
import { deployTimeRun } from '../../core/deploy-time-run';
import { handlerCode } from '../../core/handler-code';
import type { SingleFunctionEngineOptions } from '../seed-engine-options';
import { grantSourceRead } from '../seed-grants';
import { DEFAULT_METRIC_PERIOD } from '../../core/metric-period';

/** SeedEngine.singleFunction(): onEvent starts the copy; isComplete resumes it from its checkpoint until it is done. */
export function singleFunctionEngine(options: SingleFunctionEngineOptions): EngineWiring {
  return {
    unsupportedOptions: {
      waitForCompletion: `its copy runs inside the deploy's custom resource, and must finish within the deploy's time limit of ${DEPLOY_TIME_LIMIT_SECONDS / 60} minutes; `
        + 'to copy S3 objects for longer, use SeedEngine.distributedMap() or SeedEngine.dataSync()',
    },
    wire: (context) => {
      const run = runInOneFunction(context, options);
      const period = { period: DEFAULT_METRIC_PERIOD };
      const failureMetrics = {
        files_failed: context.filesFailed,
        seed_errors: run.onEvent.metricErrors(period),
        // A slice that fails, or the time limit running out, fails in the resume function.
        resume_errors: run.isComplete!.metricErrors(period),
      };
      requireS3Route(context, 'the seed functions');
      return { resource: run.resource, function: run.onEvent, failureMetrics };
    },
  };
}

function runInOneFunction(context: SeedWiringContext, options: SingleFunctionEngineOptions) {
  const { seed, props, settings } = context;
  return deployTimeRun(seed, {
    newFunction: (id, handler) => {
      const fn = new lambda.Function(seed, id, {
        runtime: lambda.Runtime.NODEJS_22_X,
        code: handlerCode('seed'),
        handler,
        ...functionSize(context, options),
        timeout: options.timeout ?? Duration.minutes(15),
        vpc: props.fileSystem.vpc,
        vpcSubnets: { subnets: props.fileSystem.mountTargetSubnets.subnets },
        description: `cdk-efs-kit seed ${seed.node.path}`,
      });
      props.fileSystem.mountOnLambda(fn, props.accessPoint, { mountPath: settings.MountPath, threadPoolSize: Number(settings.Concurrency) });
      grantSourceRead(fn, context.source);
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
