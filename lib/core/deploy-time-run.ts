import { CustomResource, Duration } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { CUSTOM_RESOURCE_TIMEOUT_SECONDS, DEPLOY_TIME_LIMIT_SECONDS, TIME_LIMIT_PROPERTY } from './contract/deploy-time-limit';
import { acknowledgeFunction, acknowledgeProvider } from './nag';

/** Work done at deploy time by a custom resource on aws-cdk's Provider framework. */
export interface DeployTimeRunProps {
  /** Makes a handler function: its construct id and its handler (`index.onEvent`, `index.isComplete`). */
  readonly newFunction: (id: string, handler: string) => lambda.Function;
  /** Construct id of the function that starts the work. */
  readonly onEventId: string;
  /**
   * Construct id of the function that says when the work is done; without it, the deploy does not
   * wait. With it, the handlers get the time limit (TimeLimitSeconds) and must end the run by then.
   */
  readonly isCompleteId?: string;
  /** How often isComplete is asked: a divisor of the time limit. */
  readonly queryInterval?: Duration;
  /** Construct id of the custom resource. */
  readonly resourceId: string;
  /** `Custom::...` type of the custom resource. */
  readonly resourceType: string;
  /** What the handlers get as ResourceProperties. */
  readonly properties: Record<string, string>;
}

/** The functions and the custom resource of a {@link deployTimeRun}. */
export interface DeployTimeRun {
  readonly onEvent: lambda.Function;
  readonly isComplete?: lambda.Function;
  /** Completes (isComplete given) once the work is done. */
  readonly resource: CustomResource;
}

/**
 * The onEvent and isComplete functions, their Provider (under the id 'Provider') and the custom
 * resource, acknowledged for cdk-nag. A waited run is bounded three ways: the handlers end it at
 * the time limit they are given (counted from onEvent's start), the waiter stops polling after as
 * many polls as fit in that limit, and CloudFormation's ServiceTimeout is set to its one hour.
 */
export function deployTimeRun(scope: Construct, props: DeployTimeRunProps): DeployTimeRun {
  const onEvent = props.newFunction(props.onEventId, 'index.onEvent');
  const isComplete = props.isCompleteId === undefined ? undefined : props.newFunction(props.isCompleteId, 'index.isComplete');
  const handlers = isComplete ? [onEvent, isComplete] : [onEvent];
  handlers.forEach(acknowledgeFunction);
  const provider = new cr.Provider(scope, 'Provider', {
    onEventHandler: onEvent,
    isCompleteHandler: isComplete,
    queryInterval: isComplete ? props.queryInterval : undefined,
    // The waiter counts polls, not time (aws-cdk's totalTimeout is polls x queryInterval): the
    // handlers' own deadline is what ends a run; this only keeps the waiter from outliving it.
    totalTimeout: isComplete ? Duration.seconds(DEPLOY_TIME_LIMIT_SECONDS) : undefined,
  });
  acknowledgeProvider(provider, handlers);
  const resource = new CustomResource(scope, props.resourceId, {
    serviceToken: provider.serviceToken,
    resourceType: props.resourceType,
    properties: isComplete ? { ...props.properties, [TIME_LIMIT_PROPERTY]: String(DEPLOY_TIME_LIMIT_SECONDS) } : props.properties,
    serviceTimeout: Duration.seconds(CUSTOM_RESOURCE_TIMEOUT_SECONDS),
  });
  return { onEvent, isComplete, resource };
}
