import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { describeWithFuse, onEfsSim } from '../../helpers/efs-sim';
import { startMoto } from '../../helpers/moto';
import { makeTar, makeTree, tempDir, treeDigest } from '../../helpers/seed-fixtures';

// The seed's worker threads, through the compiled CLI (the worker thread's script is part of the
// build): files are written by every worker, each copy is whole, and what a worker could not write
// comes back as that file's failure.
const exec = promisify(execFile);
const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'bin', 'cdk-efs-kit.js');
const seedJson = async (...args: string[]) => JSON.parse((await exec(process.execPath, [CLI, 'seed', ...args, '--json'], { maxBuffer: 64 * 1024 * 1024 })).stdout);

let work: string;
beforeEach(() => { work = tempDir('workers-'); });
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

test('a local tree is written by both workers, byte for byte, and an unchanged re-run writes nothing', async () => {
  const src = path.join(work, 'src');
  makeTree(src, 20, 20);
  const target = path.join(work, 'dst');
  const summary = await seedJson(src, target, '--workers', '2');
  expect(summary).toMatchObject({ written: 400, failed: [], complete: true });
  expect(summary.filesByWorker).toHaveLength(2);
  expect(summary.filesByWorker.every((n: number) => n > 0)).toBe(true);
  expect(summary.filesByWorker[0] + summary.filesByWorker[1]).toBe(400);
  expect(treeDigest(target)).toEqual(treeDigest(src));
  expect(await seedJson(src, target, '--workers', '2')).toMatchObject({ written: 0, skipped: 400, filesByWorker: [0, 0] });
});

test('archive members held in memory are handed to the workers by value', async () => {
  const archive = path.join(work, 'site.tar.gz');
  await makeTar(archive, Array.from({ length: 60 }, (_, i) => ({ name: `d${i % 6}/f${i}.txt`, content: `file ${i}`.repeat(100) })));
  const target = path.join(work, 'dst');
  const summary = await seedJson(archive, target, '--workers', '2');
  expect(summary).toMatchObject({ written: 60, failed: [] });
  expect(summary.filesByWorker.reduce((a: number, b: number) => a + b)).toBe(60);
  expect(fs.readFileSync(path.join(target, 'd5', 'f59.txt'), 'utf8')).toBe('file 59'.repeat(100));
});

test('S3 objects are fetched by the workers, each with a client of its own', async () => {
  const moto = await startMoto();
  try {
    const s3 = new S3Client(moto.clientConfig);
    await s3.send(new CreateBucketCommand({ Bucket: 'objects' }));
    await Promise.all(Array.from({ length: 40 }, (_, i) => s3.send(new PutObjectCommand({ Bucket: 'objects', Key: `site/d${i % 4}/o${i}.txt`, Body: `object ${i}` }))));
    const env = { ...process.env, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' };
    const out = await exec(process.execPath, [CLI, 'seed', 's3://objects/site/', path.join(work, 'dst'), '--endpoint', moto.endpoint, '--workers', '2', '--json'], { env });
    const summary = JSON.parse(out.stdout);
    expect(summary).toMatchObject({ written: 40, failed: [] });
    expect(summary.filesByWorker.every((n: number) => n > 0)).toBe(true);
    expect(fs.readFileSync(path.join(work, 'dst', 'd3', 'o39.txt'), 'utf8')).toBe('object 39');
  } finally {
    await moto.stop();
  }
});

test('with --workers 0 the main thread writes everything', async () => {
  const src = path.join(work, 'src');
  makeTree(src, 2, 5);
  expect(await seedJson(src, path.join(work, 'dst'), '--workers', '0')).toMatchObject({ written: 10, filesByWorker: [] });
});

describeWithFuse('on efs-sim', () => {
  test('with EFS latency, each worker keeps many writes in flight (its calls go to the thread pool)', async () => {
    const src = path.join(work, 'src');
    makeTree(src, 40, 10);
    await onEfsSim({ profile: 'efs-gp' }, async (sim) => {
      const summary = await seedJson(src, path.join(sim.mount, 'dst'), '--workers', '2', '--concurrency', '32');
      expect(summary).toMatchObject({ written: 400, failed: [] });
      expect(summary.filesByWorker.every((n: number) => n > 0)).toBe(true);
      // Sequential writers would leave the emulator with two operations at a time at most.
      expect((await sim.stats()).peakInFlight).toBeGreaterThanOrEqual(16);
      expect(treeDigest(path.join(sim.mount, 'dst'))).toEqual(treeDigest(src));
    });
  });

  test('a write that fails in a worker fails that file, with the error, and leaves no partial file', async () => {
    const src = path.join(work, 'src');
    makeTree(src, 10, 10);
    await onEfsSim({ profile: 'local', flags: ['--fault=EIO:write:prob=0.3'] }, async (sim) => {
      const target = path.join(sim.mount, 'dst');
      const failure = await seedJson(src, target, '--workers', '2').then(() => undefined, (err) => err as { code: number; stdout: string });
      expect(failure?.code).toBe(1);
      const summary = JSON.parse(failure!.stdout);
      expect(summary.failed[0].error.toLowerCase()).toContain('i/o error');
      const sourceDigest = treeDigest(src);
      for (const [file, digest] of Object.entries(treeDigest(target))) expect([file, digest]).toEqual([file, sourceDigest[file]]);
    });
  });
});
