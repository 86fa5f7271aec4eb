import * as http from 'http';
import * as https from 'https';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { PRICING_API_REGION, PRICING_SERVICE_CODE } from '../../lib/cost/contract/efs-price-lookup';

/**
 * The Price List Query API's GetProducts, called over AWS JSON 1.1 with a SigV4 signature (the
 * SDK's own signer; the package has no Pricing client), every page of it. The API is served from
 * us-east-1 for every Region's prices.
 */
export interface PricingEndpoint {
  /** https://api.pricing.us-east-1.amazonaws.com, or a stand-in in tests. */
  readonly url: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string; readonly sessionToken?: string };
}

export const PRICING_API_URL = `https://api.pricing.${PRICING_API_REGION}.amazonaws.com`;

/** A lookup reads a few products: more pages than this is an answer to refuse. */
const MAX_PAGES = 20;
const ATTEMPTS = 4;

/** Every PriceList entry (JSON strings) of AmazonEFS products matching `attributes` with TERM_MATCH. */
export async function getProducts(attributes: Record<string, string>, endpoint: PricingEndpoint, pauseMs = 1000): Promise<unknown[]> {
  const filters = Object.entries(attributes).map(([Field, Value]) => ({ Type: 'TERM_MATCH', Field, Value }));
  const entries: unknown[] = [];
  let nextToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await call(endpoint, { ServiceCode: PRICING_SERVICE_CODE, Filters: filters, FormatVersion: 'aws_v1', MaxResults: 100, NextToken: nextToken }, pauseMs);
    if (!Array.isArray(answer?.PriceList)) throw new Error('GetProducts answered without a PriceList');
    entries.push(...answer.PriceList);
    nextToken = typeof answer.NextToken === 'string' && answer.NextToken !== '' ? answer.NextToken : undefined;
    if (!nextToken) return entries;
  }
  throw new Error(`GetProducts gave more than ${MAX_PAGES} pages for ${JSON.stringify(attributes)}`);
}

/** One signed request; throttling and server errors are retried with a growing pause. */
async function call(endpoint: PricingEndpoint, request: object, pauseMs: number): Promise<any> {
  for (let attempt = 1; ; attempt++) {
    const { status, body } = await post(endpoint, JSON.stringify(request));
    const answer = parseBody(body);
    if (status === 200) return answer;
    const error = `GetProducts failed (HTTP ${status}): ${String(answer?.__type ?? '').split('#').pop()} ${answer?.message ?? answer?.Message ?? ''}`.trim();
    const retryable = status >= 500 || status === 429 || /Throttling/.test(String(answer?.__type));
    if (!retryable || attempt === ATTEMPTS) throw new Error(error);
    await new Promise((resolve) => setTimeout(resolve, pauseMs * 2 ** (attempt - 1)));
  }
}

async function post(endpoint: PricingEndpoint, body: string): Promise<{ status: number; body: string }> {
  const url = new URL(endpoint.url);
  const signer = new SignatureV4({ service: 'pricing', region: PRICING_API_REGION, credentials: endpoint.credentials, sha256: Sha256 });
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: '/',
    headers: {
      'host': url.host,
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': 'AWSPriceListService.GetProducts',
    },
    body,
  });
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request({ method: 'POST', hostname: url.hostname, port: url.port || undefined, path: '/', headers: signed.headers, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('GetProducts timed out after 30 s')));
    req.on('error', reject);
    req.end(body);
  });
}

function parseBody(body: string): any {
  try {
    return JSON.parse(body);
  } catch {
    return { message: body.slice(0, 200) };
  }
}
