import { CustomResource, Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as datasync from 'aws-cdk-lib/aws-datasync';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, IDependable } from 'constructs';
import { DataSyncEngineOptions, DataSyncVerifyMode } from '../seed-engine-options';
import { sharedSeedProvider } from './shared-seed-provider';
import type { DeployTimeProvider } from '../../core/deploy-time-run';
import { handlerCode } from '../../core/handler-code';
import { acknowledgeWildcard, nagRef, nagResource } from '../../core/nag';
import { dependOnRulesBetween } from '../../core/security-group-rules';
import { DEFAULT_METRIC_PERIOD } from '../../core/metric-period';

export interface DataSyncSeedRunProps extends DataSyncEngineOptions {
  /** Wait for the execution within the deploy's time limit, or only start it. */
  readonly waitForCompletion: boolean;
  readonly fileSystem: efs.IFileSystem;
  readonly accessPoint: efs.IAccessPoint;
  /** A subnet with a mount target, where DataSync puts its network interfaces. */
  readonly subnet: ec2.ISubnet;
  /** The file system's readiness gate: DataSync mounts it from the task's network interfaces like any client. */
  readonly mountTargetsReady: IDependable;
  readonly vpc: ec2.IVpc;
  readonly bucket: s3.IBucket;
  /** Key prefix in the bucket, '' for the whole bucket. */
  readonly prefix: string;
  /** Directory under the access point to copy into, '/' for its root. */
  readonly subdirectory: string;
  /** Changing it starts a new execution on the next deploy. */
  readonly trigger: string;
  /**
   * Where the copy lands (file system, access point, target path), as tokens the template resolves.
   * A new access point or path updates the EFS location in place, so the task's ARN does not say
   * it: a change must start a new run.
   */
  readonly target: string;
}

/**
 * An S3 -> EFS DataSync task (locations, roles, logging) and a custom resource that runs it at
 * deploy time and waits for it, or only starts it.
 */
export class DataSyncSeedRun extends Construct {
  public readonly task: datasync.CfnTask;
  public readonly logGroup: logs.LogGroup;
  /**
   * Matches this task's failed executions, at deploy time or on the schedule; its `MatchedEvents`
   * metric (namespace AWS/Events) counts them for alarms.
   */
  public readonly failureRule: events.Rule;
  /** Completes when the execution started by this deploy has finished. */
  public readonly resource: CustomResource;

  constructor(scope: Construct, id: string, props: DataSyncSeedRunProps) {
    super(scope, id);
    const stack = Stack.of(this);

    const source = this.s3Location(props);
    const destination = this.efsLocation(props);

    this.logGroup = new logs.LogGroup(this, 'Logs', { retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH });
    this.logGroup.addToResourcePolicy(new iam.PolicyStatement({
      principals: [new iam.ServicePrincipal('datasync.amazonaws.com')],
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [this.logGroup.logGroupArn],
      conditions: { StringEquals: { 'aws:SourceAccount': stack.account } },
    }));

    this.task = new datasync.CfnTask(this, 'Task', {
      sourceLocationArn: source.attrLocationArn,
      destinationLocationArn: destination.attrLocationArn,
      cloudWatchLogGroupArn: this.logGroup.logGroupArn,
      options: {
        // The destination is an access point that enforces a POSIX user, and "the transferred files
        // and folders are set to the access point's user and group IDs. When this happens, task
        // verification fails" if the task copies ownership (INT_VALUE, the default): so it must not
        // (https://docs.aws.amazon.com/datasync/latest/userguide/create-efs-location.html). S3 objects
        // carry no owner anyway. Permissions and times are still copied, and verified.
        uid: 'NONE',
        gid: 'NONE',
        verifyMode: props.verifyMode ?? DataSyncVerifyMode.ONLY_FILES_TRANSFERRED,
        transferMode: props.transferAll ? 'ALL' : 'CHANGED',
        preserveDeletedFiles: props.removeDeletedFiles ? 'REMOVE' : 'PRESERVE',
        overwriteMode: 'ALWAYS',
        logLevel: 'BASIC',
        taskQueueing: 'ENABLED',
        bytesPerSecond: props.bytesPerSecond ?? -1,
      },
      includes: props.includes?.length ? [{ filterType: 'SIMPLE_PATTERN', value: props.includes.join('|') }] : undefined,
      excludes: props.excludes?.length ? [{ filterType: 'SIMPLE_PATTERN', value: props.excludes.join('|') }] : undefined,
      schedule: props.scheduleExpression ? { scheduleExpression: props.scheduleExpression } : undefined,
    });
    this.task.node.addDependency(this.logGroup);

    this.failureRule = new events.Rule(this, 'ExecutionFailed', {
      description: `DataSync executions of ${this.node.path} that ended in ERROR`,
      eventPattern: {
        source: ['aws.datasync'],
        detailType: ['DataSync Task Execution State Change'],
        resources: events.Match.prefix(`${this.task.attrTaskArn}/execution/`),
        detail: { State: ['ERROR'] },
      },
    });

    this.resource = this.runAtDeploy(props);
  }

  /** Failed executions per period: `MatchedEvents` of the failure rule (Sum). */
  public metricFailedExecutions(options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: 'AWS/Events',
      metricName: 'MatchedEvents',
      dimensionsMap: { RuleName: this.failureRule.ruleName },
      statistic: cloudwatch.Stats.SUM,
      unit: cloudwatch.Unit.COUNT,
      period: DEFAULT_METRIC_PERIOD,
      label: 'Failed DataSync executions',
      ...options,
    });
  }

  private s3Location(props: DataSyncSeedRunProps): datasync.CfnLocationS3 {
    const role = new iam.Role(this, 'S3AccessRole', {
      assumedBy: new iam.ServicePrincipal('datasync.amazonaws.com'),
      description: 'DataSync reads the seed source from S3',
    });
    role.addToPolicy(new iam.PolicyStatement({
      actions: ['s3:GetBucketLocation', 's3:ListBucket', 's3:ListBucketMultipartUploads'],
      resources: [props.bucket.bucketArn],
    }));
    role.addToPolicy(new iam.PolicyStatement({
      actions: ['s3:GetObject', 's3:GetObjectTagging', 's3:GetObjectVersion', 's3:GetObjectVersionTagging'],
      resources: [props.bucket.arnForObjects(`${props.prefix}*`)],
    }));
    props.bucket.encryptionKey?.grantDecrypt(role);
    acknowledgeWildcard(role, nagResource(this, props.bucket.arnForObjects(`${props.prefix}*`)),
      'DataSync reads every object under the seed prefix, and only those.');
    const location = new datasync.CfnLocationS3(this, 'Source', {
      s3BucketArn: props.bucket.bucketArn,
      s3Config: { bucketAccessRoleArn: role.roleArn },
      subdirectory: `/${props.prefix}`,
    });
    // CreateLocationS3 tests access with the role ("could not perform s3:ListObjectsV2" when it
    // cannot), so the role's policies must exist first; the location names only the role, whose
    // policies CloudFormation would otherwise create alongside it.
    location.node.addDependency(role);
    return location;
  }

  private efsLocation(props: DataSyncSeedRunProps): datasync.CfnLocationEFS {
    const securityGroup = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc: props.vpc,
      description: 'DataSync network interfaces that write the seed to EFS',
      allowAllOutbound: false,
    });
    securityGroup.connections.allowTo(props.fileSystem, ec2.Port.tcp(2049), 'NFS to the file system');
    const role = new iam.Role(this, 'FileSystemAccessRole', {
      assumedBy: new iam.ServicePrincipal('datasync.amazonaws.com'),
      description: 'DataSync mounts the file system through the seed access point',
    });
    // No ClientRootAccess, which AWS's example policy includes: DataSync mounts as root, but the
    // access point enforces a non-root POSIX user (FileSystemSeed refuses one that does not), and
    // only an identity of uid or gid 0 needs it
    // (https://docs.aws.amazon.com/efs/latest/ug/enforce-identity-access-points.html).
    role.addToPolicy(new iam.PolicyStatement({
      actions: ['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite'],
      resources: [props.fileSystem.fileSystemArn],
      conditions: {
        StringEquals: { 'elasticfilesystem:AccessPointArn': props.accessPoint.accessPointArn },
        Bool: { 'elasticfilesystem:AccessedViaMountTarget': 'true' },
      },
    }));
    const location = new datasync.CfnLocationEFS(this, 'Destination', {
      efsFilesystemArn: props.fileSystem.fileSystemArn,
      ec2Config: {
        subnetArn: Stack.of(this).formatArn({ service: 'ec2', resource: 'subnet', resourceName: props.subnet.subnetId }),
        securityGroupArns: [Stack.of(this).formatArn({ service: 'ec2', resource: 'security-group', resourceName: securityGroup.securityGroupId })],
      },
      accessPointArn: props.accessPoint.accessPointArn,
      fileSystemAccessRoleArn: role.roleArn,
      // Access points and IAM need TLS; the file system's policy also refuses anything else.
      inTransitEncryption: 'TLS1_2',
      subdirectory: props.subdirectory,
    });
    // The task made from it creates its network interfaces and mounts: not before the names resolve.
    location.node.addDependency(props.fileSystem.mountTargetsAvailable, props.mountTargetsReady);
    location.node.addDependency(role);
    dependOnRulesBetween(location, securityGroup, props.fileSystem);
    return location;
  }

  private runAtDeploy(props: DataSyncSeedRunProps): CustomResource {
    const executions = `${this.task.attrTaskArn}/execution/*`;
    const handlers = runHandlers(this);
    const run = handlers.addResource(this, 'Run', {
      resourceType: 'Custom::CdkEfsKitDataSyncSeed',
      properties: { TaskArn: this.task.attrTaskArn, Trigger: props.trigger, Target: props.target, WaitForCompletion: String(props.waitForCompletion) },
    });
    // The handlers serve every DataSync seed of the stack: each seed adds its own task to their
    // policies. onEvent starts an execution tagged with its source, place and request (tagging at start
    // needs TagResource, DataSync's tag-on-create rule), unless one for the same source and place is
    // still going or this request started the latest; it cancels those a deploy started for another (a
    // newer request wins, a rollback included), and a Delete cancels what still runs.
    handlers.onEvent.addToRolePolicy(new iam.PolicyStatement({ actions: ['datasync:StartTaskExecution', 'datasync:DescribeTask'], resources: [this.task.attrTaskArn] }));
    handlers.onEvent.addToRolePolicy(new iam.PolicyStatement({
      actions: ['datasync:TagResource', 'datasync:ListTagsForResource', 'datasync:CancelTaskExecution', 'datasync:DescribeTaskExecution'],
      resources: [executions],
    }));
    // isComplete polls the execution, and cancels it when the deploy's time limit runs out.
    handlers.isComplete!.addToRolePolicy(new iam.PolicyStatement({ actions: ['datasync:DescribeTaskExecution', 'datasync:CancelTaskExecution'], resources: [executions] }));
    for (const fn of [handlers.onEvent, handlers.isComplete!]) {
      acknowledgeWildcard(fn, `${nagRef(this.task, 'TaskArn')}/execution/*`, 'Execution ARNs are created at run time under the task\'s ARN.');
    }
    return run;
  }
}

/**
 * The functions that start and await DataSync executions, with their Provider: one set for the
 * DataSync seeds of the stack, whatever their task, file system or wait.
 */
function runHandlers(scope: Construct): DeployTimeProvider {
  return sharedSeedProvider(scope, {
    kind: 'DataSyncRun',
    // They mount nothing and each seed adds its own grants: nothing about a seed is theirs.
    key: {},
    newFunction: (parent, id, handler) => {
      const fn = new lambda.Function(parent, id, {
        runtime: lambda.Runtime.NODEJS_22_X, code: handlerCode('seed-datasync-run'), handler, timeout: Duration.minutes(1), memorySize: 256,
      });
      if (handler === 'index.onEvent') {
        // ListTaskExecutions supports no resource-level permissions (Service Authorization Reference): the
        // request names the task, and the handler acts only on what it lists.
        fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['datasync:ListTaskExecutions'], resources: ['*'] }));
        acknowledgeWildcard(fn, '*', 'datasync:ListTaskExecutions supports no resource-level permissions; the handler lists only the seed tasks\' executions.');
      }
      return fn;
    },
    onEventId: 'StartExecution',
    // Always: whether a request waits is its own (WaitForCompletion), so changing it changes no ServiceToken.
    isCompleteId: 'WaitForExecution',
    queryInterval: Duration.seconds(30),
  });
}
