import type { MetricDataQuery, MetricDataResult } from '@aws-sdk/client-cloudwatch';
import { boundedRequests } from '../../lambda/shared/aws-call-deadline';
import type { EfsUsage, StoredHour } from './usage';

/** Where to read, as the AWS CLI takes it: Region and profile, or the SDK's defaults (AWS_REGION, AWS_PROFILE, the config files). */
export interface CloudWatchTarget {
  readonly region?: string;
  readonly profile?: string;
  /** A CloudWatch endpoint of its own, e.g. a local test server. */
  readonly endpoint?: string;
}

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86_400;

/**
 * Reads a file system's AWS/EFS metrics for [start, end) with GetMetricData: MeteredIOBytes per
 * minute (what throughput limits and credits count), the Data/Metadata I/O Sums per day (what Elastic
 * bills), StorageBytes per hour by class, and the first BurstCreditBalance.
 */
export async function readUsage(fileSystemId: string, start: Date, end: Date, target: CloudWatchTarget): Promise<EfsUsage> {
  // The lockfile pins SDK releases that run on Node 20; the SDK's warning is about later ones, which a user of this command cannot act on.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // Loaded here: every other command would pay for the SDK.
  const { CloudWatchClient, paginateGetMetricData } = await import('@aws-sdk/client-cloudwatch');
  const client = new CloudWatchClient({ region: target.region, profile: target.profile, endpoint: target.endpoint, requestHandler: boundedRequests() });
  try {
    await client.config.region();
  } catch {
    throw new Error('no AWS Region: give --region, or set AWS_REGION or a region in the profile');
  }
  const metric = (id: string, name: string, period: number, stat: string, storageClass?: string): MetricDataQuery => ({
    Id: id,
    MetricStat: {
      Metric: {
        Namespace: 'AWS/EFS',
        MetricName: name,
        Dimensions: [{ Name: 'FileSystemId', Value: fileSystemId }, ...(storageClass ? [{ Name: 'StorageClass', Value: storageClass }] : [])],
      },
      Period: period,
      Stat: stat,
    },
  });
  const queries = [
    metric('metered', 'MeteredIOBytes', MINUTE, 'Sum'),
    metric('dataRead', 'DataReadIOBytes', DAY, 'Sum'),
    metric('dataWrite', 'DataWriteIOBytes', DAY, 'Sum'),
    metric('metadataRead', 'MetadataReadIOBytes', DAY, 'Sum'),
    metric('metadataWrite', 'MetadataWriteIOBytes', DAY, 'Sum'),
    metric('metadata', 'MetadataIOBytes', DAY, 'Sum'),
    metric('storedTotal', 'StorageBytes', HOUR, 'Average', 'Total'),
    metric('storedStandard', 'StorageBytes', HOUR, 'Average', 'Standard'),
    metric('storedIa', 'StorageBytes', HOUR, 'Average', 'IA'),
    metric('storedArchive', 'StorageBytes', HOUR, 'Average', 'Archive'),
    metric('credits', 'BurstCreditBalance', HOUR, 'Average'),
  ];
  const points = new Map<string, Array<{ time: number; value: number }>>(queries.map((q) => [q.Id!, []]));
  try {
    const pages = paginateGetMetricData({ client }, { MetricDataQueries: queries, StartTime: start, EndTime: end, ScanBy: 'TimestampAscending' });
    for await (const page of pages) {
      for (const result of page.MetricDataResults ?? []) collect(result, points);
    }
  } catch (err) {
    throw new Error(`cannot read the metrics of ${fileSystemId} from CloudWatch: ${(err as Error).message}`);
  } finally {
    client.destroy();
  }

  const seconds = (end.getTime() - start.getTime()) / 1000;
  const inSlots = (id: string, period: number, each: (slot: number, value: number) => void) => {
    for (const p of points.get(id)!) {
      const slot = Math.floor((p.time - start.getTime()) / 1000 / period);
      if (slot >= 0 && slot < Math.ceil(seconds / period)) each(slot, p.value);
    }
  };
  const sums = (id: string, period: number): number[] => {
    const out = Array<number>(Math.ceil(seconds / period)).fill(0);
    inSlots(id, period, (slot, value) => { out[slot] += value; });
    return out;
  };
  const hourly = (id: string): Array<number | undefined> => {
    const out = Array<number | undefined>(Math.ceil(seconds / HOUR)).fill(undefined);
    inSlots(id, HOUR, (slot, value) => { out[slot] = value; });
    return out;
  };

  const [dataRead, dataWrite, metadataRead, metadataWrite, metadata] = ['dataRead', 'dataWrite', 'metadataRead', 'metadataWrite', 'metadata'].map((id) => sums(id, DAY));
  const [total, standard, ia, archive] = ['storedTotal', 'storedStandard', 'storedIa', 'storedArchive'].map(hourly);
  const storageByHour = total.map((_, h): StoredHour | undefined => ([total, standard, ia, archive].every((s) => s[h] === undefined)
    ? undefined
    : { total: total[h] ?? 0, standard: standard[h] ?? 0, ia: ia[h] ?? 0, archive: archive[h] ?? 0 }));
  const credits = points.get('credits')!;
  return {
    fileSystemId,
    start,
    end,
    meteredBytesPerMinute: Float64Array.from(sums('metered', MINUTE)),
    days: dataRead.map((_, d) => ({
      dataReadBytes: dataRead[d], dataWriteBytes: dataWrite[d], metadataReadBytes: metadataRead[d], metadataWriteBytes: metadataWrite[d], metadataBytes: metadata[d],
    })),
    storageByHour,
    startCreditBytes: credits.length > 0 ? credits.reduce((first, p) => (p.time < first.time ? p : first)).value : undefined,
  };
}

function collect(result: MetricDataResult, into: Map<string, Array<{ time: number; value: number }>>): void {
  if (result.StatusCode === 'Forbidden' || result.StatusCode === 'InternalError') {
    throw new Error(`${result.Label ?? result.Id}: ${result.StatusCode} ${(result.Messages ?? []).map((m) => m.Value).join('; ')}`.trim());
  }
  const series = into.get(result.Id!)!;
  (result.Timestamps ?? []).forEach((t, i) => series.push({ time: t.getTime(), value: result.Values![i] }));
}
