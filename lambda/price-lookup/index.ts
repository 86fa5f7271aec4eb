import { onEvent as lookUp, PriceLookupEvent } from './custom-resource';
import { getProducts, PRICING_API_URL } from './get-products';

/**
 * The price lookup's entry point (Provider framework, onEvent only), with Lambda's own credentials.
 * AWS_ENDPOINT_URL_PRICING, the AWS SDKs' setting for the Pricing endpoint, points it elsewhere
 * (the tests' stand-in).
 */
export const onEvent = (event: PriceLookupEvent) => lookUp(event, {
  getProducts: (attributes) => getProducts(attributes, {
    url: process.env.AWS_ENDPOINT_URL_PRICING || PRICING_API_URL,
    credentials: {
      accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? '',
      secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? '',
      sessionToken: process.env.AWS_SESSION_TOKEN,
    },
  }),
});
