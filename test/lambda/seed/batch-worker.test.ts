import { CreateBucketCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { describeWithFuse, EfsSim, startEfsSim } from '../../helpers/efs-sim';
import { Moto, startMoto } from '../../helpers/moto';

// The Distributed Map worker (the bundled seed handler's copyBatch) on batches shaped exactly like
// Step Functions' ItemBatcher output over an S3ObjectsItemReader: {Items: [{Key, Size, Etag,
// LastModified (epoch seconds), StorageClass}], BatchInput}, or over an S3 Inventory manifest
// ({Bucket, Key, Size, LastModifiedDate}, all strings). Reads moto's S3, writes to efs-sim.
let moto: Moto;
let handler: any;
let s3: S3Client;

beforeAll(async () => {
  moto = await startMoto();
  Object.assign(process.env, { AWS_ENDPOINT_URL: moto.endpoint, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' });
  handler = require(path.join(__dirname, '..', '..', '..', 'dist', 'handlers', 'seed', 'index.js'));
  s3 = new S3Client(moto.clientConfig);
  await s3.send(new CreateBucketCommand({ Bucket: 'lake' }));
  await Promise.all(Array.from({ length: 60 }, (_, i) => s3.send(new PutObjectCommand({ Bucket: 'lake', Key: `data/p${i % 6}/o${i}.bin`, Body: randomBytes(2000 + i) }))));
});
afterAll(() => moto.stop());

/** The Lambda context the worker reads its time from. */
const context = (remainingMs = 900_000) => ({ getRemainingTimeInMillis: () => remainingMs });

async function itemsUnder(prefix: string) {
  const page = await s3.send(new ListObjectsV2Command({ Bucket: 'lake', Prefix: prefix }));
  return page.Contents!.map((o) => ({
    Etag: o.ETag, Key: o.Key!, LastModified: Math.floor(o.LastModified!.getTime() / 1000), Size: o.Size, StorageClass: 'STANDARD',
  }));
}

describeWithFuse('copyBatch', () => {
  let sim: EfsSim;
  let mountPath: string;
  let flags: string[] = [];
  beforeEach(async () => {
    sim = await startEfsSim({ profile: 'efs-gp', flags });
    mountPath = `/mnt/cdk-efs-kit-test-${path.basename(sim.mount)}`;
    fs.symlinkSync(sim.mount, mountPath);
  });
  afterEach(async () => {
    fs.rmSync(mountPath, { force: true });
    await sim.stop();
  });

  const batchInput = () => ({
    Bucket: 'lake', Key: 'data/', Format: 's3-objects', Fingerprint: 'v1', MountPath: mountPath, TargetSubPath: 'lake',
    Concurrency: '16', Prune: 'false', RemoveOnDelete: 'false',
  });

  test('with copy workers (SEED_WORKERS, as the construct sets it), each fetches and writes its share of the objects', async () => {
    const Items = await itemsUnder('data/');
    process.env.SEED_WORKERS = '2';
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      expect(await handler.copyBatch({ Items, BatchInput: batchInput() }, context())).toEqual({ written: 60, skipped: 0, failed: [] });
      const done = log.mock.calls.map(([line]) => String(line)).find((line) => line.includes('seed batch done'))!;
      const byWorker: number[] = JSON.parse(done).filesByWorker;
      expect(byWorker).toHaveLength(2);
      expect(byWorker[0] + byWorker[1]).toBe(60);
    } finally {
      log.mockRestore();
      delete process.env.SEED_WORKERS;
    }
    expect(fs.readdirSync(path.join(sim.mount, 'lake', 'p5')).sort()).toHaveLength(10);
  });

  test('copies a batch, and a retried batch rewrites nothing', async () => {
    const Items = await itemsUnder('data/');
    const first = await handler.copyBatch({ Items, BatchInput: batchInput() }, context());
    expect(first).toEqual({ written: 60, skipped: 0, failed: [] });
    expect(fs.readdirSync(path.join(sim.mount, 'lake', 'p0')).sort()).toHaveLength(10);

    await sim.resetStats();
    const retry = await handler.copyBatch({ Items, BatchInput: batchInput() }, context());
    expect(retry).toEqual({ written: 0, skipped: 60, failed: [] });
    expect((await sim.stats()).ops).toMatchObject({ create: 0, write: 0, rename: 0, setattr: 0 });
  });

  test('a batch from an S3 Inventory report: URL-encoded keys, sizes as strings, keys outside the prefix ignored', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'lake', Key: 'data/reports/Q3 plan+notes.txt', Body: 'quarterly' }));
    // As the inventory reader hands out CSV rows: every field a string, keys encoded as in a URL query.
    const Items = [
      { Bucket: 'lake', Key: 'data/reports/Q3+plan%2Bnotes.txt', Size: '9', LastModifiedDate: '2026-11-20T10:00:00.000Z' },
      { Bucket: 'lake', Key: 'elsewhere/secret.txt', Size: '5', LastModifiedDate: '2026-11-20T10:00:00.000Z' },
    ];
    const result = await handler.copyBatch({ Items, BatchInput: { ...batchInput(), KeysUrlEncoded: 'true' } }, context());
    expect(result).toEqual({ written: 1, skipped: 0, failed: [] });
    expect(fs.readFileSync(path.join(sim.mount, 'lake', 'reports', 'Q3 plan+notes.txt'), 'utf8')).toBe('quarterly');
    expect(fs.existsSync(path.join(sim.mount, 'lake', 'secret.txt'))).toBe(false);
    expect(await handler.copyBatch({ Items, BatchInput: { ...batchInput(), KeysUrlEncoded: 'true' } }, context())).toEqual({ written: 0, skipped: 1, failed: [] });
  });

  test('a bad key fails the batch with its reason while the other keys are written', async () => {
    const Items = [...(await itemsUnder('data/p1/')), { Key: 'data/p1/missing.bin', Size: 10, Etag: '"x"', LastModified: 1700000000 }];
    await expect(handler.copyBatch({ Items, BatchInput: batchInput() }, context())).rejects.toMatchObject({
      name: 'SeedBatchFailed',
      message: expect.stringMatching(/1 of the batch's keys failed \(10 written, 0 unchanged\): p1\/missing\.bin: .*(NoSuchKey|does not exist)/),
    });
    expect(fs.readdirSync(path.join(sim.mount, 'lake', 'p1')).filter((n) => !n.startsWith('.'))).toHaveLength(10);
  });

  describe('on a slow file system', () => {
    beforeAll(() => {
      flags = ['--latency-any=20'];
    });
    afterAll(() => {
      flags = [];
    });

    test('a batch that would outlast its worker stops before the timeout and fails as unfinished; the retry goes on from what is written', async () => {
      const Items = await itemsUnder('data/');
      // 61 s left, less the 60 s safety margin: a second of work, for 60-odd files at 2 at a time, 20 ms an operation.
      const slow = { ...batchInput(), Concurrency: '2' };
      await expect(handler.copyBatch({ Items, BatchInput: slow }, context(61_000))).rejects.toMatchObject({
        name: 'SeedBatchUnfinished', message: expect.stringMatching(/^the batch ran out of the worker's time \(\d+ written, 0 unchanged\); a retry skips those and goes on$/),
      });
      const retry = await handler.copyBatch({ Items, BatchInput: slow }, context());
      expect(retry.failed).toEqual([]);
      expect(retry.skipped).toBeGreaterThan(0);
      expect(retry.written + retry.skipped).toBe(Items.length);
    });
  });
});
