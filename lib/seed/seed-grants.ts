import { Aws } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { folderPrefix } from './contract/s3-prefix';
import { SeedSourceConfig, SeedSourceFormat } from './seed-source';
import { acknowledgeWildcard, nagResource } from '../core/nag';

/** Read access to exactly what a bound seed source names: its objects' prefix, or its one archive. */
export function grantSourceRead(grantee: iam.IGrantable, source: SeedSourceConfig): void {
  if (source.format === SeedSourceFormat.S3_OBJECTS) {
    grantPrefixRead(grantee, source.bucket, source.key);
  } else {
    grantObjectRead(grantee, source.bucket, source.key);
  }
}

/**
 * Reading its own stack's resources and their Metadata, and nothing of another stack's: a seed's
 * Delete leaves a place that another live seed resource of the stack serves.
 */
export function grantOwnStackRead(grantee: iam.IGrantable): void {
  grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({
    actions: ['cloudformation:ListStackResources', 'cloudformation:DescribeStackResource'],
    resources: [Aws.STACK_ID],
  }));
}

/**
 * Listing under `prefix` and reading the objects there, for the requests the seed handler sends: a
 * ListObjectsV2 with Prefix `folderPrefix(prefix)`, or with no Prefix at all for the whole bucket.
 * Without a Prefix the request has no `s3:prefix` key, and a condition on an absent key is false
 * ("If the key that you specify in a policy condition is not present in the request context, the
 * values do not match and the condition is false",
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html):
 * so the whole bucket gets no condition, which is what it means.
 */
export function grantPrefixRead(grantee: iam.IGrantable, bucket: s3.IBucket, prefix: string): void {
  const folder = folderPrefix(prefix);
  grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({
    actions: ['s3:ListBucket'],
    resources: [bucket.bucketArn],
    conditions: folder ? { StringLike: { 's3:prefix': [`${folder}*`] } } : undefined,
  }));
  const objects = bucket.arnForObjects(`${folder}*`);
  grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [objects] }));
  bucket.encryptionKey?.grantDecrypt(grantee);
  if (Construct.isConstruct(grantee)) acknowledgeWildcard(grantee, nagResource(grantee, objects), 'The seed reads every object under its source prefix, and only those.');
}

/**
 * s3:GetObject on one key, and nothing else: least privilege for an archive. It covers the
 * HeadObject a zip is sized with ("To use HEAD, you must have the s3:GetObject permission",
 * https://docs.aws.amazon.com/AmazonS3/latest/API/API_HeadObject.html).
 */
function grantObjectRead(grantee: iam.IGrantable, bucket: s3.IBucket, key: string): void {
  grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [bucket.arnForObjects(key)] }));
  bucket.encryptionKey?.grantDecrypt(grantee);
}
