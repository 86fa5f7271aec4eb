import {
  EFFECTIVE_DATE_ATTRIBUTE, MISSING_ATTRIBUTE, PRICE_FILTERS, PriceLookupProperties, UNKNOWN_PRICE,
} from '../../lib/cost/contract/efs-price-lookup';
import { pickPrice } from './pick-price';

/**
 * The EFS price lookup as a Provider-framework custom resource (onEvent only): it asks the AWS
 * Price List for each price of the stack's Region and returns them as attributes. A price the
 * Price List does not have for the Region (a Region without One Zone, say) does not fail the
 * deploy: its attribute is UNKNOWN_PRICE and `Missing` names it. Nor does a Price List that cannot
 * be reached: every price is then unknown, and `Missing` says why.
 *
 * | event | what the lookup does |
 * |---|---|
 * | Create | looks every field up |
 * | Update (CloudFormation sends one when the Region, the fields or the filters changed; also a rollback) | looks every field up again; a new Region is a new physical id, so CloudFormation then deletes the old one |
 * | Delete | nothing (the lookup owns nothing); properties are not read |
 */
export interface PriceLookupEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly ResourceProperties: PriceLookupProperties;
  readonly PhysicalResourceId?: string;
}

export interface PriceLookupDeps {
  /** GetProducts (every page) of AmazonEFS products matching these attributes (TERM_MATCH). */
  readonly getProducts: (attributes: Record<string, string>) => Promise<unknown[]>;
}

export interface PriceLookupResult {
  readonly PhysicalResourceId: string;
  readonly Data?: Record<string, string>;
}

export async function onEvent(event: PriceLookupEvent, deps: PriceLookupDeps): Promise<PriceLookupResult> {
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId ?? 'efs-prices' };
  const { region, fields } = checkProperties(event.ResourceProperties);
  return { PhysicalResourceId: `efs-prices:${region}`, Data: await lookUpPrices(region, fields, deps) };
}

/** Each field's price, `Missing` and `EffectiveDate`. */
async function lookUpPrices(region: string, fields: string[], deps: PriceLookupDeps): Promise<Record<string, string>> {
  const data: Record<string, string> = {};
  const missing: string[] = [];
  const dates: string[] = [];
  for (const field of fields) {
    const filter = PRICE_FILTERS[field];
    let outcome: ReturnType<typeof pickPrice>;
    try {
      outcome = pickPrice(await deps.getProducts({ regionCode: region, ...filter.attributes }), filter);
    } catch (e) {
      // The API itself failed (no route, no permission): no price is known, and the deploy goes on.
      const reason = (e as Error).message;
      console.log(JSON.stringify({ message: 'price lookup: the Price List could not be read', region, field, reason }));
      return {
        ...Object.fromEntries(fields.map((f) => [f, UNKNOWN_PRICE])),
        [MISSING_ATTRIBUTE]: `all (the AWS Price List could not be read: ${reason})`,
        [EFFECTIVE_DATE_ATTRIBUTE]: 'unknown',
      };
    }
    if ('notFound' in outcome) {
      console.log(JSON.stringify({ message: 'price lookup: price not found', region, field, reason: outcome.notFound }));
      data[field] = UNKNOWN_PRICE;
      missing.push(field);
    } else {
      data[field] = outcome.usd;
      if (outcome.effectiveDate) dates.push(outcome.effectiveDate);
    }
  }
  console.log(JSON.stringify({ message: 'price lookup: done', region, prices: data, missing }));
  return {
    ...data,
    [MISSING_ATTRIBUTE]: missing.length === 0 ? 'none' : missing.join(', '),
    [EFFECTIVE_DATE_ATTRIBUTE]: dates.sort()[dates.length - 1] ?? 'unknown',
  };
}

/** The properties checked at the trust boundary: a Region code and known fields. */
function checkProperties(props: PriceLookupProperties): { region: string; fields: string[] } {
  const region = props?.Region;
  if (typeof region !== 'string' || !/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/.test(region)) {
    throw new Error(`price lookup: Region must be a Region code such as eu-west-1, got ${JSON.stringify(region)}`);
  }
  const fields = typeof props.Fields === 'string' ? props.Fields.split(',').filter((f) => f !== '') : [];
  const unknown = fields.filter((f) => !Object.prototype.hasOwnProperty.call(PRICE_FILTERS, f));
  if (fields.length === 0 || unknown.length > 0) {
    throw new Error(`price lookup: Fields must list EfsPricing prices, got ${JSON.stringify(props.Fields)}`);
  }
  return { region, fields };
}
