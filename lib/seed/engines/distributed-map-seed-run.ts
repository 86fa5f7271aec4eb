import { ArnFormat, CustomResource, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { Construct } from 'constructs';
import type { SeedResourceProperties } from '../contract/resource-properties';
import { folderPrefix } from '../contract/s3-prefix';
import type { DistributedMapEngineOptions } from '../seed-engine-options';
import type { ISharedFileSystem } from '../../file-system/shared-file-system-base';
import { SeedFunctionPlacement, seedFunctionNetwork } from './seed-function-placement';
import { sharedSeedProvider } from './shared-seed-provider';
import type { DeployTimeProvider } from '../../core/deploy-time-run';
import { handlerCode } from '../../core/handler-code';
import { acknowledgeFunction, acknowledgeWildcard, nagRef, nagResource } from '../../core/nag';
import { grantPrefixRead } from '../seed-grants';

export interface DistributedMapSeedRunProps extends DistributedMapEngineOptions {
  readonly fileSystem: ISharedFileSystem;
  readonly accessPoint: efs.IAccessPoint;
  readonly bucket: s3.IBucket;
  readonly prefix: string;
  /** Settings every batch gets (mount path, target, concurrency...), as the worker reads them. */
  readonly batchInput: SeedResourceProperties;
  readonly mountPath: string;
  readonly concurrency: number;
  /** Each worker function's memory, and the environment that tells it how many copy threads to run. */
  readonly workerSize: SeedFunctionSize;
  /** Where the workers run. */
  readonly workerPlacement: SeedFunctionPlacement;
  readonly trigger: string;
  /**
   * Where the copy lands (file system, access point, target path), as tokens the template resolves.
   * The state machine's definition holds it but its ARN does not: a change must start a new run.
   */
  readonly target: string;
  /** Wait for the execution within the deploy's time limit, or only start it. */
  readonly waitForCompletion: boolean;
}

/** A seed function's memory (MiB) and the environment that goes with its vCPUs. */
export interface SeedFunctionSize {
  readonly memorySize: number;
  readonly environment: Record<string, string>;
}

/**
 * A Step Functions state machine whose Distributed Map lists the S3 prefix, batches the keys, and
 * runs the seed worker on each batch in parallel; plus a custom resource that runs it at deploy time.
 *
 * A batch is retried when it can still succeed: on Lambda's service errors and throttling, when the
 * worker stopped before its timeout with keys left (each retry goes on from what is written), and
 * once or twice when keys failed or the worker crashed. Only then does it count as failed, against
 * `toleratedFailurePercentage` (of items: every item of a failed batch counts).
 */
export class DistributedMapSeedRun extends Construct {
  public readonly stateMachine: sfn.StateMachine;
  public readonly worker: lambda.Function;
  public readonly resultsBucket: s3.Bucket;
  public readonly resource: CustomResource;

  constructor(scope: Construct, id: string, props: DistributedMapSeedRunProps) {
    super(scope, id);
    // The map writes its results with ResultWriterV2 (aws-cdk-lib >= 2.188; ResultWriter is
    // deprecated), which aws-cdk renders only under this feature flag: set for this subtree, before
    // any child exists, so the app's own flags neither matter nor change.
    this.node.setContext(cxapi.STEPFUNCTIONS_USE_DISTRIBUTED_MAP_RESULT_WRITER_V2, true);

    const description = `cdk-efs-kit seed worker ${this.node.path}`;
    this.worker = new lambda.Function(this, 'Worker', {
      runtime: lambda.Runtime.NODEJS_22_X,
      code: handlerCode('seed'),
      handler: 'index.copyBatch',
      ...props.workerSize,
      timeout: Duration.minutes(15),
      ...seedFunctionNetwork(this, 'WorkerSecurityGroup', props.fileSystem.vpc, props.workerPlacement, description),
      description,
    });
    // The seed's own worker: it writes the content, so it cannot wait for it.
    props.fileSystem.mountOnLambda(this.worker, props.accessPoint, { mountPath: props.mountPath, threadPoolSize: props.concurrency, waitForSeeds: false });
    grantPrefixRead(this.worker, props.bucket, props.prefix);
    acknowledgeFunction(this.worker);

    this.resultsBucket = new s3.Bucket(this, 'Results', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ expiration: Duration.days(30) }],
    });

    const copy = new sfn.DistributedMap(this, 'CopyObjects', {
      itemReader: props.inventory
        ? new sfn.S3ManifestItemReader({ bucket: props.inventory.bucket, key: props.inventory.manifestKey })
        // The prefix as the worker reads it: without one (the whole bucket) the reader sends none.
        : new sfn.S3ObjectsItemReader({ bucket: props.bucket, prefix: folderPrefix(props.prefix) || undefined }),
      itemBatcher: new sfn.ItemBatcher({
        maxItemsPerBatch: props.maxItemsPerBatch ?? 1000,
        maxInputBytesPerBatch: 256 * 1024,
        batchInput: { ...props.batchInput },
      }),
      maxConcurrency: props.maxConcurrency ?? 100,
      toleratedFailurePercentage: props.toleratedFailurePercentage ?? 0,
      resultWriterV2: new sfn.ResultWriterV2({ bucket: this.resultsBucket, prefix: 'seed-results' }),
      mapExecutionType: sfn.StateMachineType.STANDARD,
    });
    copy.itemProcessor(this.copyBatch());

    const logGroup = new logs.LogGroup(this, 'Logs', { retention: logs.RetentionDays.ONE_MONTH });
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      definitionBody: sfn.DefinitionBody.fromChainable(copy),
      timeout: Duration.hours(12),
      tracingEnabled: true,
      logs: { destination: logGroup, level: sfn.LogLevel.ALL },
    });

    // aws-cdk lets the reader list the whole bucket: keep it to the seed's prefix. Not for the whole
    // bucket: its listing sends no Prefix, and StringNotLike on an absent key is true, so the Deny
    // would refuse the very listing it is for (IAM condition operators, "...the condition is true").
    const folder = folderPrefix(props.prefix);
    if (folder) {
      this.stateMachine.addToRolePolicy(new iam.PolicyStatement({
        effect: iam.Effect.DENY,
        actions: ['s3:ListBucket'],
        resources: [props.bucket.bucketArn],
        conditions: { StringNotLike: { 's3:prefix': [`${folder}*`] } },
      }));
    }
    this.acknowledgeStateMachineFindings(props);
    this.resource = this.runAtDeploy(props);
  }

  /** The worker invoked on one batch, with the retries a batch deserves before it counts as failed. */
  private copyBatch(): tasks.LambdaInvoke {
    const invoke = new tasks.LambdaInvoke(this, 'CopyBatch', {
      lambdaFunction: this.worker,
      payloadResponseOnly: true,
      // Lambda.ServiceException and its kin, 6 attempts from 2 s, doubling (AWS's recommended retrier,
      // https://docs.aws.amazon.com/step-functions/latest/dg/bp-lambda-serviceexception.html).
      retryOnServiceExceptions: true,
    });
    // Throttled: many workers against the account's or function's concurrency; back off, spread out.
    invoke.addRetry({
      errors: ['Lambda.TooManyRequestsException'], interval: Duration.seconds(5), maxAttempts: 8, backoffRate: 2,
      maxDelay: Duration.minutes(2), jitterStrategy: sfn.JitterType.FULL,
    });
    // Stopped before its timeout with keys left: every attempt goes on from what is written, so a batch
    // gets about 10 worker lifetimes.
    invoke.addRetry({ errors: ['SeedBatchUnfinished'], interval: Duration.seconds(1), maxAttempts: 10, backoffRate: 1 });
    // Some keys failed (S3 or EFS errors), or the worker crashed (out of memory, a hung call: Lambda.Unknown,
    // https://docs.aws.amazon.com/step-functions/latest/dg/bp-lambda-serviceexception.html): a transient
    // cause passes on a retry, which rewrites nothing already written; a lasting one fails twice more.
    invoke.addRetry({ errors: ['SeedBatchFailed', 'Lambda.Unknown'], interval: Duration.seconds(10), maxAttempts: 2, backoffRate: 3 });
    return invoke;
  }

  private acknowledgeStateMachineFindings(props: DistributedMapSeedRunProps): void {
    const stack = this.stateMachine.stack;
    const role = this.stateMachine.role;
    acknowledgeWildcard(role, `${nagRef(this.worker.node.defaultChild!)}:*`, 'The map invokes the worker\'s versions and aliases (arn:*), and nothing else.');
    acknowledgeWildcard(role, '*', 'CloudWatch Logs delivery and X-Ray need "*": neither supports resource-level permissions (Step Functions documentation).');
    // aws-cdk names the state machine in this policy by parsing its ARN, so must we.
    const name = stack.splitArn(this.stateMachine.stateMachineArn, ArnFormat.COLON_RESOURCE_NAME).resourceName;
    const executions = `arn:${stack.partition}:states:${stack.region}:${stack.account}:execution:${name}`;
    for (const resource of [`${executions}:*`, `${executions}/*:*`]) {
      acknowledgeWildcard(this.stateMachine, nagResource(this, resource), 'A Distributed Map manages its own child executions, named at run time.');
    }
    acknowledgeWildcard(role, nagResource(this, `arn:${stack.partition}:s3:::${this.resultsBucket.bucketName}/*`), 'The map writes its result manifests anywhere in its own results bucket.');
    if (props.inventory) {
      acknowledgeWildcard(role, nagResource(this, `arn:${stack.partition}:s3:::${props.inventory.bucket.bucketName}/*`),
        'aws-cdk grants the inventory reader the report bucket: the manifest names its data files, at keys known only at run time.');
    }
    Validations.of(this.resultsBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'Holds only the Distributed Map\'s result manifests, written by the state machine and expiring after 30 days.',
    });
  }

  private runAtDeploy(props: DistributedMapSeedRunProps): CustomResource {
    const stack = this.stateMachine.stack;
    const executions = `arn:${stack.partition}:states:${stack.region}:${stack.account}:execution:${this.stateMachine.stateMachineName}:*`;
    const handlers = runHandlers(this);
    const run = handlers.addResource(this, 'Run', {
      resourceType: 'Custom::CdkEfsKitDistributedMapSeed',
      properties: { StateMachineArn: this.stateMachine.stateMachineArn, Trigger: props.trigger, Target: props.target, WaitForCompletion: String(props.waitForCompletion) },
    });
    // The handlers serve every Distributed Map seed of the stack: each seed adds its own state
    // machine to their policies. onEvent follows a running execution of the same source and place,
    // stops those of another (a newer request wins, a rollback included), and a Delete stops what still runs.
    this.stateMachine.grantStartExecution(handlers.onEvent);
    handlers.onEvent.addToRolePolicy(new iam.PolicyStatement({ actions: ['states:ListExecutions'], resources: [this.stateMachine.stateMachineArn] }));
    handlers.onEvent.addToRolePolicy(new iam.PolicyStatement({ actions: ['states:StopExecution'], resources: [executions] }));
    acknowledgeWildcard(handlers.onEvent, nagResource(this, executions), 'Execution ARNs are created at run time under the state machine\'s name.');
    handlers.isComplete!.addToRolePolicy(new iam.PolicyStatement({ actions: ['states:DescribeExecution', 'states:StopExecution'], resources: [executions] }));
    acknowledgeWildcard(handlers.isComplete!, nagResource(this, executions), 'Execution ARNs are created at run time under the state machine\'s name.');
    // The execution starts child executions and reads S3 with the role's policies, which aws-cdk
    // keeps apart from the state machine (they name it): they must exist before the first run.
    run.node.addDependency(this.stateMachine);
    return run;
  }
}

/**
 * The functions that start and await the state machine's executions, with their Provider: one set
 * for the Distributed Map seeds of the stack, whatever their state machine, file system or wait.
 */
function runHandlers(scope: Construct): DeployTimeProvider {
  return sharedSeedProvider(scope, {
    kind: 'DistributedMapRun',
    // They mount nothing and each seed adds its own grants: nothing about a seed is theirs.
    key: {},
    newFunction: (parent, id, handler) => new lambda.Function(parent, id, {
      runtime: lambda.Runtime.NODEJS_22_X, code: handlerCode('seed-distributed-map-run'), handler, timeout: Duration.minutes(1), memorySize: 256,
    }),
    onEventId: 'StartExecution',
    // Always: whether a request waits is its own (WaitForCompletion), so changing it changes no ServiceToken.
    isCompleteId: 'WaitForExecution',
    queryInterval: Duration.seconds(30),
  });
}
