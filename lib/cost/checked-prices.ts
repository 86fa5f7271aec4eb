import { propName } from '../core/contract/prop-name';

/** What every price list has beside its prices. */
interface Labelled {
  readonly label: string;
  readonly source?: string;
}

/**
 * `props` checked as a price list's constructor takes them: a label, a source if any, each of
 * `prices` a price in US dollars, 0 or more, and no other key (a misspelt price from JSON or
 * JavaScript would otherwise be ignored without a word). Throws an Error naming `kind` and the key.
 */
export function checkedPrices<P extends Labelled>(kind: string, props: P, prices: ReadonlyArray<Exclude<keyof P, keyof Labelled>>): P {
  if (typeof props.label !== 'string' || props.label.trim() === '') {
    throw new Error(`${kind}: label must name the prices (e.g. 'eu-west-1 list prices, 2026-11'); got ${JSON.stringify(props.label)}`);
  }
  if (props.source !== undefined && typeof props.source !== 'string') {
    throw new Error(`${kind}: source must be a string; got ${JSON.stringify(props.source)}`);
  }
  for (const name of prices) {
    const value = props[name];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new Error(`${kind}: ${propName(String(name))} must be a price in US dollars, 0 or more; got ${JSON.stringify(value)}`);
    }
  }
  const known = new Set<string>(['label', 'source', ...prices.map(String)]);
  const unknown = Object.keys(props).filter((key) => !known.has(key));
  if (unknown.length > 0) throw new Error(`${kind}: unknown price ${unknown.map((k) => `'${k}'`).join(', ')}; the prices are ${[...known].join(', ')}`);
  return props;
}
