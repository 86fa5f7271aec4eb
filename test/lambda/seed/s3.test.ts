import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { execFileSync } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { seed } from '../../../lambda/seed/copy/copy';
import { openSource } from '../../../lambda/seed/sources/open-source';
import { Moto, startMoto } from '../../helpers/moto';
import { makeTree, tempDir, treeDigest } from '../../helpers/seed-fixtures';
import { seedCreate } from '../../helpers/seed-create';

// S3 sources against moto's S3 server on 127.0.0.1: listing pagination past 1,000 keys,
// multi-MB objects, and archives read from S3.
let moto: Moto;
let s3: S3Client;
let work: string;

beforeAll(async () => {
  moto = await startMoto();
  s3 = new S3Client(moto.clientConfig);
  await s3.send(new CreateBucketCommand({ Bucket: 'seed-source' }));
});
afterAll(() => moto.stop());
beforeEach(() => { work = tempDir(); });
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

async function put(key: string, body: Buffer | string) {
  await s3.send(new PutObjectCommand({ Bucket: 'seed-source', Key: key, Body: body }));
}

async function putAll(keys: Array<[string, Buffer]>, parallel = 32) {
  for (let i = 0; i < keys.length; i += parallel) await Promise.all(keys.slice(i, i + parallel).map(([k, b]) => put(k, b)));
}

test('copies every object under a prefix past the 1,000-key page, then writes nothing on a re-run', async () => {
  const objects: Array<[string, Buffer]> = Array.from({ length: 1100 }, (_, i) => [`site/d${i % 20}/o${i}.txt`, randomBytes(64)]);
  await putAll(objects);
  await put('other/not-this.txt', 'outside the prefix');
  await put('site/uploads/', ''); // a "folder" made in the S3 console
  const { source } = await openSource({ format: 's3-objects', bucket: 'seed-source', key: 'site' }, { client: s3 });

  const first = await seed(source, path.join(work, 'dst'));
  expect(first).toMatchObject({ files: 1100, written: 1100, failed: [] });
  for (const [key, body] of objects.slice(0, 50)) {
    expect(fs.readFileSync(path.join(work, 'dst', key.slice('site/'.length)))).toEqual(body);
  }
  expect(fs.existsSync(path.join(work, 'dst', 'not-this.txt'))).toBe(false);
  expect(fs.readdirSync(path.join(work, 'dst', 'uploads'))).toEqual([]);

  const second = await seed(source, path.join(work, 'dst'));
  expect(second).toMatchObject({ written: 0, skipped: 1100 });
});

test('streams multi-MB objects into 1 MiB writes', async () => {
  const big = randomBytes(7 * 1024 * 1024 + 123);
  await put('big/blob.bin', big);
  const { source } = await openSource({ format: 's3-objects', bucket: 'seed-source', key: 'big/' }, { client: s3 });
  const summary = await seed(source, path.join(work, 'dst'));
  expect(summary.writtenBytes).toBe(big.length);
  expect(fs.readFileSync(path.join(work, 'dst', 'blob.bin')).equals(big)).toBe(true);
});

test.each([['site.tar.gz', 'czf'], ['site.zip', 'zip']])('extracts %s from S3', async (name, tool) => {
  const src = path.join(work, 'src');
  makeTree(src, 4, 10);
  const archive = path.join(work, name);
  if (tool === 'zip') execFileSync('zip', ['-qr', archive, '.'], { cwd: src });
  else execFileSync('tar', ['czf', archive, '-C', src, '.']);
  await put(`archives/${name}`, fs.readFileSync(archive));
  const opened = await openSource({ format: tool === 'zip' ? 'zip' : 'tar.gz', bucket: 'seed-source', key: `archives/${name}` }, { client: s3 });
  const summary = await seed(opened.source, path.join(work, 'dst'));
  await opened.close();
  expect(summary).toMatchObject({ files: 40, written: 40, failed: [] });
  expect(treeDigest(path.join(work, 'dst'))).toEqual(treeDigest(src));
});

test('a missing bucket fails with S3\'s reason', async () => {
  const { source } = await openSource({ format: 's3-objects', bucket: 'no-such-bucket', key: '' }, { client: s3 });
  await expect(seed(source, path.join(work, 'dst'))).rejects.toThrow(/bucket does not exist/i);
});

describe('a zip in S3 is read where it lies, by ranged GETs of 8 MiB blocks, not spooled to local disk', () => {
  /** 30 members of 0.8 MB of random data (24 MB, three blocks and a bit), zipped. */
  async function bigZip(key: string): Promise<{ src: string; bytes: number }> {
    const src = path.join(work, 'src');
    for (let i = 0; i < 30; i++) {
      fs.mkdirSync(path.join(src, `d${i % 3}`), { recursive: true });
      fs.writeFileSync(path.join(src, `d${i % 3}`, `f${i}.bin`), randomBytes(800_000));
    }
    const zip = path.join(work, 'big.zip');
    execFileSync('zip', ['-qr0', zip, '.'], { cwd: src });
    await put(key, fs.readFileSync(zip));
    return { src, bytes: fs.statSync(zip).size };
  }

  test('each block is fetched once, and nothing is written to the temporary directory', async () => {
    const { src, bytes } = await bigZip('archives/big.zip');
    const ranges: string[] = [];
    const counted = new S3Client(moto.clientConfig);
    counted.middlewareStack.add((next) => async (args) => {
      const range = (args.input as { Range?: string }).Range;
      if (range) ranges.push(range);
      return next(args);
    }, { step: 'initialize' });
    const tmp = path.join(work, 'tmp');
    fs.mkdirSync(tmp);
    jest.spyOn(require('os'), 'tmpdir').mockReturnValue(tmp);
    try {
      const opened = await openSource({ format: 'zip', bucket: 'seed-source', key: 'archives/big.zip' }, { client: counted });
      const summary = await seed(opened.source, path.join(work, 'dst'));
      await opened.close();
      expect(summary).toMatchObject({ written: 30, failed: [] });
    } finally {
      jest.restoreAllMocks();
    }
    expect(treeDigest(path.join(work, 'dst'))).toEqual(treeDigest(src));
    expect(fs.readdirSync(tmp)).toEqual([]);
    const blocks = Math.ceil(bytes / (8 * 1024 * 1024));
    expect(new Set(ranges).size).toBe(ranges.length);
    expect(ranges.length).toBe(blocks);
  });

  (process.getuid?.() === 0 ? test : test.skip)('the bundled handler seeds a 24 MB zip with 1 MiB of /tmp', async () => {
    const { src } = await bigZip('archives/big-handler.zip');
    const smallTmp = path.join(work, 'small-tmp');
    fs.mkdirSync(smallTmp);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'seed-small-tmp', smallTmp]);
    const mountPath = `/mnt/cdk-efs-kit-test-${path.basename(work)}`;
    fs.mkdirSync(path.join(work, 'mnt'));
    fs.symlinkSync(path.join(work, 'mnt'), mountPath);
    const saved = { ...process.env };
    Object.assign(process.env, { TMPDIR: smallTmp, AWS_ENDPOINT_URL: moto.endpoint, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' });
    try {
      const handler = require(path.join(__dirname, '..', '..', '..', 'dist', 'handlers', 'seed', 'index.js'));
      const props = {
        Bucket: 'seed-source', Key: 'archives/big-handler.zip', Format: 'zip', Fingerprint: 'v1', MountPath: mountPath,
        TargetSubPath: 'site', Concurrency: '8', Prune: 'false', RemoveOnDelete: 'false',
      };
      const response = await seedCreate(handler, { RequestType: 'Create', ResourceProperties: props }, { getRemainingTimeInMillis: () => 900_000 });
      expect(response.Data).toMatchObject({ Complete: 'true', Written: 30 });
      expect(treeDigest(path.join(work, 'mnt', 'site'))).toEqual(treeDigest(src));
    } finally {
      process.env = saved;
      fs.rmSync(mountPath, { force: true });
      execFileSync('umount', [smallTmp]);
    }
  });

  test('a missing object fails with S3\'s reason', async () => {
    await expect(openSource({ format: 'zip', bucket: 'seed-source', key: 'archives/no-such.zip' }, { client: s3 })).rejects.toThrow(/not ?found|does not exist/i);
  });
});
