import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { execFileSync } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { seed } from '../lambda/seed/copy';
import { openSource } from '../lambda/seed/sources/open-source';
import { Moto, startMoto } from './helpers/moto';
import { makeTree, tempDir, treeDigest } from './helpers/seed-fixtures';

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

describe('a zip from S3 is spooled to local disk', () => {
  // Lambda keeps /tmp across warm invocations: the spool must go on success and on failure alike.
  let spools: string;
  beforeEach(() => {
    spools = path.join(work, 'tmp');
    fs.mkdirSync(spools);
    // The module object itself: a namespace import's bindings cannot be spied on.
    jest.spyOn(require('os'), 'tmpdir').mockReturnValue(spools);
  });
  afterEach(() => jest.restoreAllMocks());

  test('and removed once the source is closed', async () => {
    const src = path.join(work, 'src');
    makeTree(src, 1, 3);
    execFileSync('zip', ['-qr', path.join(work, 'site.zip'), '.'], { cwd: src });
    await put('archives/spooled.zip', fs.readFileSync(path.join(work, 'site.zip')));
    const opened = await openSource({ format: 'zip', bucket: 'seed-source', key: 'archives/spooled.zip' }, { client: s3 });
    expect(fs.readdirSync(spools)).toHaveLength(1);
    await opened.close();
    expect(fs.readdirSync(spools)).toEqual([]);
  });

  test('and removed when the object cannot be fetched', async () => {
    await expect(openSource({ format: 'zip', bucket: 'seed-source', key: 'archives/no-such.zip' }, { client: s3 })).rejects.toThrow(/does not exist/i);
    expect(fs.readdirSync(spools)).toEqual([]);
  });
});
