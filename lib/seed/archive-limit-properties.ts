import { Size } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { SeedResourceProperties } from './contract/resource-properties';
import type { SeedArchiveLimits } from './file-system-seed';
import { SeedSourceFormat } from './seed-source';
import { propName } from '../core/contract/prop-name';
import { check } from '../core/validate';
import { ValidationError } from '../core/validation-error';

/** The archive limits as both seeds' handlers read them. */
type ArchiveLimitProperties = Pick<SeedResourceProperties, 'MaxMemberBytes' | 'MaxTotalBytes' | 'MaxEntries' | 'MaxCompressionRatio'>;

/** The archive limits as resource properties (only those given: the handler defaults the rest). */
export function archiveLimitProperties(scope: Construct, where: string, limits: SeedArchiveLimits | undefined, format: SeedSourceFormat): Partial<ArchiveLimitProperties> {
  if (!limits) return {};
  if (format === SeedSourceFormat.S3_OBJECTS) {
    throw new ValidationError(`${where}: ${propName('archiveLimits')} applies to archive sources (SeedSource.asset, SeedSource.archive), not to the S3 objects of SeedSource.s3.`, scope);
  }
  const bytes = (name: string, size?: Size) => {
    if (size === undefined) return undefined;
    const value = size.toBytes();
    check(Number.isSafeInteger(value) && value >= 1, where, `archiveLimits.${name}`, value, 'must be at least 1 byte', scope);
    return String(value);
  };
  const count = (name: string, value?: number) => {
    if (value === undefined) return undefined;
    check(Number.isSafeInteger(value) && value >= 1, where, `archiveLimits.${name}`, value, 'must be a positive integer', scope);
    return String(value);
  };
  const properties = {
    MaxMemberBytes: bytes('maxMemberSize', limits.maxMemberSize),
    MaxTotalBytes: bytes('maxTotalSize', limits.maxTotalSize),
    MaxEntries: count('maxEntries', limits.maxEntries),
    MaxCompressionRatio: count('maxCompressionRatio', limits.maxCompressionRatio),
  };
  return Object.fromEntries(Object.entries(properties).filter(([, value]) => value !== undefined));
}
