import type { Construct } from 'constructs';
import { DataSyncSeedRun } from './datasync-seed-run';
import { propName } from '../../core/contract/prop-name';
import { ValidationError } from '../../core/validation-error';
import type { IS3FilesFileSystem } from '../../s3-files/s3-files-file-system-base';
import type { S3FilesSeedProps } from '../s3-files-seed';
import type { SeedEngine } from '../seed-engine';
import { DataSyncVerifyMode } from '../seed-engine-options';
import { SeedSourceConfig, SeedSourceFormat } from '../seed-source';

/**
 * What a DataSync copy into an S3 Files file system's bucket cannot do, with the reason: S3FilesSeed
 * options, then SeedEngine.dataSync() options. DataSync removes whatever the source lacks, the
 * application's objects included, so there is no prune; it keeps no record of what it wrote, so no
 * removal; and the seed's visibility check expects every object of the source, so no filters.
 */
const UNSUPPORTED_SEED_OPTIONS: Partial<Record<keyof S3FilesSeedProps, string>> = {
  prune: 'DataSync would remove every object under the prefix that the source lacks, the application\'s too; the bucket path\'s prune removes only what the seed wrote',
  removeOnDelete: 'DataSync keeps no record of what it wrote',
  concurrency: 'DataSync sets its own parallelism',
  archiveLimits: 'DataSync copies S3 objects as they are and extracts no archive',
};

const UNSUPPORTED_ENGINE_OPTIONS: Record<string, string> = {
  removeDeletedFiles: 'it would remove every object under the prefix that the source lacks, the application\'s too',
  includes: 'the seed checks that every object of the source shows through the mount',
  excludes: 'the seed checks that every object of the source shows through the mount',
  bytesPerSecond: 'Enhanced mode, which DataSync needs between S3 locations, takes no bandwidth limit',
  logRetention: 'Enhanced mode logs to the log group /aws/datasync, which is DataSync\'s, not the seed\'s',
};

/**
 * SeedEngine.dataSync() on S3 Files: a DataSync task in Enhanced mode (no file-count quota, listing
 * and copying in parallel) from the S3 source prefix to the seed's key prefix of the file system's
 * bucket, run and awaited at deploy time; the seed's own resource then checks that the files show
 * through the mount. Everything it cannot do is refused here.
 */
export function s3FilesDataSyncRun(seed: Construct, where: string, props: S3FilesSeedProps, engine: SeedEngine, source: SeedSourceConfig, keyPrefix: string): DataSyncSeedRun {
  const options = engine.dataSyncOptions ?? {};
  for (const [option, why] of Object.entries(UNSUPPORTED_SEED_OPTIONS)) {
    const value = props[option as keyof S3FilesSeedProps];
    if (value === undefined || value === false) continue;
    throw new ValidationError(`${where}: ${propName(option)} does not apply to ${engine} on S3 Files: ${why}; leave it out or use SeedEngine.singleFunction(), got ${describe(value)}.`, seed);
  }
  for (const [option, why] of Object.entries(UNSUPPORTED_ENGINE_OPTIONS)) {
    const value = (options as Record<string, unknown>)[option];
    if (value === undefined || value === false || (Array.isArray(value) && value.length === 0)) continue;
    throw new ValidationError(`${where}: ${engine}'s ${propName(option)} does not apply on S3 Files: ${why}; leave it out, got ${describe(value)}.`, seed);
  }
  if (options.verifyMode === DataSyncVerifyMode.POINT_IN_TIME_CONSISTENT) {
    throw new ValidationError(`${where}: ${engine}'s ${propName('verifyMode')} POINT_IN_TIME_CONSISTENT is not supported in Enhanced mode, which DataSync needs between S3 locations; `
      + 'use ONLY_FILES_TRANSFERRED (the default) or NONE, got POINT_IN_TIME_CONSISTENT.', seed);
  }
  if (source.format !== SeedSourceFormat.S3_OBJECTS) {
    throw new ValidationError(`${where}: ${engine} copies S3 objects as they are and cannot extract archives or upload assets; use SeedSource.s3(bucket, prefix), or SeedEngine.singleFunction() for ${source.format} sources.`, seed);
  }
  const files: IS3FilesFileSystem = props.fileSystem;
  return new DataSyncSeedRun(seed, 'DataSync', {
    ...options,
    bucket: source.bucket,
    prefix: source.key,
    into: { kind: 's3', bucket: files.bucket, prefix: keyPrefix },
    trigger: source.fingerprint,
    target: `s3://${files.bucket.bucketName}/${keyPrefix}`,
    // The seed's resource checks what the run wrote: it must have finished.
    waitForCompletion: true,
  });
}

const describe = (value: unknown) => (typeof value === 'object' && !Array.isArray(value) ? `{ ${Object.keys(value as object).join(', ')} }` : JSON.stringify(value));
