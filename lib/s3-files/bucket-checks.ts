import { Annotations, CfnResource, Stack } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { IConstruct } from 'constructs';
import { ValidationError } from '../core/validation-error';
import { propName } from '../core/contract/prop-name';

/**
 * S3 Files requires a versioned bucket. A bucket the app defines is checked (unversioned: a synth
 * error); one imported is not visible, so it warns. A bucket the app would delete with the stack
 * warns too: S3 refuses its deletion for 5-10 minutes after the file system is gone.
 */
export function checkBucket(scope: IConstruct, where: string, bucket: s3.IBucket): void {
  const cfn = bucket.node.defaultChild;
  if (!cfn || !CfnResource.isCfnResource(cfn) || cfn.cfnResourceType !== s3.CfnBucket.CFN_RESOURCE_TYPE_NAME) {
    Annotations.of(scope).addWarningV2('cdk-efs-kit:s3FilesBucketVersioningUnknown',
      `${where}: the ${propName('bucket')} ${bucket.node.path} is imported, so its versioning cannot be checked; S3 Files requires versioning Enabled, and the file system fails to create without it.`);
    return;
  }
  const versioning = Stack.of(scope).resolve((cfn as s3.CfnBucket).versioningConfiguration) as { status?: string } | undefined;
  if (versioning?.status !== 'Enabled') {
    throw new ValidationError(`${where}: S3 Files requires a versioned bucket, but ${propName('bucket')} ${bucket.node.path} has versioning ${versioning?.status ?? 'off'}; give it ${propName('versioned')}: true, got versioning ${JSON.stringify(versioning?.status ?? null)}.`, scope);
  }
  if (cfn.cfnOptions.deletionPolicy === undefined || String(cfn.cfnOptions.deletionPolicy) === 'Delete') {
    Annotations.of(scope).addWarningV2('cdk-efs-kit:s3FilesBucketDeletedWithFileSystem',
      `${where}: the ${propName('bucket')} ${bucket.node.path} is deleted with the stack, but S3 refuses to delete a bucket for about 5-10 minutes after its S3 Files file system is gone (BucketHasS3FileSystemAttached), so the stack's deletion can fail; give the bucket RemovalPolicy.RETAIN and delete it later.`);
  }
}
