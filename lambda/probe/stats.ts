/** Summary statistics the probe reports: latency percentiles within a round, mean and spread across rounds. */

export interface Percentiles {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** Nearest-rank percentiles of `values` (any order); all zero when there are none. */
export function percentiles(values: number[]): Percentiles {
  if (values.length === 0) return { p50: 0, p90: 0, p99: 0, max: 0, mean: 0 };
  const sorted = Float64Array.from(values).sort();
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  const sum = sorted.reduce((a, b) => a + b, 0);
  return { p50: rank(50), p90: rank(90), p99: rank(99), max: sorted[sorted.length - 1], mean: sum / sorted.length };
}

/** How one figure varied over the rounds. */
export interface Spread {
  readonly mean: number;
  readonly min: number;
  readonly max: number;
  /** Sample standard deviation; 0 for a single round. */
  readonly stdev: number;
}

export function spread(values: number[]): Spread {
  if (values.length === 0) return { mean: 0, min: 0, max: 0, stdev: 0 };
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.length > 1 ? values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1) : 0;
  return { mean, min: Math.min(...values), max: Math.max(...values), stdev: Math.sqrt(variance) };
}
