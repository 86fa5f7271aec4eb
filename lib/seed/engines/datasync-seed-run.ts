import { CustomResource, Duration, Fn, Stack } from 'aws-cdk-lib';
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

/** Where a seed's DataSync task writes: an EFS access point (Basic mode), or a key prefix of a bucket (Enhanced mode, S3 to S3). */
export type DataSyncSeedInto = DataSyncIntoEfs | DataSyncIntoS3;

export interface DataSyncIntoEfs {
  readonly kind: 'efs';
  readonly fileSystem: efs.IFileSystem;
  readonly accessPoint: efs.IAccessPoint;
  /** A subnet with a mount target, where DataSync puts its network interfaces. */
  readonly subnet: ec2.ISubnet;
  /** The file system's readiness gate: DataSync mounts it from the task's network interfaces like any client. */
  readonly mountTargetsReady: IDependable;
  readonly vpc: ec2.IVpc;
  /** Directory under the access point to copy into, '/' for its root. */
  readonly subdirectory: string;
}

export interface DataSyncIntoS3 {
  readonly kind: 's3';
  readonly bucket: s3.IBucket;
  /** The key prefix to write under: '' or ending in '/'. */
  readonly prefix: string;
}

export interface DataSyncSeedRunProps extends DataSyncEngineOptions {
  /** Wait for the execution within the deploy's time limit, or only start it. */
  readonly waitForCompletion: boolean;
  /** The source: a bucket, and a key prefix in it ('' for the whole bucket). */
  readonly bucket: s3.IBucket;
  readonly prefix: string;
  readonly into: DataSyncSeedInto;
  /** Changing it starts a new execution on the next deploy. */
  readonly trigger: string;
  /**
   * Where the copy lands, as tokens the template resolves. A new access point, path or prefix
   * updates the destination location in place, so the task's ARN does not say it: a change must
   * start a new run.
   */
  readonly target: string;
}

/**
 * A DataSync task from an S3 prefix (locations, roles, logging) into EFS, or into another S3 prefix
 * in Enhanced mode (an S3 Files file system's bucket), and a custom resource that runs it at deploy
 * time and waits for it, or only starts it.
 */
export class DataSyncSeedRun extends Construct {
  public readonly task: datasync.CfnTask;
  /**
   * Matches this task's failed executions, at deploy time or on the schedule; its `MatchedEvents`
   * metric (namespace AWS/Events) counts them for alarms.
   */
  public readonly failureRule: events.Rule;
  /** Completes when the execution started by this deploy has finished. */
  public readonly resource: CustomResource;

  constructor(scope: Construct, id: string, props: DataSyncSeedRunProps) {
    super(scope, id);
    const source = this.s3Source(props);
    const into = props.into;
    const destination = into.kind === 'efs' ? this.efsLocation(into) : this.s3Destination(into);
    const logGroup = into.kind === 'efs' ? this.logGroup(props.logRetention) : undefined;
    const common = {
      verifyMode: props.verifyMode ?? DataSyncVerifyMode.ONLY_FILES_TRANSFERRED,
      transferMode: props.transferAll ? 'ALL' : 'CHANGED',
      preserveDeletedFiles: props.removeDeletedFiles ? 'REMOVE' : 'PRESERVE',
      overwriteMode: 'ALWAYS',
      logLevel: 'BASIC',
      taskQueueing: 'ENABLED',
    };
    this.task = new datasync.CfnTask(this, 'Task', {
      sourceLocationArn: source.attrLocationArn,
      destinationLocationArn: destination.attrLocationArn,
      ...into.kind === 'efs' ? {
        cloudWatchLogGroupArn: logGroup!.logGroupArn,
        options: {
          ...common,
          // The destination is an access point that enforces a POSIX user, and "the transferred files
          // and folders are set to the access point's user and group IDs. When this happens, task
          // verification fails" if the task copies ownership (INT_VALUE, the default): so it must not
          // (https://docs.aws.amazon.com/datasync/latest/userguide/create-efs-location.html). S3 objects
          // carry no owner anyway. Permissions and times are still copied, and verified.
          uid: 'NONE',
          gid: 'NONE',
          bytesPerSecond: props.bytesPerSecond ?? -1,
        },
      } : {
        // Enhanced mode: no file-count quota, listing and copying in parallel; S3 to S3 only. It logs
        // to the log group /aws/datasync of its own accord (CreateTask, CloudWatchLogGroupArn), and
        // takes no bandwidth limit. Object tags are not copied: S3 Files does not show them, and
        // copying them would need tagging permissions on both buckets.
        taskMode: 'ENHANCED',
        options: { ...common, objectTags: 'NONE' },
      },
      includes: props.includes?.length ? [{ filterType: 'SIMPLE_PATTERN', value: props.includes.join('|') }] : undefined,
      excludes: excludesOf(props),
      schedule: props.scheduleExpression ? { scheduleExpression: props.scheduleExpression } : undefined,
    });
    if (logGroup) this.task.node.addDependency(logGroup);

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

  /** The task's id (`task-...`), the dimension of its AWS/DataSync metrics. */
  public get taskId(): string {
    return Fn.select(1, Fn.split('/', this.task.attrTaskArn));
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

  /** The Basic-mode task's log group, which DataSync may write to. */
  private logGroup(retention: logs.RetentionDays | undefined): logs.LogGroup {
    const logGroup = new logs.LogGroup(this, 'Logs', { retention: retention ?? logs.RetentionDays.ONE_MONTH });
    logGroup.addToResourcePolicy(new iam.PolicyStatement({
      principals: [new iam.ServicePrincipal('datasync.amazonaws.com')],
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [logGroup.logGroupArn],
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
    }));
    return logGroup;
  }

  /** The source: the seed prefix, read (object versions and tags too) by a role of its own. */
  private s3Source(props: DataSyncSeedRunProps): datasync.CfnLocationS3 {
    const { location, role } = this.s3Location('Source', 'S3AccessRole', 'DataSync reads the seed source from S3', props.bucket, props.prefix,
      ['s3:GetObject', 's3:GetObjectTagging', 's3:GetObjectVersion', 's3:GetObjectVersionTagging'], 'DataSync reads every object under the seed prefix, and only those.');
    props.bucket.encryptionKey?.grantDecrypt(role);
    return location;
  }

  /**
   * The prefix of the bucket the task writes. Of the permissions DataSync's guide lists for an S3
   * location, s3:DeleteObject is left out (the task never removes: PreserveDeletedFiles PRESERVE,
   * refused otherwise by S3FilesSeed) and so are the tagging ones (ObjectTags NONE).
   */
  private s3Destination(into: DataSyncIntoS3): datasync.CfnLocationS3 {
    const { location, role } = this.s3Location('Destination', 'DestinationAccessRole', 'DataSync writes the seed into the S3 Files file system\'s bucket', into.bucket, into.prefix,
      ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'], 'DataSync writes the objects under the seed\'s key prefix of the file system\'s bucket, and only those.');
    // The seed's own names (its claim and manifest) are never DataSync's to write, whatever the source holds.
    role.addToPolicy(new iam.PolicyStatement({
      effect: iam.Effect.DENY,
      actions: ['s3:PutObject'],
      resources: RESERVED_PATTERNS.map((pattern) => into.bucket.arnForObjects(`${into.prefix}${pattern}`)),
    }));
    into.bucket.encryptionKey?.grantEncryptDecrypt(role);
    return location;
  }

  /**
   * An S3 location of the task at `prefix` of `bucket`, with a role of its own that may do
   * `objectActions` on the objects there and list the bucket. The listing is not narrowed to the
   * prefix: DataSync documents no prefix it lists with.
   */
  private s3Location(id: string, roleId: string, description: string, bucket: s3.IBucket, prefix: string, objectActions: string[], why: string):
  { location: datasync.CfnLocationS3; role: iam.Role } {
    const role = new iam.Role(this, roleId, { assumedBy: new iam.ServicePrincipal('datasync.amazonaws.com'), description });
    role.addToPolicy(new iam.PolicyStatement({
      actions: ['s3:GetBucketLocation', 's3:ListBucket', 's3:ListBucketMultipartUploads'],
      resources: [bucket.bucketArn],
    }));
    const objects = bucket.arnForObjects(`${prefix}*`);
    role.addToPolicy(new iam.PolicyStatement({ actions: objectActions, resources: [objects] }));
    acknowledgeWildcard(role, nagResource(this, objects), why);
    const location = new datasync.CfnLocationS3(this, id, {
      s3BucketArn: bucket.bucketArn,
      s3Config: { bucketAccessRoleArn: role.roleArn },
      subdirectory: `/${prefix}`,
    });
    // CreateLocationS3 tests access with the role ("could not perform s3:ListObjectsV2" when it
    // cannot), so the role's policies must exist first; the location names only the role, whose
    // policies CloudFormation would otherwise create alongside it.
    location.node.addDependency(role);
    return { location, role };
  }

  private efsLocation(props: DataSyncIntoEfs): datasync.CfnLocationEFS {
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

/** Keys (below the prefix) with a name of the seed's own, which starts with .cdk-efs-kit, at the top or deeper: as IAM resources, and as DataSync filters. */
const RESERVED_PATTERNS = ['.cdk-efs-kit*', '*/.cdk-efs-kit*'];
const RESERVED_FILTERS = ['/.cdk-efs-kit*', '*/.cdk-efs-kit*'];

/** The task's exclude filter: the user's patterns, and into a bucket, the seed's own names (which the role may not write either). */
function excludesOf(props: DataSyncSeedRunProps): datasync.CfnTask.FilterRuleProperty[] | undefined {
  const patterns = [...props.excludes ?? [], ...props.into.kind === 's3' ? RESERVED_FILTERS : []];
  return patterns.length > 0 ? [{ filterType: 'SIMPLE_PATTERN', value: patterns.join('|') }] : undefined;
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
