import { CustomResource, Duration } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { CUSTOM_RESOURCE_TIMEOUT_SECONDS, DEPLOY_TIME_LIMIT_SECONDS, TIME_LIMIT_PROPERTY } from './contract/deploy-time-limit';
import { acknowledgeFunction, acknowledgeProvider } from './nag';

/** The handlers of work done at deploy time by custom resources on aws-cdk's Provider framework. */
export interface DeployTimeProviderProps {
  /** Makes a handler function in `scope`: its construct id and its handler (`index.onEvent`, `index.isComplete`). */
  readonly newFunction: (scope: Construct, id: string, handler: string) => lambda.Function;
  /** Construct id of the function that starts the work. */
  readonly onEventId: string;
  /**
   * Construct id of the function that says when the work is done; without it, the deploy does not
   * wait. With it, the handlers get the time limit (TimeLimitSeconds) and must end the run by then.
   */
  readonly isCompleteId?: string;
  /** How often isComplete is asked: a divisor of the time limit. */
  readonly queryInterval?: Duration;
}

/** A custom resource of a {@link DeployTimeProvider}. */
export interface DeployTimeResourceProps {
  /** `Custom::...` type of the custom resource. */
  readonly resourceType: string;
  /** What the handlers get as ResourceProperties. */
  readonly properties: Record<string, string>;
}

/**
 * The onEvent and isComplete functions and their Provider (under the id 'Provider'), acknowledged
 * for cdk-nag; any number of custom resources can use them (`addResource`). A waited run is bounded
 * three ways: the handlers end it at the time limit they are given (counted from onEvent's start),
 * the waiter stops polling after as many polls as fit in that limit, and CloudFormation's
 * ServiceTimeout is set to its one hour.
 */
export class DeployTimeProvider extends Construct {
  public readonly onEvent: lambda.Function;
  public readonly isComplete?: lambda.Function;
  public readonly provider: cr.Provider;

  constructor(scope: Construct, id: string, props: DeployTimeProviderProps) {
    super(scope, id);
    this.onEvent = props.newFunction(this, props.onEventId, 'index.onEvent');
    this.isComplete = props.isCompleteId === undefined ? undefined : props.newFunction(this, props.isCompleteId, 'index.isComplete');
    const handlers = this.isComplete ? [this.onEvent, this.isComplete] : [this.onEvent];
    handlers.forEach(acknowledgeFunction);
    this.provider = new cr.Provider(this, 'Provider', {
      onEventHandler: this.onEvent,
      isCompleteHandler: this.isComplete,
      queryInterval: this.isComplete ? props.queryInterval : undefined,
      // The waiter counts polls, not time (aws-cdk's totalTimeout is polls x queryInterval): the
      // handlers' own deadline is what ends a run; this only keeps the waiter from outliving it.
      totalTimeout: this.isComplete ? Duration.seconds(DEPLOY_TIME_LIMIT_SECONDS) : undefined,
    });
    acknowledgeProvider(this.provider, handlers);
  }

  /** A custom resource in `scope` whose requests these handlers serve; waited, it gets the time limit. */
  public addResource(scope: Construct, id: string, props: DeployTimeResourceProps): CustomResource {
    return new CustomResource(scope, id, {
      serviceToken: this.provider.serviceToken,
      resourceType: props.resourceType,
      properties: this.isComplete ? { ...props.properties, [TIME_LIMIT_PROPERTY]: String(DEPLOY_TIME_LIMIT_SECONDS) } : props.properties,
      serviceTimeout: Duration.seconds(CUSTOM_RESOURCE_TIMEOUT_SECONDS),
    });
  }
}
