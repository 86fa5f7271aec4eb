import type { MetricDataQuery, MetricDataResult } from '@aws-sdk/client-cloudwatch';
import { boundedRequests } from '../../lambda/shared/aws-call-deadline';

/** Where to read, as the AWS CLI takes it: Region and profile, or the SDK's defaults (AWS_REGION, AWS_PROFILE, the config files). */
export interface CloudWatchTarget {
  readonly region?: string;
  readonly profile?: string;
  /** A CloudWatch endpoint of its own, e.g. a local test server. */
  readonly endpoint?: string;
}

export const MINUTE = 60;
export const HOUR = 3600;
export const DAY = 86_400;

/** One statistic of one of a file system's metrics: `extra` dimensions beside FileSystemId (StorageClass for EFS's StorageBytes). */
export interface SeriesQuery {
  readonly id: string;
  readonly namespace: string;
  readonly metricName: string;
  readonly period: number;
  readonly stat: 'Sum' | 'SampleCount' | 'Average';
  readonly extra?: Record<string, string>;
}

/**
 * A file system's series over [start, end), read with GetMetricData: each query's datapoints
 * placed in the window's slots of its period (sums and samples, or hourly values).
 */
export class MetricSeries {
  private constructor(private readonly points: Map<string, Array<{ time: number; value: number }>>, private readonly start: Date, private readonly seconds: number) {}

  /** Reads `queries` for `fileSystemId`; a failure ends in one line naming the file system. */
  public static async read(fileSystemId: string, queries: SeriesQuery[], start: Date, end: Date, target: CloudWatchTarget): Promise<MetricSeries> {
    // The lockfile pins SDK releases that run on Node 20; the SDK's warning is about later ones, which a user of this command cannot act on.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    // Loaded here: every other command would pay for the SDK.
    const { CloudWatchClient, paginateGetMetricData } = await import('@aws-sdk/client-cloudwatch');
    const client = new CloudWatchClient({ region: target.region, profile: target.profile, endpoint: target.endpoint, requestHandler: boundedRequests() });
    try {
      await client.config.region();
    } catch {
      client.destroy();
      throw new Error('no AWS Region: give --region, or set AWS_REGION or a region in the profile');
    }
    const points = new Map<string, Array<{ time: number; value: number }>>(queries.map((q) => [q.id, []]));
    try {
      const pages = paginateGetMetricData({ client }, {
        MetricDataQueries: queries.map((q) => toQuery(fileSystemId, q)), StartTime: start, EndTime: end, ScanBy: 'TimestampAscending',
      });
      for await (const page of pages) {
        for (const result of page.MetricDataResults ?? []) collect(result, points);
      }
    } catch (err) {
      throw new Error(`cannot read the metrics of ${fileSystemId} from CloudWatch: ${(err as Error).message}`);
    } finally {
      client.destroy();
    }
    return new MetricSeries(points, start, (end.getTime() - start.getTime()) / 1000);
  }

  /** The Sums (or SampleCounts) of series `id` by slot of `period` seconds from the start; 0 where there is no datapoint. */
  public sums(id: string, period: number): number[] {
    const out = Array<number>(Math.ceil(this.seconds / period)).fill(0);
    this.inSlots(id, period, (slot, value) => { out[slot] += value; });
    return out;
  }

  /** Series `id`'s value in each hour from the start; undefined for an hour without a datapoint. */
  public hourly(id: string): Array<number | undefined> {
    const out = Array<number | undefined>(Math.ceil(this.seconds / HOUR)).fill(undefined);
    this.inSlots(id, HOUR, (slot, value) => { out[slot] = value; });
    return out;
  }

  /** Series `id`'s earliest datapoint, if any. */
  public first(id: string): number | undefined {
    const series = this.points.get(id)!;
    return series.length > 0 ? series.reduce((first, p) => (p.time < first.time ? p : first)).value : undefined;
  }

  /** Whether series `id` has any datapoint. */
  public has(id: string): boolean {
    return this.points.get(id)!.length > 0;
  }

  private inSlots(id: string, period: number, each: (slot: number, value: number) => void): void {
    for (const p of this.points.get(id)!) {
      const slot = Math.floor((p.time - this.start.getTime()) / 1000 / period);
      if (slot >= 0 && slot < Math.ceil(this.seconds / period)) each(slot, p.value);
    }
  }
}

function toQuery(fileSystemId: string, q: SeriesQuery): MetricDataQuery {
  const extra = Object.entries(q.extra ?? {}).map(([Name, Value]) => ({ Name, Value }));
  return {
    Id: q.id,
    MetricStat: {
      Metric: { Namespace: q.namespace, MetricName: q.metricName, Dimensions: [{ Name: 'FileSystemId', Value: fileSystemId }, ...extra] },
      Period: q.period,
      Stat: q.stat,
    },
  };
}

function collect(result: MetricDataResult, into: Map<string, Array<{ time: number; value: number }>>): void {
  if (result.StatusCode === 'Forbidden' || result.StatusCode === 'InternalError') {
    throw new Error(`${result.Label ?? result.Id}: ${result.StatusCode} ${(result.Messages ?? []).map((m) => m.Value).join('; ')}`.trim());
  }
  const series = into.get(result.Id!)!;
  (result.Timestamps ?? []).forEach((t, i) => series.push({ time: t.getTime(), value: result.Values![i] }));
}
