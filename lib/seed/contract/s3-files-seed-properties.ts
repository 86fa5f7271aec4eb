import { isNormalEntryPath } from './entry-path';
import { isCount, MAX_INVOCATION_TIMEOUT_SECONDS, propertyProblems, SeedFormat, sharedSeedProblems } from './resource-properties';

/**
 * The contract between the S3FilesSeed construct (lib/seed/s3-files-seed.ts) and its handler
 * (lambda/seed-s3-files/), checked at both ends as the EFS seed's properties are: the construct at
 * synth, the handler on every request (it is the trust boundary). CloudFormation passes strings.
 */
export interface S3FilesSeedResourceProperties {
  /** The source, as the EFS seed names it. */
  readonly Bucket: string;
  readonly Key: string;
  readonly Format: SeedFormat;
  readonly Fingerprint: string;
  /** The file system's bucket, and the key prefix the seed fills ('' or ending in '/'): with the bucket, the seed's place. */
  readonly TargetBucket: string;
  readonly TargetPrefix: string;
  /** Where the seed function mounts the file system's root (read only), and the target's path under it ('' for the root). */
  readonly MountPath: string;
  readonly VisiblePath: string;
  /** How long a run waits for the seeded files to show through the mount, in seconds. */
  readonly VisibilityTimeoutSeconds: string;
  readonly Concurrency: string;
  /**
   * Who copies the source into the place: absent, the seed function itself; 'dataSync', a DataSync
   * task that ran before the request (S3 objects only, no prune or removal), so the function claims
   * the place and checks that the source's files show through the mount.
   */
  readonly CopiedBy?: 'dataSync';
  readonly InvocationTimeoutSeconds?: string;
  readonly Prune: string;
  readonly RemoveOnDelete: string;
  readonly MetricsName?: string;
  readonly MaxMemberBytes?: string;
  readonly MaxTotalBytes?: string;
  readonly MaxEntries?: string;
  readonly MaxCompressionRatio?: string;
}

/**
 * A visibility wait is at least a minute (S3 Files shows a change in a directory it imported about
 * 30 s later) and runs inside one invocation, before its last minute and after the writes: at most
 * the longest invocation less 2 minutes (less still for a shorter `timeout`, checked at synth).
 */
export const MIN_VISIBILITY_TIMEOUT_SECONDS = 60;
export const MAX_VISIBILITY_TIMEOUT_SECONDS = MAX_INVOCATION_TIMEOUT_SECONDS - 120;

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** A key prefix the seed fills: '' (the whole bucket) or a normal relative path ending in '/'. */
export function isTargetPrefix(value: unknown): boolean {
  return value === '' || (typeof value === 'string' && value.endsWith('/') && isNormalEntryPath(value.slice(0, -1)));
}

/** What is wrong with the properties, one line each; `isToken` says which values resolve only at deploy time. */
export function s3FilesSeedPropertyProblems(props: Partial<Record<keyof S3FilesSeedResourceProperties, unknown>>, isToken: (value: unknown) => boolean = () => false): string[] {
  return propertyProblems<keyof S3FilesSeedResourceProperties>(props, isToken, (need, problems) => {
    sharedSeedProblems(props, need, problems);
    need('TargetBucket', (v) => typeof v === 'string' && BUCKET_NAME.test(v), 'must be an S3 bucket name');
    need('TargetPrefix', isTargetPrefix, "must be '' or a relative key prefix ending in '/', without empty, '.' or '..' parts or names starting with .cdk-efs-kit");
    need('VisiblePath', (v) => v === '' || isNormalEntryPath(v), "must be '' or a relative path without empty, '.' or '..' parts");
    need('VisibilityTimeoutSeconds', (v) => isCount(v, MAX_VISIBILITY_TIMEOUT_SECONDS) && Number(v) >= MIN_VISIBILITY_TIMEOUT_SECONDS,
      `must be a whole number of seconds from ${MIN_VISIBILITY_TIMEOUT_SECONDS} to ${MAX_VISIBILITY_TIMEOUT_SECONDS}`);
    need('CopiedBy', (v) => v === 'dataSync', "must be 'dataSync' where given", true);
    if (props.CopiedBy === 'dataSync') {
      // DataSync copies objects as they are, keeps no record of what it wrote, and removes what the source lacks, the application's objects too.
      if (props.Format !== 's3-objects') problems.push(`Format must be s3-objects with CopiedBy dataSync (DataSync extracts no archive), got ${JSON.stringify(props.Format)}`);
      if (props.Prune !== 'false') problems.push(`Prune must be 'false' with CopiedBy dataSync, got ${JSON.stringify(props.Prune)}`);
      if (props.RemoveOnDelete !== 'false') problems.push(`RemoveOnDelete must be 'false' with CopiedBy dataSync, got ${JSON.stringify(props.RemoveOnDelete)}`);
    }
  });
}

/** The properties, checked: throws one error that lists every problem. */
export function checkS3FilesSeedProperties(props: unknown): S3FilesSeedResourceProperties {
  const problems = props !== null && typeof props === 'object' ? s3FilesSeedPropertyProblems(props) : ['the properties must be an object'];
  if (problems.length > 0) throw new Error(`invalid S3 Files seed properties: ${problems.join('; ')}`);
  return props as S3FilesSeedResourceProperties;
}

/** Where, under its key prefix, a seed keeps its claim on the place (lambda/seed-s3-files/place-claim.ts). */
export const S3_FILES_SEED_CLAIM_NAME = '.cdk-efs-kit/claim.json';

/** The place a seed fills, as its physical id names it: `s3://<bucket>/<prefix>`. */
export const s3FilesSeedPlace = (props: Pick<S3FilesSeedResourceProperties, 'TargetBucket' | 'TargetPrefix'>) => `s3://${props.TargetBucket}/${props.TargetPrefix}`;
