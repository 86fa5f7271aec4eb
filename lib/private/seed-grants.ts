import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { SeedSourceConfig, SeedSourceFormat } from '../seed-source';
import { acknowledgeWildcard, nagResource } from './nag';

/** Read access to exactly what a bound seed source names: its objects' prefix, or its one archive. */
export function grantSourceRead(grantee: iam.IGrantable, source: SeedSourceConfig): void {
  if (source.format === SeedSourceFormat.S3_OBJECTS) {
    grantPrefixRead(grantee, source.bucket, source.key);
  } else {
    grantObjectRead(grantee, source.bucket, source.key);
  }
}

/** Listing under `prefix` and reading the objects there. */
export function grantPrefixRead(grantee: iam.IGrantable, bucket: s3.IBucket, prefix: string): void {
  grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({
    actions: ['s3:ListBucket'], resources: [bucket.bucketArn], conditions: { StringLike: { 's3:prefix': [`${prefix}*`] } },
  }));
  const objects = bucket.arnForObjects(`${prefix}*`);
  grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [objects] }));
  bucket.encryptionKey?.grantDecrypt(grantee);
  if (Construct.isConstruct(grantee)) acknowledgeWildcard(grantee, nagResource(grantee, objects), 'The seed reads every object under its source prefix, and only those.');
}

/** s3:GetObject on one key, and nothing else: least privilege for an archive. */
function grantObjectRead(grantee: iam.IGrantable, bucket: s3.IBucket, key: string): void {
  grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [bucket.arnForObjects(key)] }));
  bucket.encryptionKey?.grantDecrypt(grantee);
}
