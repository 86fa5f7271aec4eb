import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { EfsPricing, EfsPricingProps } from '../../../lib';
import { LISTED_REGION_PRICES } from '../../../lib/cost/efs-list-prices';
import { TEST_PRICES } from '../../helpers/test-prices';

// The price model: the cited defaults, custom prices, and bad prices refused with the field named.

test('US_EAST_1 holds the us-east-1 list prices docs/cost.md cites, with their date', () => {
  const p = EfsPricing.US_EAST_1;
  expect(p.label).toBe('us-east-1 list prices, Regional, checked 2026-11-24');
  expect(p.source).toContain('https://aws.amazon.com/efs/pricing/');
  // Elastic $0.03 read / $0.06 written per GB; Provisioned $6.00 per MiB/s-month; storage per GB-month.
  expect({ ...p }).toEqual({
    label: p.label, source: p.source,
    elasticReadPerGb: 0.03, elasticWritePerGb: 0.06, provisionedPerMibpsMonth: 6,
    standardStoragePerGbMonth: 0.3, iaStoragePerGbMonth: 0.016, iaStorageWithBurstingOrProvisionedPerGbMonth: 0.025,
    archiveStoragePerGbMonth: 0.008, oneZoneStoragePerGbMonth: 0.16, oneZoneIaStoragePerGbMonth: 0.0133,
    iaReadPerGb: 0.01, iaTieringPerGb: 0.01, archiveReadPerGb: 0.03, archiveTieringPerGb: 0.03,
  });
});

describe('the list prices shipped by Region', () => {
  const PRICE_FIELDS = Object.keys(TEST_PRICES).filter((k) => k !== 'label');
  const entries = Object.entries(LISTED_REGION_PRICES);

  test.each(entries)('%s has all 13 prices, a source and the date they were checked, in its label', (region, listed) => {
    expect(PRICE_FIELDS).toHaveLength(13);
    expect(listed.region).toBe(region);
    expect(listed.checked).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(listed.prices.source).toMatch(/^https:\/\//);
    expect(listed.prices.label).toBe(`${region} list prices, Regional, checked ${listed.checked}`);
    expect(Object.keys(listed.prices).filter((k) => !['label', 'source'].includes(k)).sort()).toEqual(PRICE_FIELDS.sort());
    // Whole, and valid as EfsPricing takes it.
    expect({ ...EfsPricing.forRegion(region) }).toEqual(listed.prices);
  });

  test('forRegion gives us-east-1 its list prices, and nothing for a Region without them', () => {
    expect({ ...EfsPricing.forRegion('us-east-1') }).toEqual({ ...EfsPricing.US_EAST_1 });
    expect(EfsPricing.forRegion('eu-west-1')).toBeUndefined();
    expect(EfsPricing.forRegion('toString')).toBeUndefined();
  });

  test('docs/cost.md lists every Region shipped, with the date its prices were checked', () => {
    const doc = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'cost.md'), 'utf8');
    for (const [region, listed] of entries) expect(doc).toContain(`| ${region} | ${listed.checked} |`);
  });
});

test('custom takes another price list whole', () => {
  const p = EfsPricing.custom({ ...TEST_PRICES, source: 'our contract' });
  expect({ ...p }).toEqual({ ...TEST_PRICES, source: 'our contract' });
});

test('fails when a price is negative, not a number or missing, naming it', () => {
  expect(() => EfsPricing.custom({ ...TEST_PRICES, elasticWritePerGb: -0.06 }))
    .toThrow('EfsPricing: elasticWritePerGb (elastic_write_per_gb) must be a price in US dollars, 0 or more; got -0.06');
  expect(() => EfsPricing.custom({ ...TEST_PRICES, iaTieringPerGb: '0.01' as unknown as number }))
    .toThrow('EfsPricing: iaTieringPerGb (ia_tiering_per_gb) must be a price in US dollars, 0 or more; got "0.01"');
  const { archiveReadPerGb: _, ...missing } = TEST_PRICES;
  expect(() => EfsPricing.custom(missing as EfsPricingProps)).toThrow('EfsPricing: archiveReadPerGb (archive_read_per_gb) must be a price in US dollars, 0 or more; got undefined');
  expect(() => EfsPricing.custom({ ...TEST_PRICES, provisionedPerMibpsMonth: NaN })).toThrow('provisionedPerMibpsMonth (provisioned_per_mibps_month) must be a price');
});

test('fails when a price is misspelt', () => {
  expect(() => EfsPricing.custom({ ...TEST_PRICES, elasticReadPerGB: 0.03 } as EfsPricingProps))
    .toThrow("EfsPricing: unknown price 'elasticReadPerGB'; the prices are label, source, elasticReadPerGb,");
});

test('fails without a label', () => {
  expect(() => EfsPricing.custom({ ...TEST_PRICES, label: ' ' })).toThrow("EfsPricing: label must name the prices (e.g. 'eu-west-1 list prices, 2026-11'); got \" \"");
});

test('the price model and the cost formulas load without aws-cdk-lib, so the CLI and the probe can use them', () => {
  const dist = path.join(__dirname, '..', '..', '..', 'dist', 'lib', 'cost');
  const loaded = execFileSync(process.execPath, ['-e', `
    require(${JSON.stringify(path.join(dist, 'efs-pricing.js'))}).EfsPricing.forRegion('us-east-1');
    require(${JSON.stringify(path.join(dist, 'efs-cost.js'))});
    console.log(Object.keys(require.cache).filter((f) => f.includes('node_modules')).length);
  `], { encoding: 'utf8' });
  expect(loaded.trim()).toBe('0');
});
