import { EfsPricing } from '../../../lib';
import {
  burstBytesPerSecond, burstingBaselineBytesPerSecond, elasticAccessUsd, includedProvisionedMibps, maxBurstCreditBytes,
  provisionedUsd, replayBursting, replayProvisioned, storagePricesPerGbMonth, storageUsd,
} from '../../../lib/cost/efs-cost';
import { TEST_PRICES } from '../../helpers/test-prices';

// The cost formulas against hand calculations, with round test prices ($1 per GB read, $2 written,
// $73 per MiB/s-month and per Standard GB-month: $0.10 and $0.10 an hour over 730 hours).
const prices = EfsPricing.custom(TEST_PRICES);
const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;
const TiB = 1024 * GiB;
const MONTH = 730 * 3600;

test('Elastic bills data and metadata reads at the read price and writes at the write price, per 2^30 bytes', () => {
  const io = { dataReadBytes: 2 * GiB, metadataReadBytes: GiB, dataWriteBytes: 1.5 * GiB, metadataWriteBytes: 0.5 * GiB };
  expect(elasticAccessUsd(io, prices)).toBeCloseTo(3 * 1 + 2 * 2, 10);
});

test('Provisioned bills the throughput above what Standard storage includes (50 KiB/s per GiB)', () => {
  // 20.48 GiB include 1 MiB/s: 10 MiB/s for a month bill 9 MiB/s-months.
  expect(includedProvisionedMibps(20.48 * GiB)).toBeCloseTo(1, 10);
  expect(provisionedUsd(10, 20.48 * GiB, MONTH, prices)).toBeCloseTo(9 * 73, 8);
  expect(provisionedUsd(10, 0, 3600, prices)).toBeCloseTo(10 * 0.1, 10);
  expect(provisionedUsd(1, 100 * GiB, MONTH, prices)).toBe(0);
});

test('Bursting: baseline 50 KiB/s per GiB (at least 1 MiB/s), burst 100 MiB/s per TiB (at least 100 MiB/s), credits up to 2.1 TiB per TiB (at least 2.1 TiB)', () => {
  expect(burstingBaselineBytesPerSecond(100 * GiB)).toBe(5000 * KiB);
  expect(burstingBaselineBytesPerSecond(GiB)).toBe(MiB);
  expect(burstBytesPerSecond(2 * TiB)).toBe(200 * MiB);
  expect(burstBytesPerSecond(10 * GiB)).toBe(100 * MiB);
  expect(maxBurstCreditBytes(4 * TiB)).toBeCloseTo(8.4 * TiB, 0);
  expect(maxBurstCreditBytes(GiB)).toBeCloseTo(2.1 * TiB, 0);
});

test('storage is priced per class and month; IA costs more beside Bursting and Provisioned; One Zone has its own prices', () => {
  const stored = { standard: 10 * GiB, ia: 100 * GiB, archive: 20 * GiB };
  expect(storageUsd(stored, MONTH, storagePricesPerGbMonth(prices, 'elastic', false))).toBeCloseTo(10 * 73 + 100 * 7.3 + 20 * 3.65, 8);
  expect(storageUsd(stored, MONTH, storagePricesPerGbMonth(prices, 'bursting', false))).toBeCloseTo(10 * 73 + 100 * 14.6 + 20 * 3.65, 8);
  expect(storageUsd(stored, 24 * 3600, storagePricesPerGbMonth(prices, 'provisioned', true))).toBeCloseTo((10 * 36.5 + 100 * 3.65 + 20 * 3.65) * 24 / 730, 8);
});

describe('replayBursting', () => {
  test('a day idle earns a day of baseline; bursting at 100 MiB/s then spends it, as AWS\'s worked example says (about 72 minutes)', () => {
    // 100 GiB: baseline 5000 KiB/s = 4.8828125 MiB/s, 421,875 MiB a day; at 100 MiB/s the balance
    // falls by 95.1171875 MiB/s, so it lasts 73.9 minutes: the 74th burst minute finds too little.
    const minutes = [...Array(1440).fill(0), ...Array(120).fill(100 * MiB * 60)];
    const replay = replayBursting(minutes, () => 100 * GiB, 0);
    expect(replay.creditsRanOutAtMinute).toBe(1440 + 73);
    expect(replay.lowestCreditBytes).toBe(0);
    expect(replay.heldBackMinutes).toBe(120 - 73);
    expect(replay.longestHeldBackMinutes).toBe(120 - 73);
  });

  test('starts from a full balance unless told, and traffic within the burst rate waits for nothing', () => {
    const replay = replayBursting(Array(600).fill(50 * MiB * 60), () => 10 * GiB);
    expect(replay.startCreditBytes).toBeCloseTo(2.1 * TiB, 0);
    // 10 GiB: the baseline is the 1 MiB/s floor, so the balance falls by 49 MiB/s for 600 minutes.
    expect(replay.lowestCreditBytes).toBeCloseTo(2.1 * TiB - 49 * MiB * 60 * 600, 0);
    expect(replay).toMatchObject({ creditsRanOutAtMinute: undefined, heldBackMinutes: 0, longestHeldBackMinutes: 0, averageBaselineBytesPerSecond: MiB });
    expect(replay.endCreditBytes).toBe(replay.lowestCreditBytes);
  });

  test('traffic above the burst rate waits even with credits: 200 MiB/s for 10 minutes takes 20', () => {
    const minutes = [...Array(10).fill(200 * MiB * 60), ...Array(30).fill(0)];
    const replay = replayBursting(minutes, () => 10 * GiB);
    expect(replay.creditsRanOutAtMinute).toBeUndefined();
    expect(replay.longestHeldBackMinutes).toBe(19); // the 20th minute serves the last of it
  });
});

test('replayProvisioned: traffic above the provisioned rate waits until the rate has carried it', () => {
  // 1 MiB/s carries 60 MiB a minute: 300 MiB in one minute leaves 240, 180, 120, 60, then nothing.
  const replay = replayProvisioned([300 * MiB, 0, 0, 0, 0, 0, 30 * MiB], MiB);
  expect(replay).toEqual({ heldBackMinutes: 4, longestHeldBackMinutes: 4 });
  // Less than a second's worth still waiting is a queue, not traffic held back.
  expect(replayProvisioned([60.5 * MiB, 60 * MiB, 59 * MiB], MiB)).toEqual({ heldBackMinutes: 0, longestHeldBackMinutes: 0 });
});
