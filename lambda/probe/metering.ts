import { EFS_METERING, IoBytes } from '../../lib/cost/efs-cost';

/**
 * What EFS meters for the probe's operations. The probe sees system calls, not NFS requests, so
 * each phase says what one of its operations sends (its `NfsRequests`), and the bytes the probe
 * counted go in requests of at most 1 MiB. Each request is then metered by the EFS User Guide's
 * rules: Elastic bills a data request as 32 KiB at least and a metadata request as 4 KiB at least,
 * then by the KiB ("Metering Elastic throughput"); throughput limits and burst credits
 * (MeteredIOBytes) count every request as its size, 4 KiB at least, and data reads at a third
 * ("Amazon EFS performance specifications"). An estimate: a cached attribute costs no request, a
 * long directory listing more than one.
 */

/** The NFS requests one operation of a phase sends (NFSv4.1 from Linux). */
export interface NfsRequests {
  /** Which way the bytes the probe counts for the operation go. */
  readonly data: 'read' | 'write' | 'none';
  /** Requests that read metadata: LOOKUP, GETATTR, OPEN of an existing file, CLOSE, READDIR. */
  readonly metadataReads: number;
  /** Requests that change it: OPEN that creates, SETATTR, RENAME, REMOVE, byte-range LOCK/LOCKU. */
  readonly metadataWrites: number;
  /** Data requests whose few bytes the probe does not count (the locking scenario's counter file). */
  readonly smallDataReads?: number;
  readonly smallDataWrites?: number;
}

/** Billed bytes (by kind) and the bytes counted against throughput and burst credits. */
export interface MeteredIo extends IoBytes {
  readonly meteredIOBytes: number;
}

export const NOTHING_METERED: MeteredIo = { dataReadBytes: 0, dataWriteBytes: 0, metadataReadBytes: 0, metadataWriteBytes: 0, meteredIOBytes: 0 };

export function addMetered(a: MeteredIo, b: MeteredIo): MeteredIo {
  return {
    dataReadBytes: a.dataReadBytes + b.dataReadBytes,
    dataWriteBytes: a.dataWriteBytes + b.dataWriteBytes,
    metadataReadBytes: a.metadataReadBytes + b.metadataReadBytes,
    metadataWriteBytes: a.metadataWriteBytes + b.metadataWriteBytes,
    meteredIOBytes: a.meteredIOBytes + b.meteredIOBytes,
  };
}

export function scaleMetered(m: MeteredIo, factor: number): MeteredIo {
  return {
    dataReadBytes: m.dataReadBytes * factor,
    dataWriteBytes: m.dataWriteBytes * factor,
    metadataReadBytes: m.metadataReadBytes * factor,
    metadataWriteBytes: m.metadataWriteBytes * factor,
    meteredIOBytes: m.meteredIOBytes * factor,
  };
}

/** What EFS meters for one operation that moved `bytes` (as the probe counts them). Arithmetic only: it runs once per timed operation. */
export function meterOperation(requests: NfsRequests, bytes: number): MeteredIo {
  const { dataRequestMinimumBytes, metadataRequestMinimumBytes, throughputRequestMinimumBytes, maxRequestBytes } = EFS_METERING;
  // The counted bytes go in full requests, then the rest.
  const full = requests.data === 'none' ? 0 : Math.floor(bytes / maxRequestBytes);
  const rest = requests.data === 'none' ? 0 : bytes % maxRequestBytes;
  const sumOver = (f: (size: number) => number) => full * f(maxRequestBytes) + (rest > 0 ? f(rest) : 0);
  const countedBilled = sumOver(billedData);
  const smallReads = requests.smallDataReads ?? 0;
  const smallWrites = requests.smallDataWrites ?? 0;
  const reads = requests.data === 'read';
  const writes = requests.data === 'write';
  const metadataRequests = requests.metadataReads + requests.metadataWrites;
  return {
    dataReadBytes: (reads ? countedBilled : 0) + smallReads * dataRequestMinimumBytes,
    dataWriteBytes: (writes ? countedBilled : 0) + smallWrites * dataRequestMinimumBytes,
    metadataReadBytes: requests.metadataReads * metadataRequestMinimumBytes,
    metadataWriteBytes: requests.metadataWrites * metadataRequestMinimumBytes,
    meteredIOBytes: (reads ? sumOver(readThroughput) : 0) + (writes ? sumOver(writeThroughput) : 0)
      + (smallReads + smallWrites + metadataRequests) * throughputRequestMinimumBytes,
  };
}

/** A data request as Elastic bills it: 32 KiB at least, else its size rounded up to the KiB. */
function billedData(size: number): number {
  const increment = EFS_METERING.meteringIncrementBytes;
  return Math.max(EFS_METERING.dataRequestMinimumBytes, Math.ceil(size / increment) * increment);
}

/** Throughput limits and burst credits count a request as its size (reads a third of it), 4 KiB at least. */
function writeThroughput(size: number): number {
  return Math.max(EFS_METERING.throughputRequestMinimumBytes, size);
}

function readThroughput(size: number): number {
  return Math.max(EFS_METERING.throughputRequestMinimumBytes, size / EFS_METERING.readDiscount);
}
