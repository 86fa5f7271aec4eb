import type { EfsPricingProps, S3FilesPricingProps } from '../../lib';

/**
 * Round prices of the tests' own, so hand calculations stay simple: $73 a month is $0.10 an hour
 * and $2.40 a day over the 730 hours a month has.
 */
export const TEST_PRICES: EfsPricingProps = {
  label: 'test prices',
  elasticReadPerGb: 1,
  elasticWritePerGb: 2,
  provisionedPerMibpsMonth: 73,
  standardStoragePerGbMonth: 73,
  iaStoragePerGbMonth: 7.3,
  iaStorageWithBurstingOrProvisionedPerGbMonth: 14.6,
  archiveStoragePerGbMonth: 3.65,
  oneZoneStoragePerGbMonth: 36.5,
  oneZoneIaStoragePerGbMonth: 3.65,
  iaReadPerGb: 0.5,
  iaTieringPerGb: 0.25,
  archiveReadPerGb: 1,
  archiveTieringPerGb: 0.5,
};

/** S3 Files prices of the tests' own, as round: $73 a GB-month is $2.40 a GB-day, $7.30 is $0.24. */
export const TEST_S3_FILES_PRICES: S3FilesPricingProps = {
  label: 'test S3 Files prices',
  storagePerGbMonth: 73,
  readPerGb: 1,
  writePerGb: 2,
  s3StandardStoragePerGbMonth: 7.3,
};
