import type { Series } from '../../test/helpers/metric-math';

/**
 * What a made-up day gives the renderer: each metric minute by minute, and the lines of the
 * expressions that read no metric of the body (a SEARCH, an anomaly band). For the dashboard mock
 * only: these are not measurements.
 */
export interface MadeUpDay {
  /** One value per minute of the metric (its namespace, name and dimensions) for `stat`; undefined for one the day does not have. */
  minuteValues(namespace: string, name: string, dimensions: Record<string, string>, stat: string): number[] | undefined;
  /** The band of `ANOMALY_DETECTION_BAND(m, stdDevs)`, `m` at `periodSeconds`; undefined where the day has none. */
  anomalyBand?(periodSeconds: number, stdDevs: number): { lower: Series; upper: Series } | undefined;
  /** The line a SEARCH expression finds, at `periodSeconds`; undefined where the day has none. */
  search?(expression: string, periodSeconds: number): Series | undefined;
}

export const MINUTES = 24 * 60;
export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;

/** 0 at 03:00, 1 at 15:00: the working day of a web application. */
export const daily = (minute: number) => (1 - Math.cos(((minute / 60 - 3) / 24) * 2 * Math.PI)) / 2;

/** `f` of each minute of the day. */
export const perMinute = <T = number>(f: (minute: number) => T): T[] => Array.from({ length: MINUTES }, (_, m) => f(m));

/** Aggregates minute values into periods of `periodSeconds`, as CloudWatch does for `stat`. */
export function aggregate(values: number[], stat: string, periodSeconds: number): number[] {
  const size = Math.max(1, Math.round(periodSeconds / 60));
  return Array.from({ length: Math.floor(values.length / size) }, (_, i) => {
    const bucket = values.slice(i * size, (i + 1) * size);
    const sum = bucket.reduce((a, b) => a + b, 0);
    if (stat === 'Sum' || stat === 'SampleCount') return sum;
    if (stat === 'Minimum') return Math.min(...bucket);
    if (stat === 'Maximum') return Math.max(...bucket);
    return sum / bucket.length;
  });
}
