import { onEvent as lookUp, PriceLookupEvent } from './custom-resource';
import { getProducts } from './get-products';

/**
 * The price lookup's entry point (Provider framework, onEvent only), with Lambda's own credentials.
 * AWS_ENDPOINT_URL_PRICING, the AWS SDKs' setting for the Pricing endpoint, points it elsewhere
 * (the tests' stand-in).
 */
export const onEvent = (event: PriceLookupEvent) => lookUp(event, { getProducts: (attributes) => getProducts(attributes) });
