/**
 * One made-up day of an Elastic file system serving a web application, minute by minute, as the
 * AWS/EFS metrics would report it: reads and writes that follow the working day, and from 19:00 to
 * 23:00 a runaway job re-reading the same files at 40 MiB/s. For the dashboard mock only: these
 * are not measurements.
 */
import { aggregate, daily, GiB, MadeUpDay, MiB, MINUTES, perMinute } from './day';

const runaway = (minute: number) => (minute >= 19 * 60 && minute < 23 * 60 ? 40 * MiB : 0);

/** Bytes per second of each kind of I/O in `minute`, without the runaway job when `expected`. */
function rates(minute: number, expected = false) {
  const load = 0.3 + 0.7 * daily(minute);
  return {
    dataRead: 3 * MiB * load + (expected ? 0 : runaway(minute)),
    dataWrite: 0.8 * MiB * load,
    metadataRead: 0.12 * MiB * load,
    metadataWrite: 0.04 * MiB * load,
  };
}

/** Bytes of one operation of each kind, for SampleCount. */
const OPERATION_BYTES = { dataRead: 64 * 1024, dataWrite: 32 * 1024, metadataRead: 4096, metadataWrite: 4096 };

const STORED: Record<string, number> = {
  Total: 202 * GiB, Standard: 40 * GiB, IA: 160 * GiB, IASizeOverhead: 2 * GiB, Archive: 0, ArchiveSizeOverhead: 0,
};

/** MeteredIOBytes in a minute: data reads count a third. */
function meteredBytes(minute: number, expected = false): number {
  const r = rates(minute, expected);
  return (r.dataRead / 3 + r.dataWrite + r.metadataRead + r.metadataWrite) * 60;
}

/** One value per minute of the AWS/EFS metric `name` (with its extra dimensions), for the statistic `stat`; undefined for a metric the day does not have. */
function minuteValues(namespace: string, name: string, dimensions: Record<string, string>, stat: string): number[] | undefined {
  if (namespace !== 'AWS/EFS') return undefined;
  const io = (kinds: Array<keyof typeof OPERATION_BYTES>) => perMinute((m) => {
    const r = rates(m);
    return kinds.reduce((sum, k) => sum + (stat === 'SampleCount' ? (r[k] * 60) / OPERATION_BYTES[k] : r[k] * 60), 0);
  });
  switch (name) {
    case 'DataReadIOBytes': return io(['dataRead']);
    case 'DataWriteIOBytes': return io(['dataWrite']);
    case 'MetadataReadIOBytes': return io(['metadataRead']);
    case 'MetadataWriteIOBytes': return io(['metadataWrite']);
    case 'MetadataIOBytes': return io(['metadataRead', 'metadataWrite']);
    case 'TotalIOBytes': return io(['dataRead', 'dataWrite', 'metadataRead', 'metadataWrite']);
    case 'MeteredIOBytes': return perMinute((m) => meteredBytes(m));
    // Elastic: the most it would write, here 1 GiB/s.
    case 'PermittedThroughput': return perMinute(() => GiB);
    case 'PercentIOLimit': return perMinute((m) => 2 + 6 * daily(m) + (runaway(m) ? 9 : 0));
    case 'ClientConnections': return perMinute((m) => 3 + (runaway(m) ? 1 : 0));
    case 'StorageBytes': return dimensions.StorageClass in STORED ? perMinute(() => STORED[dimensions.StorageClass]) : undefined;
    default: return undefined;
  }
}

/**
 * A stand-in for CloudWatch's anomaly detection band of MeteredIOBytes: the day without the
 * runaway job, plus and minus `stdDevs` times a tenth of it. CloudWatch learns its band from up to
 * two weeks of history; this only shows where such a band would lie.
 */
function expectedMeteredBand(periodSeconds: number, stdDevs: number): { lower: number[]; upper: number[] } {
  const expected = aggregate(Array.from({ length: MINUTES }, (_, m) => meteredBytes(m, true)), 'Sum', periodSeconds);
  return {
    lower: expected.map((v) => Math.max(0, v * (1 - 0.1 * stdDevs))),
    upper: expected.map((v) => v * (1 + 0.1 * stdDevs)),
  };
}

/** The day of an Elastic file system serving a web application, with a runaway job from 19:00 to 23:00. */
export const EFS_DAY: MadeUpDay = { minuteValues, anomalyBand: expectedMeteredBand };
