import type { EfsPricing } from '../../lib/cost/efs-pricing';
import {
  BurstingReplay, BYTES_PER_GB, EFS_METERING, elasticAccessUsd, includedProvisionedMibps, IoBytes, maxBurstCreditBytes, provisionedUsd, replayBursting, replayProvisioned,
  storagePricesPerGbMonth, storageUsd, THROUGHPUT_MODES, ThroughputMode, ThroughputReplay,
} from '../../lib/cost/efs-cost';
import { leastMeteredIo } from '../../lib/cost/least-metered';
import { percentiles } from '../../lambda/probe/stats';
import { MiB } from '../../lambda/shared/sizes';
import { usd } from '../report/money';
import { metadataSplitReported, pricedDay, sumIo } from './day-io';
import type { FileSystemKind } from './file-system-kind';
import { efsUsageOf } from './efs-from-s3-files';
import { S3FilesAdvice, S3FilesAssumptions, s3FilesAsReported, s3FilesForEfs } from './s3-files-estimate';
import type { EfsUsage, S3FilesUsage, StoredHour } from './usage';

export interface AdviceOptions {
  readonly pricing: EfsPricing;
  /** Price storage as One Zone. */
  readonly oneZone: boolean;
  /** For a file system with no IA data yet: the share of its data an IA lifecycle would move, in %. */
  readonly coldPercent: number;
  /** What the S3 Files column assumes. */
  readonly s3Files: S3FilesAssumptions;
}

/**
 * A mode that would have held traffic back longer than this, in a row, is ruled out: a quarter of
 * an hour is an outage to the application waiting on it, a minute or two a blip.
 */
const MAX_HELD_BACK_MINUTES = 15;
/** The smallest throughput a file system can provision. */
const MIN_PROVISIONED_MIBPS = 1;

/** What the same traffic and storage would have cost under one throughput mode. */
export interface ModeCost extends ThroughputReplay {
  readonly mode: ThroughputMode;
  /** Elastic: data access; Provisioned: the throughput; Bursting: nothing (it comes with Standard storage). */
  readonly throughputUsd: number;
  /** The storage as it was, at this mode's prices. */
  readonly storageUsd: number;
  readonly totalUsd: number;
  /** All of it in Standard (or One Zone) storage. */
  readonly storageWithoutLifecycleUsd: number;
  /** With an IA lifecycle: as it was when the file system has IA or Archive data, else with `coldPercent` of it in IA. */
  readonly storageWithLifecycleUsd: number;
  /** Moving that share into IA, once (0 when the lifecycle is already in use). */
  readonly lifecycleTieringUsd: number;
  /** Why this mode would not have carried the traffic; undefined when it would have. */
  readonly ruledOut?: string;
}

export interface ProvisionedCost extends ModeCost {
  /** The throughput the traffic needed: p99 of its 1-minute metered MiB/s, at least 1 MiB/s. */
  readonly provisionedMibps: number;
  /** What the Standard storage includes, unbilled. */
  readonly includedMibps: number;
}

export interface BurstingCost extends ModeCost {
  readonly startCreditBytes: number;
  /** Where the starting balance comes from. */
  readonly startCredits: 'BurstCreditBalance' | 'assumed full';
  readonly lowestCreditBytes: number;
  /** The first minute the credits could not cover (ISO time). */
  readonly creditsRanOutAt?: string;
}

export interface Advice {
  readonly fileSystemId: string;
  /**
   * What the file system is, and so whose metrics these are (for an S3 Files file system the EFS
   * modes are the same traffic on EFS); undefined when it was not given and neither namespace had any.
   */
  readonly kind?: FileSystemKind;
  readonly start: string;
  readonly end: string;
  readonly days: number;
  readonly pricing: { readonly label: string; readonly source?: string };
  readonly oneZone: boolean;
  /** False when CloudWatch had no datapoint for the file system in the window. */
  readonly dataFound: boolean;
  readonly traffic: IoBytes & {
    /** False when only MetadataIOBytes was reported: metadata is then priced as writes. */
    readonly metadataSplitReported: boolean;
    readonly meteredIOBytes: number;
    readonly p99MeteredMibps: number;
    readonly peakMeteredMibps: number;
    /** Minutes with I/O, of all the window's. */
    readonly activeMinutes: number;
    readonly minutes: number;
  };
  /** Average StorageBytes over the hours that reported it; undefined when none did. */
  readonly storage?: StoredHour;
  readonly elastic: ModeCost;
  readonly provisioned: ProvisionedCost;
  readonly bursting: BurstingCost;
  /** The same traffic and data on S3 Files (for an S3 Files file system: its own). */
  readonly s3Files: S3FilesAdvice;
  /** Data access or throughput per day (from `start`), by mode, and S3 Files' data access. */
  readonly perDay: Array<{ readonly start: string; readonly s3Files: number } & Record<ThroughputMode, number>>;
  /** The cheapest EFS mode that would have carried the traffic; undefined when there was no data to advise on. */
  readonly recommendation?: { readonly mode: ThroughputMode; readonly reason: string };
  /** S3 Files' total against the recommended mode's; undefined when there was no data. */
  readonly s3FilesComparison?: string;
  readonly notes: string[];
}

export const MODE_NAMES: Record<ThroughputMode, string> = { elastic: 'Elastic', provisioned: 'Provisioned', bursting: 'Bursting' };

/** EFS's Elastic meters each data request as 32 KiB at least and each metadata request as 4 KiB. */
const EFS_MINIMUMS = { data: EFS_METERING.dataRequestMinimumBytes, metadata: EFS_METERING.metadataRequestMinimumBytes };

/** An EFS file system's advice: what its traffic and storage would have cost under each throughput mode, and on S3 Files. */
export function adviseOnEfs(usage: EfsUsage, options: AdviceOptions): Advice {
  return advise(usage, options, 'efs', s3FilesForEfs(usage, options.s3Files));
}

/** An S3 Files file system's advice: what its traffic and data cost there, and would have cost on EFS under each throughput mode. */
export function adviseOnS3Files(usage: S3FilesUsage, options: AdviceOptions): Advice {
  return advise(efsUsageOf(usage, options.s3Files.hotPercent), options, 's3files', s3FilesAsReported(usage, options.s3Files));
}

/**
 * What the window's traffic and storage would have cost under each throughput mode, and which to
 * choose, beside `s3Files`, the same on S3 Files; `kind` says which the file system is.
 */
function advise(usage: EfsUsage, options: AdviceOptions, kind: FileSystemKind, s3Files: S3FilesAdvice): Advice {
  const { pricing } = options;
  const seconds = (usage.end.getTime() - usage.start.getTime()) / 1000;
  const minutes = usage.meteredBytesPerMinute;
  const split = metadataSplitReported(usage.days);
  const priced = usage.days.map((d) => pricedDay(d, split));
  const io = sumIo(priced.map((d) => d.io));
  /** Elastic's bill for days of I/O: each request at its minimum, as far as the operation counts show. */
  const elasticUsd = (days: typeof priced) => elasticAccessUsd(sumIo(days.map((d) => leastMeteredIo(d.io, d.operations, EFS_MINIMUMS))), pricing);
  const stored = averageStorage(usage.storageByHour);
  const standard = stored?.standard ?? 0;
  const standardAt = standardBytesAt(usage.storageByHour);
  const storage = (mode: ThroughputMode) => storageCosts(mode, stored, seconds, options);
  const perMinuteMibps = (bytes: number) => bytes / 60 / MiB;

  const elastic = withTotal({
    ...storage('elastic'), mode: 'elastic' as const, throughputUsd: elasticUsd(priced), heldBackMinutes: 0, longestHeldBackMinutes: 0,
  });

  const p99 = perMinuteMibps(percentiles(Array.from(minutes)).p99);
  const provisionedMibps = Math.max(MIN_PROVISIONED_MIBPS, p99);
  const provisionedReplay = replayProvisioned(minutes, provisionedMibps * MiB);
  const provisioned = withTotal({
    ...storage('provisioned'), ...provisionedReplay, mode: 'provisioned' as const,
    throughputUsd: provisionedUsd(provisionedMibps, standard, seconds, pricing),
    provisionedMibps,
    includedMibps: includedProvisionedMibps(standard),
    ruledOut: heldBackTooLong(provisionedReplay, `Provisioned at ${provisionedMibps.toFixed(2)} MiB/s`) ?? archiveNeedsElastic('Provisioned', stored),
  });

  const meteredIOBytes = minutes.reduce((a, b) => a + b, 0);
  const burstingReplay = replayBursting(minutes, standardAt, usage.startCreditBytes);
  const ranOutAt = burstingReplay.creditsRanOutAtMinute === undefined ? undefined : minuteTime(usage.start, burstingReplay.creditsRanOutAtMinute);
  const bursting = withTotal({
    ...storage('bursting'), ...burstingReplay, mode: 'bursting' as const, throughputUsd: 0,
    startCredits: usage.startCreditBytes === undefined ? 'assumed full' as const : 'BurstCreditBalance' as const,
    creditsRanOutAt: ranOutAt,
    ruledOut: (ranOutAt && `Bursting's credits would have run out at ${ranOutAt}, holding traffic back up to ${burstingReplay.longestHeldBackMinutes} minutes in a row`)
      || heldBackTooLong(burstingReplay, 'Bursting, above its burst rate,')
      || creditsFallForGood(burstingReplay, meteredIOBytes / seconds) || archiveNeedsElastic('Bursting', stored),
  });

  const dataFound = meteredIOBytes > 0 || stored !== undefined || priced.some((d) => [...Object.values(d.io), ...Object.values(d.operations)].some((v) => v > 0));
  const days = seconds / 86_400;
  const recommendation = dataFound ? recommend({ elastic, provisioned, bursting }, meteredIOBytes, days) : undefined;
  return {
    fileSystemId: usage.fileSystemId,
    kind,
    start: usage.start.toISOString(),
    end: usage.end.toISOString(),
    days,
    pricing: { label: pricing.label, source: pricing.source },
    oneZone: options.oneZone,
    dataFound,
    traffic: {
      ...io,
      metadataSplitReported: split,
      meteredIOBytes,
      p99MeteredMibps: p99,
      peakMeteredMibps: perMinuteMibps(minutes.reduce((a, b) => Math.max(a, b), 0)),
      activeMinutes: minutes.filter((m) => m > 0).length,
      minutes: minutes.length,
    },
    storage: stored,
    elastic,
    provisioned,
    bursting,
    s3Files,
    perDay: priced.map((day, d) => ({
      start: new Date(usage.start.getTime() + d * 86_400_000).toISOString(),
      elastic: elasticUsd([day]),
      provisioned: provisionedUsd(provisionedMibps, standard, Math.min(86_400, seconds - d * 86_400), pricing),
      bursting: 0,
      s3Files: s3Files.perDay[d] ?? 0,
    })),
    recommendation,
    s3FilesComparison: recommendation && compareWithS3Files(kind, s3Files, { elastic, provisioned, bursting }[recommendation.mode], days),
    notes: dataFound
      ? [...notes({ kind, split, stored, startCreditsReported: usage.startCreditBytes !== undefined, fullCredits: maxBurstCreditBytes(standardAt(0)), options }), ...s3Files.notes]
      : [],
  };
}

/** S3 Files' total beside the recommended EFS mode's, to the cent. */
function compareWithS3Files(kind: FileSystemKind, s3Files: S3FilesAdvice, best: ModeCost, days: number): string {
  const cents = (v: number) => Math.round(v * 100);
  const difference = (cents(best.totalUsd) - cents(s3Files.totalUsd)) / 100;
  const parts = `${usd(s3Files.accessUsd)} data access, at least, and ${usd(s3Files.storageUsd)} storage`;
  const efs = `${MODE_NAMES[best.mode]}, the EFS mode recommended`;
  if (kind === 's3files') {
    const than = difference === 0 ? 'the same' : `${usd(Math.abs(difference))} ${difference > 0 ? 'more' : 'less'}`;
    return `S3 Files: ${usd(s3Files.totalUsd)} over ${formatDays(days)} (${parts}); on EFS, ${efs}, the same traffic and data would have cost ${than}.`;
  }
  const than = difference === 0 ? `the same as ${efs}` : `${usd(Math.abs(difference))} ${difference < 0 ? 'more' : 'less'} than ${efs}`;
  return `S3 Files: the same traffic and data would have cost ${usd(s3Files.totalUsd)} over ${formatDays(days)} (${parts}), ${than}.`;
}

function withTotal<T extends Omit<ModeCost, 'totalUsd'>>(mode: T): T & { totalUsd: number } {
  return { ...mode, totalUsd: mode.throughputUsd + mode.storageUsd };
}

function averageStorage(hours: Array<StoredHour | undefined>): StoredHour | undefined {
  const reported = hours.filter((h): h is StoredHour => h !== undefined);
  if (reported.length === 0) return undefined;
  const mean = (f: (h: StoredHour) => number) => reported.reduce((s, h) => s + f(h), 0) / reported.length;
  return { total: mean((h) => h.total), standard: mean((h) => h.standard), ia: mean((h) => h.ia), archive: mean((h) => h.archive) };
}

/** Standard storage at a minute: its hour's average, else the last reported before, else the first reported after, else 0. */
function standardBytesAt(hours: Array<StoredHour | undefined>): (minute: number) => number {
  const latest: Array<StoredHour | undefined> = [];
  hours.forEach((h, i) => { latest[i] = h ?? latest[i - 1]; });
  const first = hours.find((h) => h !== undefined);
  return (minute) => (latest[Math.min(Math.floor(minute / 60), latest.length - 1)] ?? first)?.standard ?? 0;
}

/** Storage at `mode`'s prices: as it was, all in Standard, and with an IA lifecycle (as it was if in use, else estimated). */
function storageCosts(mode: ThroughputMode, stored: StoredHour | undefined, seconds: number, options: AdviceOptions) {
  if (!stored) return { storageUsd: 0, storageWithoutLifecycleUsd: 0, storageWithLifecycleUsd: 0, lifecycleTieringUsd: 0 };
  const prices = storagePricesPerGbMonth(options.pricing, mode, options.oneZone);
  const asStored = storageUsd(stored, seconds, prices);
  const inUse = stored.ia + stored.archive > 0;
  const coldBytes = (stored.total * options.coldPercent) / 100;
  return {
    storageUsd: asStored,
    storageWithoutLifecycleUsd: storageUsd({ standard: stored.total, ia: 0, archive: 0 }, seconds, prices),
    storageWithLifecycleUsd: inUse ? asStored : storageUsd({ standard: stored.total - coldBytes, ia: coldBytes, archive: 0 }, seconds, prices),
    lifecycleTieringUsd: inUse ? 0 : (coldBytes / BYTES_PER_GB) * options.pricing.iaTieringPerGb,
  };
}

/**
 * Traffic that averages more than the baseline spends the credits for good: a window that starts
 * with a full balance would otherwise hide that they run out a few days later.
 */
function creditsFallForGood(replay: BurstingReplay, meteredBytesPerSecond: number): string | undefined {
  const fallPerDay = (meteredBytesPerSecond - replay.averageBaselineBytesPerSecond) * 86_400;
  if (fallPerDay <= 0) return undefined;
  const daysLeft = replay.endCreditBytes / fallPerDay;
  return `Bursting's credits would fall by ${(fallPerDay / 1024 ** 3).toFixed(1)} GiB a day on this traffic, above its baseline, and run out in ${daysLeft.toFixed(1)} more days`;
}

function heldBackTooLong(replay: ThroughputReplay, what: string): string | undefined {
  return replay.longestHeldBackMinutes > MAX_HELD_BACK_MINUTES
    ? `${what} would have held traffic back ${replay.longestHeldBackMinutes} minutes in a row`
    : undefined;
}

function archiveNeedsElastic(mode: string, stored: StoredHour | undefined): string | undefined {
  return stored && stored.archive > 0 ? `${mode} cannot keep the file system's Archive data, which needs Elastic throughput` : undefined;
}

/** The cheapest mode that would have carried the traffic; on a tie (to the cent) Elastic, then Bursting: nothing to size. */
function recommend(modes: { elastic: ModeCost; provisioned: ProvisionedCost; bursting: ModeCost }, meteredIOBytes: number, days: number): Advice['recommendation'] {
  const cents = (v: number) => Math.round(v * 100);
  const [best] = (['elastic', 'bursting', 'provisioned'] as const).filter((m) => !modes[m].ruledOut)
    .sort((a, b) => cents(modes[a].totalUsd) - cents(modes[b].totalUsd));
  const chosen = modes[best];
  const others = THROUGHPUT_MODES.filter((m) => m !== best).map((m) => {
    const other = modes[m];
    if (other.ruledOut) return other.ruledOut;
    const more = (cents(other.totalUsd) - cents(chosen.totalUsd)) / 100;
    return more === 0 ? `${MODE_NAMES[m]} would have cost the same` : `${MODE_NAMES[m]} would have cost ${usd(more)} more`;
  });
  const why = meteredIOBytes === 0 && best === 'elastic'
    ? `no I/O in ${formatDays(days)}, and Elastic costs nothing while idle, with no throughput to size and no credits to run out`
    : `${usd(chosen.totalUsd)} over ${formatDays(days)}, storage included`;
  const name = best === 'provisioned' ? `Provisioned at ${modes.provisioned.provisionedMibps.toFixed(2)} MiB/s` : MODE_NAMES[best];
  return { mode: best, reason: `${name}: ${why}; ${others.join('; ')}.` };
}

function notes(facts: { kind: FileSystemKind; split: boolean; stored?: StoredHour; startCreditsReported: boolean; fullCredits: number; options: AdviceOptions }): string[] {
  const { pricing, coldPercent, oneZone } = facts.options;
  const out: string[] = [];
  if (!facts.split) out.push('Only MetadataIOBytes is reported, not MetadataReadIOBytes and MetadataWriteIOBytes: metadata is priced as writes, the dearer.');
  const fullBalance = `${(facts.fullCredits / 1024 ** 4).toFixed(1)} TiB`;
  if (facts.kind === 's3files') {
    out.push(`On EFS, the Bursting replay starts with a full balance, ${fullBalance}.`);
  } else if (!facts.startCreditsReported) {
    out.push(`No BurstCreditBalance (the file system is not in Bursting mode): the Bursting replay starts with a full balance, ${fullBalance}.`);
  }
  if (!facts.stored) {
    out.push('No StorageBytes: storage costs are unknown (shown as $0.00), and the Bursting baseline is its 1 MiB/s minimum.');
  } else {
    if (facts.stored.ia + facts.stored.archive === 0) {
      out.push(`No IA or Archive data: "with IA lifecycle" assumes ${coldPercent}% of the data is cold (--cold-percent; AWS's pricing examples assume 80%), moved into IA once at ${usd(pricing.iaTieringPerGb)}/GB.`);
    }
    out.push(`Reads from IA and Archive cost ${usd(pricing.iaReadPerGb)} and ${usd(pricing.archiveReadPerGb)} per GB more; CloudWatch does not say which reads hit them, so these figures leave them out.`);
  }
  if (oneZone) out.push('One Zone storage prices; Elastic reads and writes are priced as on Regional file systems.');
  return out;
}

export function formatDays(days: number): string {
  return `${Number(days.toFixed(2))} day${days === 1 ? '' : 's'}`;
}

/** `2026-01-14T05:26Z`: minutes are the metrics' resolution. */
function minuteTime(start: Date, minute: number): string {
  return new Date(start.getTime() + minute * 60_000).toISOString().replace(/:00\.000Z$/, 'Z');
}
