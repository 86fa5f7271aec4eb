import { onEvent as lookUp, PriceLookupEvent } from './custom-resource';
import { getProducts, PRICING_API_URL } from './get-products';

/** The price lookup's entry point (Provider framework, onEvent only), with Lambda's own credentials. */
export const onEvent = (event: PriceLookupEvent) => lookUp(event, {
  getProducts: (attributes) => getProducts(attributes, {
    url: PRICING_API_URL,
    credentials: {
      accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? '',
      secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? '',
      sessionToken: process.env.AWS_SESSION_TOKEN,
    },
  }),
});
