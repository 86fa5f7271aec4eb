import * as http from 'http';
import { AddressInfo } from 'net';

/**
 * A stand-in for the AWS Price List Query API's GetProducts, on 127.0.0.1: the Pricing API cannot
 * be reached here (no AWS account, no internet), and no local emulator serves it. Shaped from the
 * API reference: AWS JSON 1.1 (POST /, `X-Amz-Target: AWSPriceListService.GetProducts`,
 * `Content-Type: application/x-amz-json-1.1`, a SigV4 `Authorization` for the `pricing` service in
 * us-east-1), a request `{ ServiceCode, Filters: [{ Type: 'TERM_MATCH', Field, Value }],
 * FormatVersion, MaxResults, NextToken }` and an answer `{ FormatVersion, PriceList: [<JSON
 * string>], NextToken }`, each PriceList entry a product with its attributes and OnDemand terms as
 * the price list files publish them. It filters its catalog by TERM_MATCH (an attribute, or the
 * product's productFamily), and pages by `pageSize`. What it does not check (the signature's
 * value) a real endpoint would; it checks that one is there, for the right service and Region.
 */
export interface CatalogProduct {
  readonly sku: string;
  readonly productFamily: string;
  readonly attributes: Record<string, string>;
  readonly unit: string;
  readonly usd: string;
  readonly effectiveDate: string;
}

export interface PricingStandIn {
  readonly url: string;
  /** Every request's body, in order. */
  readonly requests: Array<{ ServiceCode: string; Filters: Array<{ Type: string; Field: string; Value: string }>; NextToken?: string }>;
  close(): Promise<void>;
}

export interface StandInOptions {
  readonly pageSize?: number;
  /** Answers to give first, before the catalog's: e.g. a throttling error. */
  readonly failures?: Array<{ status: number; type: string; message: string }>;
}

export async function startPricingStandIn(catalog: CatalogProduct[], options: StandInOptions = {}): Promise<PricingStandIn> {
  const requests: PricingStandIn['requests'] = [];
  const failures = [...(options.failures ?? [])];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number, body: object) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify(body));
      };
      const auth = String(req.headers.authorization ?? '');
      if (req.method !== 'POST' || req.url !== '/' || req.headers['x-amz-target'] !== 'AWSPriceListService.GetProducts'
        || req.headers['content-type'] !== 'application/x-amz-json-1.1') {
        return answer(400, { __type: 'com.amazon.coral.service#UnknownOperationException', message: 'not a GetProducts request' });
      }
      if (!/^AWS4-HMAC-SHA256 Credential=[A-Z0-9]+\/\d{8}\/us-east-1\/pricing\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/.test(auth)) {
        return answer(403, { __type: 'com.amazon.coral.service#MissingAuthenticationTokenException', message: 'no SigV4 signature for pricing in us-east-1' });
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      requests.push(body);
      const failure = failures.shift();
      if (failure) return answer(failure.status, { __type: `com.amazonaws.pricing#${failure.type}`, message: failure.message });
      if (body.ServiceCode !== 'AmazonEFS' || !body.Filters.every((f: { Type: string }) => f.Type === 'TERM_MATCH')) {
        return answer(400, { __type: 'com.amazonaws.pricing#InvalidParameterException', message: 'unexpected ServiceCode or filter type' });
      }
      const matching = catalog.filter((p) => body.Filters.every((f: { Field: string; Value: string }) =>
        (f.Field === 'productFamily' ? p.productFamily : p.attributes[f.Field]) === f.Value));
      const start = body.NextToken ? Number(body.NextToken) : 0;
      const size = Math.min(options.pageSize ?? 100, body.MaxResults ?? 100);
      const page = matching.slice(start, start + size);
      answer(200, {
        FormatVersion: 'aws_v1',
        PriceList: page.map(priceListEntry),
        NextToken: start + size < matching.length ? String(start + size) : undefined,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A product as a PriceList entry: the price list file's product and OnDemand term, as a JSON string. */
function priceListEntry(p: CatalogProduct): string {
  const term = `${p.sku}.JRTCKXETXF`;
  return JSON.stringify({
    product: { productFamily: p.productFamily, attributes: { servicecode: 'AmazonEFS', servicename: 'Amazon Elastic File System', ...p.attributes }, sku: p.sku },
    serviceCode: 'AmazonEFS',
    terms: {
      OnDemand: {
        [term]: {
          priceDimensions: {
            [`${term}.6YS6EN2CT7`]: {
              unit: p.unit, endRange: 'Inf', description: `USD ${p.usd} per ${p.unit}`, appliesTo: [],
              rateCode: `${term}.6YS6EN2CT7`, beginRange: '0', pricePerUnit: { USD: p.usd },
            },
          },
          sku: p.sku, effectiveDate: p.effectiveDate, offerTermCode: 'JRTCKXETXF', termAttributes: {},
        },
      },
    },
    version: '20261101000000',
    publicationDate: '2026-11-01T00:00:00Z',
  });
}

/**
 * An AmazonEFS catalog for one Region as the Price List publishes it: the products the lookup
 * wants, and those beside them it must not take (the IA small-file overhead, the $0 included
 * throughput). `prefix` is the Region's usage-type prefix (EU for eu-west-1). The figures are test
 * values, not list prices.
 */
export function efsCatalog(regionCode: string, prefix: string, options: { oneZone?: boolean } = {}): CatalogProduct[] {
  const at = (sku: string, productFamily: string, attributes: Record<string, string>, unit: string, usd: string): CatalogProduct => ({
    sku, productFamily, unit, usd, effectiveDate: '2026-11-01T00:00:00Z',
    attributes: { regionCode, locationType: 'AWS Region', ...attributes, usagetype: prefix ? `${prefix}-${attributes.usagetype}` : attributes.usagetype },
  });
  const storage = 'Storage';
  const products = [
    at('STD', storage, { storageClass: 'General Purpose', usagetype: 'TimedStorage-ByteHrs', operation: '' }, 'GB-Mo', '0.3300000000'),
    at('IA', storage, { storageClass: 'Infrequent Access', usagetype: 'IATimedStorage-ByteHrs', operation: '' }, 'GB-Mo', '0.0275000000'),
    at('IASMALL', storage, { storageClass: 'Infrequent Access', usagetype: 'IATimedStorage-SmallFiles', operation: '' }, 'GB-Mo', '0.0275000000'),
    at('IAREAD', storage, { storageClass: 'Infrequent Access', usagetype: 'IADataAccess-Bytes', accessType: 'Read', operation: 'Read' }, 'GB', '0.0110000000'),
    at('IAWRITE', storage, { storageClass: 'Infrequent Access', usagetype: 'IADataAccess-Bytes', accessType: 'Write', operation: 'Write' }, 'GB', '0.0120000000'),
    at('IAET', storage, { storageClass: 'Infrequent Access-ET', usagetype: 'IATimedStorage-ET-ByteHrs', operation: '' }, 'GB-Mo', '0.0176000000'),
    at('ARC', storage, { storageClass: 'Archive', usagetype: 'ArchiveTimedStorage-ByteHrs', operation: '' }, 'GB-Mo', '0.0088000000'),
    at('ARCREAD', storage, { storageClass: 'Archive', usagetype: 'ArchiveDataAccess-Bytes', accessType: 'Read', operation: 'Read' }, 'GB', '0.0330000000'),
    at('ARCWRITE', storage, { storageClass: 'Archive', usagetype: 'ArchiveDataAccess-Bytes', accessType: 'Write', operation: 'Write' }, 'GB', '0.0340000000'),
    at('ETREAD', 'Storage', { usagetype: 'ETDataAccess-Bytes', accessType: 'Read', operation: 'Read' }, 'GB', '0.0350000000'),
    at('ETWRITE', 'Storage', { usagetype: 'ETDataAccess-Bytes', accessType: 'Write', operation: 'Write' }, 'GB', '0.0700000000'),
    at('PTP', 'Provisioned Throughput', { throughputClass: 'Provisioned', usagetype: 'ProvisionedTP-MiBpsHrs' }, 'MiBps-Mo', '6.6000000000'),
    at('ITP', 'Provisioned Throughput', { throughputClass: 'Included', usagetype: 'IncludedTP-MiBpsHrs' }, 'MiBps-Mo', '0.0000000000'),
  ];
  if (options.oneZone !== false) {
    products.push(
      at('OZ', storage, { storageClass: 'One Zone-General Purpose', usagetype: 'TimedStorage-Z-ByteHrs', operation: '' }, 'GB-Mo', '0.1760000000'),
      at('OZIA', storage, { storageClass: 'One Zone-Infrequent Access', usagetype: 'IATimedStorage-Z-ByteHrs', operation: '' }, 'GB-Mo', '0.0146000000'),
    );
  }
  return products;
}

/** What the lookup should return for efsCatalog's prices. */
export const CATALOG_PRICES: Record<string, string> = {
  elasticReadPerGb: '0.035',
  elasticWritePerGb: '0.07',
  provisionedPerMibpsMonth: '6.6',
  standardStoragePerGbMonth: '0.33',
  iaStoragePerGbMonth: '0.0176',
  iaStorageWithBurstingOrProvisionedPerGbMonth: '0.0275',
  archiveStoragePerGbMonth: '0.0088',
  oneZoneStoragePerGbMonth: '0.176',
  oneZoneIaStoragePerGbMonth: '0.0146',
  iaReadPerGb: '0.011',
  iaTieringPerGb: '0.012',
  archiveReadPerGb: '0.033',
  archiveTieringPerGb: '0.034',
};
