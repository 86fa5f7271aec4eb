import type { EfsPricingProps } from '../../lib';

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
