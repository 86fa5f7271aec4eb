import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EfsPricing } from '../../../lib';
import { meterOperation, NfsRequests } from '../../../lambda/probe/metering';
import { Recorder } from '../../../lambda/probe/recorder';
import { isRejection, ProbeResult } from '../../../lambda/probe/result';
import { runProbe } from '../../../lambda/probe/runner';
import { TEST_PRICES } from '../../helpers/test-prices';

// What the probe says EFS meters for its operations, and what a run cost, against the metering
// rules worked by hand: Elastic bills a data request as 32 KiB at least and a metadata request as
// 4 KiB, then by the KiB; MeteredIOBytes counts a request as its size, 4 KiB at least, reads a third.
const KiB = 1024;
const MiB = 1024 * KiB;
const WRITE_FILE: NfsRequests = { data: 'write', metadataReads: 1, metadataWrites: 1 };

describe('meterOperation', () => {
  test('a 1 KiB file written: one data request billed as 32 KiB, an OPEN and a CLOSE as 4 KiB each', () => {
    expect(meterOperation(WRITE_FILE, KiB)).toEqual({
      dataReadBytes: 0, dataWriteBytes: 32 * KiB, metadataReadBytes: 4 * KiB, metadataWriteBytes: 4 * KiB,
      meteredIOBytes: 4 * KiB + 8 * KiB,
    });
  });

  test('2.5 MiB read: requests of 1 MiB, 1 MiB and 0.5 MiB, billed whole and counted at a third for throughput', () => {
    const m = meterOperation({ data: 'read', metadataReads: 2, metadataWrites: 0 }, 2.5 * MiB);
    expect(m.dataReadBytes).toBe(2.5 * MiB);
    expect(m.meteredIOBytes).toBeCloseTo(2.5 * MiB / 3 + 8 * KiB, 6);
  });

  test('a request above 32 KiB is billed by the KiB, rounded up', () => {
    expect(meterOperation(WRITE_FILE, 34_100).dataWriteBytes).toBe(34 * KiB);
    expect(meterOperation(WRITE_FILE, MiB + 1).dataWriteBytes).toBe(MiB + 32 * KiB);
  });

  test('small data requests the probe counts no bytes for are billed 32 KiB and counted 4 KiB each', () => {
    const lockedUpdate: NfsRequests = { data: 'none', metadataReads: 3, metadataWrites: 2, smallDataReads: 1, smallDataWrites: 1 };
    expect(meterOperation(lockedUpdate, 0)).toEqual({
      dataReadBytes: 32 * KiB, dataWriteBytes: 32 * KiB, metadataReadBytes: 12 * KiB, metadataWriteBytes: 8 * KiB,
      meteredIOBytes: 7 * 4 * KiB,
    });
  });
});

test('a phase meters the operations that succeeded; a phase measured elsewhere spreads its bytes over its operations', async () => {
  const recorder = new Recorder();
  await recorder.phase('writes', WRITE_FILE, async (time) => {
    await time(async () => undefined, KiB);
    await time(async () => undefined, 64 * KiB);
    await time(async () => { throw new Error('EIO'); }, MiB);
  });
  recorder.add('elsewhere', WRITE_FILE, [1, 2, 3, 4], 1, 4 * 40 * KiB, 0);
  const [writes, elsewhere] = recorder.operations;
  expect(writes.metered).toEqual({ dataReadBytes: 0, dataWriteBytes: 96 * KiB, metadataReadBytes: 8 * KiB, metadataWriteBytes: 8 * KiB, meteredIOBytes: 68 * KiB + 16 * KiB });
  expect(elsewhere.metered).toEqual({ dataReadBytes: 0, dataWriteBytes: 160 * KiB, metadataReadBytes: 16 * KiB, metadataWriteBytes: 16 * KiB, meteredIOBytes: 160 * KiB + 32 * KiB });
});

describe('a probe run\'s cost', () => {
  let target: string;
  beforeEach(() => { target = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-cost-')); });
  afterEach(() => fs.rmSync(target, { recursive: true, force: true }));

  async function probe(request: unknown): Promise<ProbeResult> {
    const outcome = await runProbe(request, { target, tool: 'test', version: '0', pricing: EfsPricing.custom(TEST_PRICES), sleep: async () => undefined });
    if (isRejection(outcome)) throw new Error(outcome.errors.join('; '));
    return outcome;
  }

  test('write-sizes, 2 files of 1 KiB and 64 KiB, 2 rounds: what it metered and cost under each throughput mode', async () => {
    const result = await probe({ scenarios: { 'write-sizes': { files: 2, sizesBytes: [KiB, 64 * KiB] } }, rounds: 2 });
    expect(result.pricing).toBe('test prices');
    const { cost } = result.scenarios[0];
    // Per round: 2 x 32 KiB (billed minimum) + 2 x 64 KiB of data; 4 files, each an OPEN (write) and a CLOSE (read).
    // Throughput: a 1 KiB write counts 4 KiB, a 64 KiB write 64 KiB, each metadata request 4 KiB.
    expect(cost.metered).toEqual({
      dataReadBytes: 0, dataWriteBytes: 2 * (2 * 32 + 2 * 64) * KiB, metadataReadBytes: 2 * 4 * 4 * KiB, metadataWriteBytes: 2 * 4 * 4 * KiB,
      meteredIOBytes: 2 * (2 * 4 + 2 * 64 + 8 * 4) * KiB,
    });
    // Elastic at $1 per GB read and $2 written: 32 KiB read, 384 + 32 KiB written.
    expect(cost.elasticUsd).toBeCloseTo((32 * 1 + 416 * 2) / (1024 * 1024), 12);
    const operationSeconds = result.scenarios[0].rounds.flatMap((r) => r.operations).reduce((s, o) => s + o.seconds, 0);
    expect(cost.seconds).toBeCloseTo(operationSeconds, 9);
    // Provisioned at the run's average metered rate (at least 1 MiB/s), $0.10 per MiB/s-hour.
    const mibps = Math.max(1, (336 * KiB) / MiB / cost.seconds);
    expect(cost.provisionedMibps).toBeCloseTo(mibps, 6);
    expect(cost.provisionedUsd).toBeCloseTo(mibps * 0.1 * (cost.seconds / 3600), 12);
    expect(cost.provisionedUsdPerMonth).toBeCloseTo(mibps * 73, 6);
  });

  test('every scenario\'s timed operations meter something and cost something on Elastic; runs default to us-east-1 prices', async () => {
    const outcome = await runProbe({
      scenarios: {
        'write-sizes': { files: 2, sizesBytes: [1024] }, 'create-files': { files: 8, threads: 2, directories: 2 },
        'block-sync': { fileBytes: 65536, blockSizesBytes: [32768] }, 'parallel-writers': { totalBytes: 65536, writers: [2], blockBytes: 32768 },
        'small-file-tree': { files: 10, directories: 2 }, 'random-reads': { files: 10, reads: 20, readers: 2 },
        'metadata': { files: 5, listings: 2 }, 'locking': { processes: 2, iterations: 2, transactions: 0 },
      },
    }, { target, tool: 'test', version: '0' });
    if (isRejection(outcome)) throw new Error(outcome.errors.join('; '));
    expect(outcome.pricing).toBe(EfsPricing.US_EAST_1.label);
    for (const s of outcome.scenarios) {
      expect([s.scenario, s.cost.metered.meteredIOBytes > 0, s.cost.elasticUsd > 0]).toEqual([s.scenario, true, true]);
    }
    const reads = outcome.scenarios.find((s) => s.scenario === 'random-reads')!.cost.metered;
    expect(reads.dataReadBytes).toBe(20 * 32 * KiB); // files of 1-32 KiB: each read is billed as 32 KiB
  });
});
