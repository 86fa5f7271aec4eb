import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { S3FilesPricing, S3FilesPricingProps } from '../../../lib';
import { LISTED_S3_FILES_PRICES } from '../../../lib/cost/s3-files-list-prices';

const PRICES: S3FilesPricingProps = { label: 'test prices', storagePerGbMonth: 0.3, readPerGb: 0.03, writePerGb: 0.06, s3StandardStoragePerGbMonth: 0.023 };

test('forRegion gives each Region shipped its prices, labelled with the day they were checked; nothing for another', () => {
  for (const [region, listed] of Object.entries(LISTED_S3_FILES_PRICES)) {
    expect({ ...S3FilesPricing.forRegion(region) }).toEqual(listed.prices);
    expect(listed.prices.label).toBe(`${region} S3 Files list prices, checked ${listed.checked}`);
  }
  expect(S3FilesPricing.forRegion('us-east-1')).toMatchObject({ storagePerGbMonth: 0.3, readPerGb: 0.03, writePerGb: 0.06, s3StandardStoragePerGbMonth: 0.023 });
  expect(S3FilesPricing.forRegion('eu-west-1')).toBeUndefined();
  expect(S3FilesPricing.forRegion('toString')).toBeUndefined();
});

test('docs/cost.md lists every Region shipped, with the date its prices were checked', () => {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'cost.md'), 'utf8');
  for (const [region, listed] of Object.entries(LISTED_S3_FILES_PRICES)) {
    const { storagePerGbMonth, readPerGb, writePerGb } = listed.prices;
    expect(doc).toContain(`| ${region} | ${listed.checked} | $${storagePerGbMonth.toFixed(2)} | $${readPerGb.toFixed(2)} | $${writePerGb.toFixed(2)} |`);
  }
});

test('custom takes a price list whole; a bad, missing or misspelt price fails naming it', () => {
  expect({ ...S3FilesPricing.custom(PRICES) }).toEqual(PRICES);
  expect(() => S3FilesPricing.custom({ ...PRICES, writePerGb: -1 })).toThrow('S3FilesPricing: writePerGb (write_per_gb) must be a price in US dollars, 0 or more; got -1');
  expect(() => S3FilesPricing.custom({ ...PRICES, readPerGb: undefined as unknown as number })).toThrow(/readPerGb .* got undefined/);
  expect(() => S3FilesPricing.custom({ ...PRICES, storagePerGBMonth: 0.3 } as S3FilesPricingProps))
    .toThrow("S3FilesPricing: unknown price 'storagePerGBMonth'; the prices are label, source, storagePerGbMonth, readPerGb, writePerGb, s3StandardStoragePerGbMonth");
  expect(() => S3FilesPricing.custom({ ...PRICES, label: '' })).toThrow(/S3FilesPricing: label must name the prices/);
});

test('the prices and the metering load without aws-cdk-lib, so the CLI can use them', () => {
  const dist = path.join(__dirname, '..', '..', '..', 'dist', 'lib', 'cost');
  const loaded = execFileSync(process.execPath, ['-e', `
    require(${JSON.stringify(path.join(dist, 's3-files-pricing.js'))}).S3FilesPricing.forRegion('us-east-1');
    require(${JSON.stringify(path.join(dist, 's3-files-metering.js'))});
    console.log(Object.keys(require.cache).filter((f) => f.includes('node_modules')).length);
  `], { encoding: 'utf8' });
  expect(loaded.trim()).toBe('0');
});
