import { folderPrefix } from '../../lib/seed/contract/s3-prefix';
import { safeEntryPath, UnsafeEntryError } from '../../lib/seed/contract/entry-path';

/**
 * Where a bucket seed writes: the bucket behind an S3 Files file system and a key prefix in it (''
 * for the whole bucket, else ending in '/'). A file at `a/b.txt` becomes the object `<prefix>a/b.txt`.
 */
export interface BucketTarget {
  readonly bucket: string;
  readonly prefix: string;
}

/** The seed's record, at a reserved key under the prefix (the EFS seed keeps its state in `.cdk-efs-kit/` too). */
export const MANIFEST_NAME = '.cdk-efs-kit/bucket-manifest.json';

/** S3 Files serves keys of at most 1,024 bytes (S3 Files quotas): a longer one would never appear in the file system. */
const MAX_KEY_BYTES = 1024;

/** The directory S3 Files moves the file system's copy to when the bucket wins a conflict: never exported, so never seeded into. */
const LOST_AND_FOUND = /^\.s3files-lost\+found-/;

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** `s3://bucket/prefix` as the CLI takes a bucket target; throws naming the problem for any other shape. */
export function parseBucketTarget(url: string): BucketTarget {
  const match = /^s3:\/\/([^/]*)(?:\/(.*))?$/.exec(url);
  if (!match) throw new Error(`a bucket target must be s3://<bucket>/<prefix>, got '${url}'`);
  const [, bucket, rawPrefix = ''] = match;
  if (!BUCKET_NAME.test(bucket)) throw new Error(`'${bucket}' is not an S3 bucket name (3-63 characters: lower-case letters, digits, '.' and '-')`);
  return { bucket, prefix: bucketPrefix(rawPrefix) };
}

/** A prefix as the seed uses it: '' or a safe relative path ending in '/'. Throws naming the problem. */
function bucketPrefix(raw: string): string {
  const trimmed = raw.replace(/\/+$/, '');
  if (trimmed === '') return '';
  let relative: string;
  try {
    relative = safeEntryPath(trimmed);
  } catch (err) {
    throw new Error(`the bucket prefix '${raw}' cannot be seeded: ${(err as Error).message}`);
  }
  if (relative !== trimmed) throw new Error(`the bucket prefix '${raw}' must be in normal form ('a/b/', no '.', '..', '//' or backslash): '${relative}/' is meant?`);
  return folderPrefix(relative);
}

export const manifestKey = (target: BucketTarget) => target.prefix + MANIFEST_NAME;

/** The object key an entry at `relative` (already a safe entry path) gets, or an UnsafeEntryError where S3 Files could not serve it. */
export function objectKey(target: BucketTarget, relative: string): string {
  if (LOST_AND_FOUND.test(relative)) throw new UnsafeEntryError(relative, 'names starting with .s3files-lost+found- are S3 Files\' own (its lost+found directory)');
  const key = target.prefix + relative;
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) throw new UnsafeEntryError(relative, `its key is longer than ${MAX_KEY_BYTES} bytes, which S3 Files does not serve`);
  return key;
}

/** Whether two places in S3 overlap (one prefix holds the other): a source that overlaps the target would copy onto itself. */
export function overlaps(a: BucketTarget, b: BucketTarget): boolean {
  return a.bucket === b.bucket && (a.prefix.startsWith(b.prefix) || b.prefix.startsWith(a.prefix));
}
