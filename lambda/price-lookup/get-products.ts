import { GetProductsCommand, PricingClient } from '@aws-sdk/client-pricing';
import { PRICING_API_REGION, PRICING_SERVICE_CODE } from '../../lib/cost/contract/efs-price-lookup';
import { boundedRequests } from '../shared/aws-call-deadline';

/**
 * The Price List Query API's GetProducts, every page of it. The API is served from us-east-1 for
 * every Region's prices. The SDK retries throttling and server errors (4 attempts in all).
 */
export interface PricingEndpoint {
  /** Instead of https://api.pricing.us-east-1.amazonaws.com, e.g. a stand-in in tests. */
  readonly url?: string;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string; readonly sessionToken?: string };
}

/** A lookup reads a few products: more pages than this is an answer to refuse. */
const MAX_PAGES = 20;

const clients = new Map<string, PricingClient>();

function clientFor(endpoint: PricingEndpoint): PricingClient {
  const key = endpoint.url ?? '';
  if (!clients.has(key)) {
    clients.set(key, new PricingClient({
      region: PRICING_API_REGION, endpoint: endpoint.url, credentials: endpoint.credentials, maxAttempts: 4, requestHandler: boundedRequests(30_000),
    }));
  }
  return clients.get(key)!;
}

/** Every PriceList entry (JSON strings) of AmazonEFS products matching `attributes` with TERM_MATCH. */
export async function getProducts(attributes: Record<string, string>, endpoint: PricingEndpoint = {}, abortSignal?: AbortSignal): Promise<unknown[]> {
  const client = clientFor(endpoint);
  const Filters = Object.entries(attributes).map(([Field, Value]) => ({ Type: 'TERM_MATCH' as const, Field, Value }));
  const entries: unknown[] = [];
  let NextToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await client.send(new GetProductsCommand({ ServiceCode: PRICING_SERVICE_CODE, Filters, FormatVersion: 'aws_v1', MaxResults: 100, NextToken }), { abortSignal })
      .catch((err: Error) => { throw new Error(`GetProducts failed: ${err.name}: ${err.message}`); });
    if (!Array.isArray(answer.PriceList)) throw new Error('GetProducts answered without a PriceList');
    // The SDK wraps each entry (a JSON string) in a LazyJsonString.
    entries.push(...answer.PriceList.map(String));
    NextToken = answer.NextToken || undefined;
    if (!NextToken) return entries;
  }
  throw new Error(`GetProducts gave more than ${MAX_PAGES} pages for ${JSON.stringify(attributes)}`);
}
