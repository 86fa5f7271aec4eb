import * as net from 'net';
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { onEvent, PriceLookupEvent } from '../../../lambda/price-lookup/custom-resource';
import { getProducts } from '../../../lambda/price-lookup/get-products';
import { pickPrice } from '../../../lambda/price-lookup/pick-price';
import { FILTERS_VERSION, PRICE_FILTERS } from '../../../lib/cost/contract/efs-price-lookup';
import { TEST_PRICES } from '../../helpers/test-prices';
import { ProviderFramework } from '../../helpers/provider-framework';
import { CATALOG_PRICES, efsCatalog, PricingStandIn, startPricingStandIn } from '../../helpers/pricing-api-stand-in';

// The price lookup's handler, its signed GetProducts calls included, against a loopback stand-in
// for the AWS Price List Query API (test/helpers/pricing-api-stand-in.ts says why and how it is
// shaped): every filter finds its price among the products beside it, pages are followed, a price
// the Region lacks or an API that refuses does not fail the deploy.

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const FIELDS = Object.keys(PRICE_FILTERS).join(',');
let standIn: PricingStandIn | undefined;
afterEach(async () => { await standIn?.close(); standIn = undefined; });

const event = (RequestType: PriceLookupEvent['RequestType'], Region = 'eu-west-1', PhysicalResourceId?: string): PriceLookupEvent =>
  ({ RequestType, PhysicalResourceId, ResourceProperties: { Region, Fields: FIELDS, FiltersVersion: FILTERS_VERSION } });
const deps = (url: string) => ({ getProducts: (attributes: Record<string, string>) => getProducts(attributes, { url, credentials }) });

test('the filters cover every EfsPricing price', () => {
  expect(Object.keys(PRICE_FILTERS).sort()).toEqual(Object.keys(TEST_PRICES).filter((k) => k !== 'label').sort());
});

test('docs/cost.md gives every filter as the lookup uses it', () => {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'cost.md'), 'utf8');
  for (const [field, filter] of Object.entries(PRICE_FILTERS)) {
    const row = doc.split('\n').find((l) => l.startsWith(`| \`${field}\``));
    expect(row).toBeDefined();
    for (const [name, value] of Object.entries(filter.attributes)) expect(row).toContain(`\`${name}\` = \`${value}\``);
    expect(row).toContain(`| \`${filter.usageType}\``);
    expect(row).toMatch(new RegExp(`\\| ${filter.unit} \\|$`));
  }
});

test('looks up every price of the Region, each in its own product among those beside it, following every page', async () => {
  standIn = await startPricingStandIn(efsCatalog('eu-west-1', 'EU'), { pageSize: 1 });
  const result = await onEvent(event('Create'), deps(standIn.url));
  expect(result).toEqual({ PhysicalResourceId: 'efs-prices:eu-west-1', Data: { ...CATALOG_PRICES, Missing: 'none', EffectiveDate: '2026-11-01' } });
  // One query per price, each for the Region; with one product a page, the IA storage query pages through 4.
  const first = standIn.requests.filter((r) => !r.NextToken);
  expect(first).toHaveLength(13);
  for (const r of first) expect(r.Filters).toContainEqual({ Type: 'TERM_MATCH', Field: 'regionCode', Value: 'eu-west-1' });
  const ia = standIn.requests.filter((r) => JSON.stringify(r.Filters) === JSON.stringify([
    { Type: 'TERM_MATCH', Field: 'regionCode', Value: 'eu-west-1' }, { Type: 'TERM_MATCH', Field: 'storageClass', Value: 'Infrequent Access' }]));
  expect(ia.map((r) => r.NextToken ?? null)).toEqual([null, '1', '2', '3']);
});

test('us-east-1 usage types have no Region prefix, and are found all the same', async () => {
  standIn = await startPricingStandIn(efsCatalog('us-east-1', ''));
  const result = await onEvent(event('Create', 'us-east-1'), deps(standIn.url));
  expect(result.Data).toEqual({ ...CATALOG_PRICES, Missing: 'none', EffectiveDate: '2026-11-01' });
});

test('a price the Region does not have (no One Zone) is 0 and named in Missing, and the deploy goes on', async () => {
  standIn = await startPricingStandIn(efsCatalog('ap-southeast-5', 'APS8', { oneZone: false }));
  const result = await onEvent(event('Create', 'ap-southeast-5'), deps(standIn.url));
  expect(result.Data).toEqual({
    ...CATALOG_PRICES, oneZoneStoragePerGbMonth: '0', oneZoneIaStoragePerGbMonth: '0',
    Missing: 'oneZoneStoragePerGbMonth, oneZoneIaStoragePerGbMonth', EffectiveDate: '2026-11-01',
  });
});

test('a Price List that refuses (no permission) leaves every price unknown and says why, without failing the deploy', async () => {
  standIn = await startPricingStandIn(efsCatalog('eu-west-1', 'EU'), { failures: [{ status: 400, type: 'AccessDeniedException', message: 'not authorized to perform pricing:GetProducts' }] });
  const result = await onEvent(event('Create'), deps(standIn.url));
  expect(result.Data).toEqual({
    ...Object.fromEntries(Object.keys(CATALOG_PRICES).map((f) => [f, '0'])),
    Missing: 'all (the AWS Price List could not be read: GetProducts failed: AccessDeniedException: not authorized to perform pricing:GetProducts)',
    EffectiveDate: 'unknown',
  });
});

test('throttling and server errors are retried', async () => {
  standIn = await startPricingStandIn(efsCatalog('eu-west-1', 'EU'), {
    failures: [{ status: 400, type: 'ThrottlingException', message: 'Rate exceeded' }, { status: 503, type: 'ServiceUnavailableException', message: 'try again' }],
  });
  const result = await onEvent(event('Update', 'eu-west-1', 'efs-prices:eu-west-1'), deps(standIn.url));
  expect(result.Data!.Missing).toBe('none');
  expect(standIn.requests).toHaveLength(15);
});

test('malformed entries are skipped, not trusted', async () => {
  const found = pickPrice([
    'not json', 42, JSON.stringify({ product: { attributes: { usagetype: 'EU-TimedStorage-ByteHrs' } }, terms: { OnDemand: { t: { priceDimensions: { d: { unit: 'GB-Mo' } } } } } }),
    JSON.stringify({ product: { attributes: { usagetype: 'EU-TimedStorage-ByteHrs' } }, terms: { OnDemand: { t: { priceDimensions: { d: { unit: 'GB-Mo', pricePerUnit: { USD: '-1' } } } } } } }),
    JSON.stringify({ product: { attributes: { usagetype: 'EU-TimedStorage-ByteHrs' } }, terms: { OnDemand: { t: { effectiveDate: '2026-10-01T00:00:00Z', priceDimensions: { d: { unit: 'GB-Mo', beginRange: '0', pricePerUnit: { USD: '0.3300000000' } } } } } } }),
  ], PRICE_FILTERS.standardStoragePerGbMonth);
  expect(found).toEqual({ usd: '0.33', effectiveDate: '2026-10-01' });
});

test('products that disagree on a price are not guessed between', async () => {
  const catalog = efsCatalog('eu-west-1', 'EU');
  catalog.push({ ...catalog[0], sku: 'STD2', usd: '0.3500000000' });
  standIn = await startPricingStandIn(catalog);
  const result = await onEvent(event('Create'), deps(standIn.url));
  expect(result.Data).toMatchObject({ standardStoragePerGbMonth: '0', Missing: 'standardStoragePerGbMonth' });
});

test('Delete does nothing and reads no property; a new Region is a new physical id', async () => {
  const none = { getProducts: async () => { throw new Error('Delete called the Price List'); } };
  await expect(onEvent({ RequestType: 'Delete', PhysicalResourceId: 'efs-prices:eu-west-1', ResourceProperties: {} as never }, none))
    .resolves.toEqual({ PhysicalResourceId: 'efs-prices:eu-west-1' });
  standIn = await startPricingStandIn(efsCatalog('eu-central-1', 'EUC1'));
  expect((await onEvent(event('Update', 'eu-central-1', 'efs-prices:eu-west-1'), deps(standIn.url))).PhysicalResourceId).toBe('efs-prices:eu-central-1');
});

test('fails when the properties are not a Region and EfsPricing fields', async () => {
  const none = { getProducts: async () => [] };
  await expect(onEvent({ ...event('Create'), ResourceProperties: { Region: 'eu-west-1"', Fields: FIELDS, FiltersVersion: '1' } }, none))
    .rejects.toThrow('price lookup: Region must be a Region code such as eu-west-1, got "eu-west-1\\""');
  await expect(onEvent({ ...event('Create'), ResourceProperties: { Region: 'eu-west-1', Fields: 'standardStoragePerGbMonth,toString', FiltersVersion: '1' } }, none))
    .rejects.toThrow('price lookup: Fields must list EfsPricing prices, got "standardStoragePerGbMonth,toString"');
});

describe('through aws-cdk\'s Provider framework, with events as it delivers them', () => {
  test('Create answers the prices; a new Region is a new physical id; the old one\'s Delete calls nothing', async () => {
    standIn = await startPricingStandIn([...efsCatalog('eu-west-1', 'EU'), ...efsCatalog('eu-central-1', 'EUC1')]);
    const calls = { n: 0 };
    const live = deps(standIn.url);
    const provider = new ProviderFramework({ onEvent: (e) => onEvent(e, { getProducts: (a) => { calls.n++; return live.getProducts(a); } }) }, 'Prices');
    const properties = (Region: string) => ({ ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:framework-onEvent', Region, Fields: FIELDS, FiltersVersion: FILTERS_VERSION });
    const created = await provider.deliver({ RequestType: 'Create', RequestId: '1', ResourceProperties: properties('eu-west-1') });
    expect(created).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'efs-prices:eu-west-1', Data: { ...CATALOG_PRICES, Missing: 'none' } });
    const moved = await provider.deliver({
      RequestType: 'Update', RequestId: '2', PhysicalResourceId: 'efs-prices:eu-west-1',
      ResourceProperties: properties('eu-central-1'), OldResourceProperties: properties('eu-west-1'),
    });
    expect(moved).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'efs-prices:eu-central-1' });
    const before = calls.n;
    const deleted = await provider.deliver({ RequestType: 'Delete', RequestId: '3', PhysicalResourceId: 'efs-prices:eu-west-1', ResourceProperties: properties('eu-west-1') });
    expect(deleted).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'efs-prices:eu-west-1' });
    expect(calls.n).toBe(before);
  });

  test('a Create with bad properties fails with the handler\'s message', async () => {
    const provider = new ProviderFramework({ onEvent: (e) => onEvent(e, { getProducts: async () => [] }) }, 'Prices');
    const failed = await provider.deliver({ RequestType: 'Create', RequestId: '1', ResourceProperties: { Region: 'Ireland', Fields: FIELDS, FiltersVersion: '1' } });
    expect(failed.Status).toBe('FAILED');
    expect(failed.Reason).toContain('price lookup: Region must be a Region code such as eu-west-1, got "Ireland"');
  });
});

test('the bundled handler (dist/handlers/price-lookup) signs its calls and finds the prices, its endpoint set as the AWS SDKs read it', async () => {
  standIn = await startPricingStandIn(efsCatalog('eu-west-1', 'EU'));
  const bundle = path.join(__dirname, '..', '..', '..', 'dist', 'handlers', 'price-lookup', 'index.js');
  const { stdout } = await promisify(execFile)(process.execPath, ['-e',
    `require(${JSON.stringify(bundle)}).onEvent(${JSON.stringify(event('Create'))}, { getRemainingTimeInMillis: () => 300000 }).then((r) => process.stdout.write(JSON.stringify(r)))`], {
    env: { PATH: process.env.PATH, AWS_ENDPOINT_URL_PRICING: standIn.url, AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' },
  });
  expect(JSON.parse(stdout.split('\n').pop()!)).toEqual({ PhysicalResourceId: 'efs-prices:eu-west-1', Data: { ...CATALOG_PRICES, Missing: 'none', EffectiveDate: '2026-11-01' } });
});

test('the bundled handler answers before its timeout when the Price List never answers: every price unknown, and the deploy goes on', async () => {
  // A loopback server that accepts and never answers, as a black-holed endpoint does.
  const sockets: net.Socket[] = [];
  const stalled = net.createServer((socket) => { sockets.push(socket); socket.on('error', () => undefined); });
  await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(stalled.address() as net.AddressInfo).port}`;
    const bundle = path.join(__dirname, '..', '..', '..', 'dist', 'handlers', 'price-lookup', 'index.js');
    // 12 s left, of which the handler keeps 10 s to answer.
    const { stdout } = await promisify(execFile)(process.execPath, ['-e',
      `require(${JSON.stringify(bundle)}).onEvent(${JSON.stringify(event('Create'))}, { getRemainingTimeInMillis: () => 12000 }).then((r) => process.stdout.write(JSON.stringify(r)))`], {
      env: { PATH: process.env.PATH, AWS_ENDPOINT_URL_PRICING: url, AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' }, timeout: 60_000,
    });
    const result = JSON.parse(stdout.split('\n').pop()!);
    expect(result.Data.Missing).toBe('all (the AWS Price List could not be read: GetProducts did not answer in time)');
    expect(result.Data.standardStoragePerGbMonth).toBe('0');
  } finally {
    sockets.forEach((s) => s.destroy());
    await new Promise((resolve) => stalled.close(resolve));
  }
});
