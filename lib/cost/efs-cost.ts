import type { EfsPricing, EfsPricingProps } from './efs-pricing';

/**
 * What EFS throughput modes and storage cost: pure formulas over an EfsPricing, shared by
 * `cdk-efs-kit advise`, the probe's result and the dashboard. Imports nothing from aws-cdk-lib.
 * Sizes are bytes, rates bytes per second, money US dollars.
 *
 * The rules below are EFS's, not prices, from the EFS User Guide: "Understanding billing and usage
 * reports" (GB = 2^30 bytes), "How Amazon EFS reports file system and object sizes" (metering) and
 * "Amazon EFS performance specifications" (Bursting baseline, burst rate, credits).
 */

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;
const TiB = 1024 * GiB;

/** AWS bills EFS in binary gigabytes. */
export const BYTES_PER_GB = GiB;
/** A month as the AWS Pricing Calculator counts it, 730 hours: monthly prices become rates with it. */
export const SECONDS_PER_MONTH = 730 * 3600;

export const EFS_METERING = {
  /** Elastic meters a data request as 32 KiB at least, then by the KiB. */
  dataRequestMinimumBytes: 32 * KiB,
  /** ... and a metadata request as 4 KiB at least. */
  metadataRequestMinimumBytes: 4 * KiB,
  meteringIncrementBytes: KiB,
  /** Throughput limits and burst credits (MeteredIOBytes) count a request as its size, 4 KiB at least ... */
  throughputRequestMinimumBytes: 4 * KiB,
  /** ... and data reads at a third. */
  readDiscount: 3,
  /** Clients read and write in requests of at most 1 MiB (rsize/wsize). */
  maxRequestBytes: MiB,
} as const;

const BURSTING = {
  baselineBytesPerSecondPerGib: 50 * KiB,
  minimumBytesPerSecond: MiB,
  burstBytesPerSecondPerTib: 100 * MiB,
  minimumBurstBytesPerSecond: 100 * MiB,
  /** 2.1 TiB, or 2.1 TiB per TiB stored above 1 TiB; a new file system starts full. */
  maxCreditBytesPerTib: 2.1 * TiB,
} as const;

/** Bytes of file system I/O as EFS meters them for Elastic billing: its CloudWatch metrics DataReadIOBytes, DataWriteIOBytes, MetadataReadIOBytes, MetadataWriteIOBytes. */
export interface IoBytes {
  readonly dataReadBytes: number;
  readonly dataWriteBytes: number;
  readonly metadataReadBytes: number;
  readonly metadataWriteBytes: number;
}

/**
 * A throughput mode: efs.ThroughputMode's values. Written as strings because lib/cost imports no
 * package (the probe's handler and the command line bundle it); an efs.ThroughputMode is one of
 * these, so the constructs pass theirs as it is, and a mode aws-cdk added would fail to compile there.
 */
export type ThroughputMode = 'elastic' | 'provisioned' | 'bursting';
export const THROUGHPUT_MODES: readonly ThroughputMode[] = ['elastic', 'provisioned', 'bursting'];

/** Stored bytes by storage class, as StorageBytes reports them (StorageClass Standard, IA, Archive). */
export interface StoredBytes {
  readonly standard: number;
  readonly ia: number;
  readonly archive: number;
}

/** Elastic data access: metadata reads are billed as reads and metadata writes as writes. */
export function elasticAccessUsd(io: IoBytes, pricing: EfsPricing): number {
  return ((io.dataReadBytes + io.metadataReadBytes) * pricing.elasticReadPerGb
    + (io.dataWriteBytes + io.metadataWriteBytes) * pricing.elasticWritePerGb) / BYTES_PER_GB;
}

/** The Bursting baseline: 50 KiB/s per GiB of Standard storage, at least 1 MiB/s. Credits accrue below it and are spent above it. */
export function burstingBaselineBytesPerSecond(standardBytes: number): number {
  return Math.max(BURSTING.minimumBytesPerSecond, (standardBytes / GiB) * BURSTING.baselineBytesPerSecondPerGib);
}

/** What Bursting drives while it has credits: 100 MiB/s per TiB of Standard storage, at least 100 MiB/s. */
export function burstBytesPerSecond(standardBytes: number): number {
  return Math.max(BURSTING.minimumBurstBytesPerSecond, (standardBytes / TiB) * BURSTING.burstBytesPerSecondPerTib);
}

export function maxBurstCreditBytes(standardBytes: number): number {
  return Math.max(BURSTING.maxCreditBytesPerTib, (standardBytes / TiB) * BURSTING.maxCreditBytesPerTib);
}

/**
 * The throughput Standard storage includes, which Provisioned does not bill: the Bursting baseline
 * by size, without its 1 MiB/s floor (AWS bills "the throughput provisioned in excess of your file
 * system's included baseline throughput from Standard storage").
 */
export function includedProvisionedMibps(standardBytes: number): number {
  return ((standardBytes / GiB) * BURSTING.baselineBytesPerSecondPerGib) / MiB;
}

/** Provisioned throughput of `provisionedMibps` held for `seconds`, on a file system with `standardBytes` of Standard storage. */
export function provisionedUsd(provisionedMibps: number, standardBytes: number, seconds: number, pricing: EfsPricing): number {
  const billedMibps = Math.max(0, provisionedMibps - includedProvisionedMibps(standardBytes));
  return billedMibps * pricing.provisionedPerMibpsMonth * (seconds / SECONDS_PER_MONTH);
}

/** Per GB-month of each storage class, for a throughput mode (Infrequent Access costs more beside Bursting or Provisioned). */
export function storagePricesPerGbMonth(pricing: EfsPricingProps, mode: ThroughputMode, oneZone: boolean): StoredBytes {
  if (oneZone) return { standard: pricing.oneZoneStoragePerGbMonth, ia: pricing.oneZoneIaStoragePerGbMonth, archive: pricing.archiveStoragePerGbMonth };
  return {
    standard: pricing.standardStoragePerGbMonth,
    ia: mode === 'elastic' ? pricing.iaStoragePerGbMonth : pricing.iaStorageWithBurstingOrProvisionedPerGbMonth,
    archive: pricing.archiveStoragePerGbMonth,
  };
}

/** GB-months of `bytes` stored (an average over the time) for `seconds`: what a price per GB-month multiplies. */
export function gbMonths(bytes: number, seconds: number): number {
  return (bytes / BYTES_PER_GB) * (seconds / SECONDS_PER_MONTH);
}

/** Storing `stored` bytes (an average over the time) for `seconds`. */
export function storageUsd(stored: StoredBytes, seconds: number, prices: StoredBytes): number {
  return gbMonths(stored.standard, seconds) * prices.standard + gbMonths(stored.ia, seconds) * prices.ia + gbMonths(stored.archive, seconds) * prices.archive;
}

/** How a throughput mode would have carried traffic, minute by minute: what it served at once, and what had to wait. */
export interface ThroughputReplay {
  /** Minutes that ended with traffic still waiting, more than the mode serves in a second. */
  readonly heldBackMinutes: number;
  /** The longest run of such minutes in a row. */
  readonly longestHeldBackMinutes: number;
}

export interface BurstingReplay extends ThroughputReplay {
  readonly startCreditBytes: number;
  readonly lowestCreditBytes: number;
  readonly endCreditBytes: number;
  /** Average baseline over the replay: traffic that averages more spends the credits for good. */
  readonly averageBaselineBytesPerSecond: number;
  /** The first minute (from the start of the replay) in which traffic wanted more than the credits left allowed; undefined if they never ran out. */
  readonly creditsRanOutAtMinute?: number;
}

/**
 * Replays Bursting over metered bytes per minute: each minute it serves what is waiting up to the
 * burst rate, as far as the credits allow (the baseline is always there); credits earn the
 * baseline and pay for what it serves, between 0 and the maximum for the size.
 * `standardBytesAt(minute)` is the Standard storage then; `startCreditBytes` defaults to a full balance.
 */
export function replayBursting(meteredBytesPerMinute: ArrayLike<number>, standardBytesAt: (minute: number) => number, startCreditBytes?: number): BurstingReplay {
  const start = startCreditBytes ?? maxBurstCreditBytes(standardBytesAt(0));
  let credits = start;
  let lowest = start;
  let ranOutAt: number | undefined;
  const held = heldBackCounter();
  let waiting = 0;
  let baselineBytes = 0;
  for (let minute = 0; minute < meteredBytesPerMinute.length; minute++) {
    const standard = standardBytesAt(minute);
    const baseline = burstingBaselineBytesPerSecond(standard) * 60;
    baselineBytes += baseline;
    const burst = burstBytesPerSecond(standard) * 60;
    const wanted = waiting + meteredBytesPerMinute[minute];
    const creditCapped = baseline + credits;
    const served = Math.min(wanted, burst, creditCapped);
    if (ranOutAt === undefined && wanted > served && creditCapped < burst) ranOutAt = minute;
    credits = Math.min(maxBurstCreditBytes(standard), credits + baseline - served);
    lowest = Math.min(lowest, credits);
    waiting = wanted - served;
    held.minute(waiting, Math.min(burst, creditCapped) / 60);
  }
  return {
    ...held.result(),
    startCreditBytes: start,
    lowestCreditBytes: lowest,
    endCreditBytes: credits,
    averageBaselineBytesPerSecond: meteredBytesPerMinute.length > 0 ? baselineBytes / (meteredBytesPerMinute.length * 60) : 0,
    creditsRanOutAtMinute: ranOutAt,
  };
}

/** Replays Provisioned throughput of `provisionedBytesPerSecond` over metered bytes per minute. */
export function replayProvisioned(meteredBytesPerMinute: ArrayLike<number>, provisionedBytesPerSecond: number): ThroughputReplay {
  const held = heldBackCounter();
  let waiting = 0;
  for (let minute = 0; minute < meteredBytesPerMinute.length; minute++) {
    waiting = Math.max(0, waiting + meteredBytesPerMinute[minute] - provisionedBytesPerSecond * 60);
    held.minute(waiting, provisionedBytesPerSecond);
  }
  return held.result();
}

/** Less than a second of the mode's throughput still waiting at a minute's end is a queue, not traffic held back. */
const NOTICEABLE_WAIT_SECONDS = 1;

function heldBackCounter() {
  let minutes = 0;
  let run = 0;
  let longest = 0;
  return {
    minute(waitingBytes: number, servingBytesPerSecond: number): void {
      run = waitingBytes > servingBytesPerSecond * NOTICEABLE_WAIT_SECONDS ? run + 1 : 0;
      if (run > 0) minutes++;
      longest = Math.max(longest, run);
    },
    result: (): ThroughputReplay => ({ heldBackMinutes: minutes, longestHeldBackMinutes: longest }),
  };
}
