import { metricMathNumber, PriceFilter } from '../../lib/cost/contract/efs-price-lookup';

/**
 * Reads one price out of GetProducts' PriceList: each entry is a JSON string holding a product
 * (`product.attributes.usagetype`) and its terms (`terms.OnDemand.<term>.priceDimensions.<dim>`,
 * with `unit`, `beginRange` and `pricePerUnit.USD`, and the term's `effectiveDate`), as the AWS
 * Price List documents them. Everything in it is input: a malformed entry is skipped.
 */
export interface FoundPrice {
  /** US dollars per unit, as a decimal without exponent ("0.33"). */
  readonly usd: string;
  /** The offer term's effective date, YYYY-MM-DD. */
  readonly effectiveDate?: string;
}

/** The price `filter` names, or why none was taken (no product matched, or matches disagree). */
export function pickPrice(priceList: unknown[], filter: PriceFilter): FoundPrice | { notFound: string } {
  const usageType = new RegExp(`^(?:[A-Z0-9]+-)?${filter.usageType.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  const found: FoundPrice[] = [];
  for (const entry of priceList) {
    const item = parse(entry);
    if (!usageType.test(String(item?.product?.attributes?.usagetype ?? ''))) continue;
    for (const term of Object.values<any>(objectOr(item?.terms?.OnDemand))) {
      const dimensions = Object.values<any>(objectOr(term?.priceDimensions)).filter((d) => d?.unit === filter.unit);
      // The first tier is what the first unit costs (EFS prices are flat: one tier from 0).
      const first = dimensions.sort((a, b) => Number(a?.beginRange ?? 0) - Number(b?.beginRange ?? 0))[0];
      const usd = Number(first?.pricePerUnit?.USD);
      if (typeof first?.pricePerUnit?.USD !== 'string' || !Number.isFinite(usd) || usd < 0) continue;
      found.push({ usd: metricMathNumber(usd), effectiveDate: day(term?.effectiveDate) });
    }
  }
  const prices = [...new Set(found.map((f) => f.usd))];
  if (prices.length === 0) return { notFound: `no ${filter.usageType} product priced in ${filter.unit}` };
  if (prices.length > 1) return { notFound: `${filter.usageType} has ${prices.length} different prices (${prices.join(', ')})` };
  const dates = found.map((f) => f.effectiveDate).filter((d): d is string => d !== undefined).sort();
  return { usd: prices[0], effectiveDate: dates[dates.length - 1] };
}

function parse(entry: unknown): any {
  if (typeof entry !== 'string') return undefined;
  try {
    return JSON.parse(entry);
  } catch {
    return undefined;
  }
}

const objectOr = (x: unknown): Record<string, unknown> => (x !== null && typeof x === 'object' ? x as Record<string, unknown> : {});


function day(value: unknown): string | undefined {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : undefined;
}
