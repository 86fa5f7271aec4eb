import type { Context } from 'aws-lambda';
import { callBefore } from '../shared/aws-call-deadline';
import { onEvent as lookUp, PriceLookupEvent } from './custom-resource';
import { getProducts } from './get-products';

/** Time the invocation keeps after the lookups: a Price List that does not answer in time leaves the prices unknown, and the deploy goes on. */
const ANSWER_MARGIN_MS = 10_000;

/**
 * The price lookup's entry point (Provider framework, onEvent only), with Lambda's own credentials.
 * AWS_ENDPOINT_URL_PRICING, the AWS SDKs' setting for the Pricing endpoint, points it elsewhere
 * (the tests' stand-in).
 */
export const onEvent = (event: PriceLookupEvent, context: Context) => {
  const deadline = Date.now() + context.getRemainingTimeInMillis() - ANSWER_MARGIN_MS;
  return lookUp(event, { getProducts: (attributes) => callBefore(deadline, 'GetProducts', (abortSignal) => getProducts(attributes, {}, abortSignal)) });
};
