import type { IoBytes } from '../../lib/cost/efs-cost';
import type { IoOperations } from '../../lib/cost/least-metered';
import type { DayIo } from './usage';

/** A day's I/O as billed by kind, with its operations. */
export interface PricedDay {
  readonly io: IoBytes;
  readonly operations: IoOperations;
}

/** Whether the file system reports metadata reads and writes apart (else only MetadataIOBytes). */
export function metadataSplitReported(days: DayIo[]): boolean {
  const sum = (f: (d: DayIo) => number) => days.reduce((s, d) => s + f(d), 0);
  return sum((d) => d.metadataReadBytes + d.metadataWriteBytes) > 0 || sum((d) => d.metadataBytes) === 0;
}

/** A day's I/O by kind: metadata priced as writes (the dearer) when it is not split. */
export function pricedDay(day: DayIo, split: boolean): PricedDay {
  const { dataReadBytes, dataWriteBytes, operations: ops } = day;
  return split
    ? {
      io: { dataReadBytes, dataWriteBytes, metadataReadBytes: day.metadataReadBytes, metadataWriteBytes: day.metadataWriteBytes },
      operations: { dataReads: ops.dataReads, dataWrites: ops.dataWrites, metadataReads: ops.metadataReads, metadataWrites: ops.metadataWrites },
    }
    : {
      io: { dataReadBytes, dataWriteBytes, metadataReadBytes: 0, metadataWriteBytes: day.metadataBytes },
      operations: { dataReads: ops.dataReads, dataWrites: ops.dataWrites, metadataReads: 0, metadataWrites: ops.metadata },
    };
}

export function sumIo(days: IoBytes[]): IoBytes {
  const sum = (f: (d: IoBytes) => number) => days.reduce((s, d) => s + f(d), 0);
  return {
    dataReadBytes: sum((d) => d.dataReadBytes),
    dataWriteBytes: sum((d) => d.dataWriteBytes),
    metadataReadBytes: sum((d) => d.metadataReadBytes),
    metadataWriteBytes: sum((d) => d.metadataWriteBytes),
  };
}

/** The mean of the values reported (an hour without a datapoint is undefined); undefined when none was. */
export function meanOfReported(values: Array<number | undefined>): number | undefined {
  const reported = values.filter((v): v is number => v !== undefined);
  return reported.length === 0 ? undefined : reported.reduce((a, b) => a + b, 0) / reported.length;
}
