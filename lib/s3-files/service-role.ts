import { Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { S3FILES_EVENT_RULE_PREFIX, S3FILES_SERVICE_PRINCIPAL } from './contract/s3-files-names';
import { acknowledgeWildcard, nagResource } from '../core/nag';

/** What the role S3 Files assumes may reach. */
export interface ServiceRoleScope {
  readonly bucket: s3.IBucket;
  /** The key prefix the file system serves ('' for the whole bucket). */
  readonly prefix: string;
  /** The bucket's SSE-KMS key, when it has one. */
  readonly bucketKey?: kms.IKey;
}

/**
 * The role S3 Files assumes to synchronize the file system with its bucket (S3 User Guide, "S3 Files
 * IAM role"): trusted by elasticfilesystem.amazonaws.com for this account's S3 Files file systems
 * only (aws:SourceAccount, aws:SourceArn: the confused-deputy guard); S3 on the bucket and on the
 * objects under the prefix; KMS through S3 only, for an SSE-KMS bucket; and the EventBridge rules
 * S3 Files keeps on the bucket's events, only those it manages itself (events:ManagedBy).
 */
export function makeServiceRole(scope: Construct, id: string, target: ServiceRoleScope): iam.Role {
  const stack = Stack.of(scope);
  const role = new iam.Role(scope, id, {
    description: 'Assumed by Amazon S3 Files to synchronize the file system with its bucket',
    assumedBy: new iam.ServicePrincipal(S3FILES_SERVICE_PRINCIPAL).withConditions({
      StringEquals: { 'aws:SourceAccount': stack.account },
      ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 's3files', resource: 'file-system', resourceName: '*' }) },
    }),
  });
  const objects = target.bucket.arnForObjects(`${target.prefix}*`);
  // S3 has no per-prefix resource for listing; the objects below are scoped to the prefix.
  role.addToPolicy(new iam.PolicyStatement({ sid: 'ListBucket', actions: ['s3:ListBucket', 's3:ListBucketVersions'], resources: [target.bucket.bucketArn] }));
  role.addToPolicy(new iam.PolicyStatement({
    sid: 'ObjectsUnderPrefix',
    actions: ['s3:GetObject*', 's3:PutObject*', 's3:DeleteObject*', 's3:AbortMultipartUpload'],
    resources: [objects],
  }));
  for (const action of ['s3:GetObject*', 's3:PutObject*', 's3:DeleteObject*']) {
    Validations.of(role).acknowledge({ id: `AwsSolutions-IAM5[Action::${action}]`, reason: 'The S3 Files User Guide gives the synchronization role these action families on the served objects: it reads and writes every version and its tags and attributes.' });
  }
  acknowledgeWildcard(role, `${nagResource(role, objects)}`, 'Every object under the file system\'s prefix: the objects it serves.');
  if (target.bucketKey) {
    role.addToPolicy(new iam.PolicyStatement({
      sid: 'BucketKeyThroughS3',
      actions: ['kms:GenerateDataKey', 'kms:Encrypt', 'kms:Decrypt', 'kms:ReEncrypt*'],
      resources: [target.bucketKey.keyArn],
      conditions: { StringEquals: { 'kms:ViaService': `s3.${stack.region}.${stack.urlSuffix}` } },
    }));
    Validations.of(role).acknowledge({ id: 'AwsSolutions-IAM5[Action::kms:ReEncrypt*]', reason: 'ReEncryptFrom and ReEncryptTo on the bucket key, through S3 only (kms:ViaService), as the S3 Files User Guide lists them.' });
  }
  const rules = stack.formatArn({ service: 'events', resource: 'rule', resourceName: `${S3FILES_EVENT_RULE_PREFIX}*` });
  role.addToPolicy(new iam.PolicyStatement({
    sid: 'ManagedEventRules',
    actions: ['events:PutRule', 'events:PutTargets', 'events:DeleteRule', 'events:EnableRule', 'events:DisableRule', 'events:RemoveTargets'],
    resources: [rules],
    conditions: { StringEquals: { 'events:ManagedBy': S3FILES_SERVICE_PRINCIPAL } },
  }));
  role.addToPolicy(new iam.PolicyStatement({ sid: 'DescribeEventRules', actions: ['events:DescribeRule'], resources: [rules] }));
  role.addToPolicy(new iam.PolicyStatement({ sid: 'ListEventRules', actions: ['events:ListRules'], resources: ['*'] }));
  acknowledgeWildcard(role, nagResource(role, rules), `The rules S3 Files names ${S3FILES_EVENT_RULE_PREFIX}-…, changed only where S3 Files manages them (events:ManagedBy).`);
  acknowledgeWildcard(role, '*', 'events:ListRules has no resource-level permissions.');
  return role;
}
