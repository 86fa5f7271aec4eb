import { EfsPricing, S3FilesPricing } from '../../../lib';
import { adviseOnEfs as advise } from '../../../bin/advise/advice';
import type { EfsUsage } from '../../../bin/advise/usage';
import { TEST_PRICES } from '../../helpers/test-prices';

// The advice from usage built by hand, for what the moto tests' shapes do not reach: file systems
// that report MetadataIOBytes only, no storage, Archive data, One Zone. Test prices: $1 per GB read,
// $2 written, $2.40 per GB-day of Standard storage.
const GiB = 1024 ** 3;
const pricing = EfsPricing.custom(TEST_PRICES);
const start = new Date('2026-01-14T00:00:00Z');
const DAY_OF_PER_MONTH = 24 / 730;

const NO_OPERATIONS = { dataReads: 0, dataWrites: 0, metadataReads: 0, metadataWrites: 0, metadata: 0 };

function usage(overrides: Partial<EfsUsage>): EfsUsage {
  return {
    fileSystemId: 'fs-0123456789abcdef0', start, end: new Date(start.getTime() + 86_400_000),
    meteredBytesPerMinute: new Float64Array(1440),
    days: [{ dataReadBytes: 0, dataWriteBytes: 0, metadataReadBytes: 0, metadataWriteBytes: 0, metadataBytes: 0, operations: NO_OPERATIONS }],
    storageByHour: Array(24).fill({ total: 10 * GiB, standard: 10 * GiB, ia: 0, archive: 0 }),
    ...overrides,
  };
}

const options = { pricing, oneZone: false, coldPercent: 80, s3Files: { pricing: S3FilesPricing.forRegion('us-east-1')!, cacheHitPercent: 100, hotPercent: 20 } };

test('a file system that reports only MetadataIOBytes has its metadata priced as writes, and says so', () => {
  const a = advise(usage({ days: [{ dataReadBytes: GiB, dataWriteBytes: 0, metadataReadBytes: 0, metadataWriteBytes: 0, metadataBytes: 3 * GiB, operations: NO_OPERATIONS }] }), options);
  expect(a.traffic).toMatchObject({ metadataSplitReported: false, metadataReadBytes: 0, metadataWriteBytes: 3 * GiB });
  expect(a.elastic.throughputUsd).toBeCloseTo(1 * 1 + 3 * 2, 9);
  expect(a.notes).toContain('Only MetadataIOBytes is reported, not MetadataReadIOBytes and MetadataWriteIOBytes: metadata is priced as writes, the dearer.');
});

test('without StorageBytes, storage costs nothing it knows of, and the notes say so', () => {
  const a = advise(usage({ storageByHour: Array(24).fill(undefined), meteredBytesPerMinute: new Float64Array(1440).fill(60) }), options);
  expect(a.storage).toBeUndefined();
  expect(a.elastic.storageUsd).toBe(0);
  expect(a.notes).toContain('No StorageBytes: storage costs are unknown (shown as $0.00), and the Bursting baseline is its 1 MiB/s minimum.');
});

test('traffic above the Bursting baseline on average rules Bursting out even while a full balance lasts the window', () => {
  // 6 MiB/s on 2 GiB (baseline: the 1 MiB/s minimum): 5 MiB/s, 421.9 GiB a day, out of 2.1 TiB.
  const MiB = 1024 ** 2;
  const a = advise(usage({
    meteredBytesPerMinute: new Float64Array(1440).fill(6 * MiB * 60),
    storageByHour: Array(24).fill({ total: 2 * GiB, standard: 2 * GiB, ia: 0, archive: 0 }),
  }), options);
  expect(a.bursting.creditsRanOutAt).toBeUndefined();
  const daysLeft = (2.1 * 1024 * 1024 * MiB - 5 * MiB * 86_400) / (5 * MiB * 86_400);
  expect(a.bursting.ruledOut).toBe(`Bursting's credits would fall by 421.9 GiB a day on this traffic, above its baseline, and run out in ${daysLeft.toFixed(1)} more days`);
});

test('Archive data rules out Bursting and Provisioned, which cannot keep it', () => {
  const a = advise(usage({ storageByHour: Array(24).fill({ total: 10 * GiB, standard: GiB, ia: 0, archive: 9 * GiB }) }), options);
  expect(a.bursting.ruledOut).toBe("Bursting cannot keep the file system's Archive data, which needs Elastic throughput");
  expect(a.provisioned.ruledOut).toBe("Provisioned cannot keep the file system's Archive data, which needs Elastic throughput");
  expect(a.recommendation?.mode).toBe('elastic');
});

test('One Zone storage is priced at the One Zone prices', () => {
  const a = advise(usage({}), { ...options, oneZone: true });
  expect(a.elastic.storageUsd).toBeCloseTo(10 * 36.5 * DAY_OF_PER_MONTH, 9);
  expect(a.elastic.storageWithLifecycleUsd).toBeCloseTo((2 * 36.5 + 8 * 3.65) * DAY_OF_PER_MONTH, 9);
  expect(a.notes).toContain('One Zone storage prices; Elastic reads and writes are priced as on Regional file systems.');
});

test('on S3 Files, reads streamed from the bucket (no cache hits) have no data charge, only a 4 KiB metadata read each', () => {
  const reads = { dataReadBytes: 10 * GiB, dataWriteBytes: 0, metadataReadBytes: 0, metadataWriteBytes: 0, metadataBytes: 0, operations: { ...NO_OPERATIONS, dataReads: 10_240 } };
  const a = advise(usage({ days: [reads] }), { ...options, s3Files: { ...options.s3Files, cacheHitPercent: 0 } });
  expect(a.s3Files.dataReadUsd).toBe(0);
  // 10,240 metadata reads of 4 KiB: 40 MiB at $0.03 a GB.
  expect(a.s3Files.metadataUsd).toBeCloseTo((40 / 1024) * 0.03, 12);
});

test('without StorageBytes, S3 Files storage costs nothing it knows of, and the notes say so', () => {
  const a = advise(usage({ storageByHour: Array(24).fill(undefined), meteredBytesPerMinute: new Float64Array(1440).fill(60) }), options);
  expect(a.s3Files).toMatchObject({ storageUsd: 0, hotBytes: undefined, dataSetBytes: undefined });
  expect(a.notes).toContain('S3 Files: no StorageBytes, so its storage costs are unknown (shown as $0.00).');
});
