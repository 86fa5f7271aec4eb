import * as fs from 'fs';
import * as path from 'path';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import { Construct } from 'constructs';
import { ValidationError } from '../core/validation-error';
import { propName } from '../core/contract/prop-name';
import { archiveBytesProblem } from './archive-bytes';

/** How the seed reads a source. */
export enum SeedSourceFormat {
  /** Every object under an S3 prefix becomes a file (key minus prefix = path). */
  S3_OBJECTS = 's3-objects',
  /** One .zip archive object, extracted while it streams in. */
  ZIP = 'zip',
  /** One .tar archive object. */
  TAR = 'tar',
  /** One .tar.gz (or .tgz) archive object. */
  TAR_GZ = 'tar.gz',
}

/** Where a bound source lives and how to read it: what [SeedSource.bind](#cdk-efs-kit.SeedSource.bind) returns. */
export interface SeedSourceConfig {
  /** The bucket holding the source. */
  readonly bucket: s3.IBucket;
  /** The archive's key, or the prefix of the objects (`''` for the whole bucket). */
  readonly key: string;
  /** How to read it. */
  readonly format: SeedSourceFormat;
  /**
   * Changes exactly when the content changes (an asset hash) or when the user says so (`version`),
   * which is what makes a deploy re-run the seed.
   */
  readonly fingerprint: string;
}

/** Options for sources in an existing bucket. */
export interface S3SeedSourceOptions {
  /**
   * A label for the content. CloudFormation cannot see inside the bucket, so the seed re-runs on a
   * deploy only when this changes: bump it after updating the objects. Re-runs copy only what changed.
   * @default '' - seeded on the first deploy only
   */
  readonly version?: string;
}

/**
 * What to put on the file system. The seed binds its source once, then reads exactly what the
 * returned [SeedSourceConfig](#cdk-efs-kit.SeedSourceConfig) names (its prefix, or its one archive), and nothing else.
 */
export abstract class SeedSource {
  /**
   * A local directory (CDK uploads it as a zip asset) or a local .zip, .tar, .tar.gz or .tgz file
   * (uploaded as it is and read as its name says; synth fails when its first bytes are another
   * format's). Re-seeds whenever its content changes.
   *
   * @example
   * files.addSeed('Content', { accessPoint: web, source: SeedSource.asset('site') }); // ./site, staged as a zip asset
   */
  public static asset(localPath: string): SeedSource {
    return new AssetSource(localPath);
  }

  /**
   * Every object under `prefix` in `bucket`, as files under the target (S3 `a/b.txt` -> `<target>/b.txt` for prefix `a/`).
   * @param prefix default: `''`, the whole bucket
   *
   * @example
   * files.addSeed('Datasets', { accessPoint: jobs, source: SeedSource.s3(bucket, 'datasets/') });
   */
  public static s3(bucket: s3.IBucket, prefix: string = '', options: S3SeedSourceOptions = {}): SeedSource {
    return new BucketSource(bucket, prefix, SeedSourceFormat.S3_OBJECTS, options.version ?? '');
  }

  /**
   * One .zip, .tar or .tar.gz object in `bucket`, extracted into the target.
   *
   * @example
   * files.addSeed('Release', { accessPoint: web, source: SeedSource.archive(bucket, 'releases/site-1.4.2.tar.gz') });
   */
  public static archive(bucket: s3.IBucket, key: string, options: S3SeedSourceOptions = {}): SeedSource {
    return new BucketSource(bucket, key, archiveFormatOf(key, 'SeedSource.archive: key'), options.version ?? '');
  }

  /** Called once by the seed that uses this source, with the seed as `scope` (for an asset, say). */
  public abstract bind(scope: Construct): SeedSourceConfig;
}

class AssetSource extends SeedSource {
  constructor(private readonly localPath: string) {
    super();
  }

  public bind(scope: Construct): SeedSourceConfig {
    const asset = new s3assets.Asset(scope, 'SourceAsset', { path: this.localPath });
    // CDK zips a directory; a file goes up as it is, so its name says the format and its bytes must
    // agree. (Not asset.isZipArchive: CDK sets it for a .tar, .tar.gz or .tgz file too.)
    const format = fs.statSync(this.localPath).isDirectory() ? SeedSourceFormat.ZIP : assetFileFormat(this.localPath);
    return { bucket: asset.bucket, key: asset.s3ObjectKey, format, fingerprint: asset.assetHash };
  }
}

class BucketSource extends SeedSource {
  constructor(
    private readonly bucket: s3.IBucket,
    private readonly key: string,
    private readonly format: SeedSourceFormat,
    private readonly version: string,
  ) {
    super();
    if (key.startsWith('/')) throw new ValidationError(`SeedSource: S3 keys and prefixes do not start with '/', got "${key}".`);
  }

  public bind(): SeedSourceConfig {
    return { bucket: this.bucket, key: this.key, format: this.format, fingerprint: `${this.format}:${this.key}:${this.version}` };
  }
}

const ARCHIVE_SUFFIXES: Array<[string, SeedSourceFormat]> = [
  ['.zip', SeedSourceFormat.ZIP], ['.tar', SeedSourceFormat.TAR], ['.tar.gz', SeedSourceFormat.TAR_GZ], ['.tgz', SeedSourceFormat.TAR_GZ],
];

function archiveSuffixOf(name: string, what: string): [string, SeedSourceFormat] {
  const suffix = ARCHIVE_SUFFIXES.find(([end]) => name.toLowerCase().endsWith(end));
  if (!suffix) throw new ValidationError(`${what} must be a directory or end in .zip, .tar, .tar.gz or .tgz, got "${name}".`);
  return suffix;
}

function archiveFormatOf(name: string, what: string): SeedSourceFormat {
  return archiveSuffixOf(name, what)[1];
}

/** The format a local archive file's name says, once its first bytes agree. */
function assetFileFormat(file: string): SeedSourceFormat {
  const what = `SeedSource.asset: ${propName('localPath')}`;
  const [suffix, format] = archiveSuffixOf(path.basename(file), what);
  const problem = archiveBytesProblem(file, format);
  if (problem) throw new ValidationError(`${what} "${file}" is named ${suffix} but ${problem}.`);
  return format;
}
