import {
  CreateBucketCommand, GetObjectCommand, ListObjectVersionsCommand, ListObjectsV2Command, PutBucketVersioningCommand, PutObjectCommand, S3Client,
} from '@aws-sdk/client-s3';
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import { tarFile, TAR_END, zipArchive } from '../../helpers/archive-crafting';
import { startMoto, Moto } from '../../helpers/moto';
import { tempDir } from '../../helpers/seed-fixtures';
import { removeBucketSeed } from '../../../lambda/seed-bucket/bucket-removal';
import { BucketSeedOptions, seedBucket } from '../../../lambda/seed-bucket/bucket-seed';
import { BucketTarget, MANIFEST_NAME } from '../../../lambda/seed-bucket/bucket-target';
import type { EntrySource, SeedEntry } from '../../../lambda/seed/sources/entry';
import { openSource, parseSourceSpec, SourceLocation } from '../../../lambda/seed/sources/open-source';

// The bucket seed against moto's S3 on 127.0.0.1 (versioned, as S3 Files requires): every source
// kind, the incremental re-run, prune and removal of exactly what the seed wrote, hostile names,
// server-side copies, and a source directory swapped for a link mid-run.
let moto: Moto;
let s3: S3Client;
/** S3 requests by kind and key, seen by a middleware of the test's own (independent of the seed's counts). */
let seen: Array<{ kind: string; key?: string }>;
let bucketNumber = 0;

beforeAll(async () => {
  moto = await startMoto();
  s3 = new S3Client(moto.clientConfig);
  s3.middlewareStack.add((next, context) => async (args) => {
    seen.push({ kind: (context.commandName ?? '').replace(/Command$/, ''), key: (args.input as { Key?: string }).Key });
    return next(args);
  }, { step: 'initialize', name: 'test-request-log' });
});
afterAll(async () => {
  s3?.destroy();
  await moto?.stop();
});
beforeEach(() => { seen = []; });

async function newBucket(versioned = true): Promise<string> {
  const bucket = `seed-bucket-${++bucketNumber}`;
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  if (versioned) await s3.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }));
  return bucket;
}

const body = async (bucket: string, key: string) => Buffer.from(await (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToByteArray());
const put = (bucket: string, key: string, data: string | Buffer) => s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: data }));
async function keys(bucket: string): Promise<string[]> {
  return ((await s3.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? []).map((o) => o.Key!).sort();
}
const count = (kind: string) => seen.filter((r) => r.kind === kind).length;

async function run(source: SourceLocation, target: BucketTarget, options: BucketSeedOptions = {}) {
  const opened = await openSource(source, { client: s3, s3: { endpoint: moto.endpoint, region: 'us-east-1' } });
  try {
    seen = [];
    return await seedBucket(s3, opened.source, target, options);
  } finally {
    await opened.close();
  }
}

function tree(files: Record<string, string | Buffer>): string {
  const dir = tempDir('seed-bucket-src-');
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

test('a local directory becomes objects under the prefix, byte for byte, a large file in parts', async () => {
  const bucket = await newBucket();
  const large = Buffer.alloc(20 * 1024 * 1024 + 5, 7);
  const dir = tree({ 'index.html': 'hello', 'css/site.css': 'body{}', 'img/a/b/c.bin': Buffer.from([0, 1, 2]), 'big.bin': large });
  fs.mkdirSync(path.join(dir, 'empty'));
  const summary = await run(parseSourceSpec(dir), { bucket, prefix: 'www/' });
  expect(summary).toMatchObject({ files: 4, written: 4, skipped: 0, failed: [], complete: true, copied: 0 });
  expect(await keys(bucket)).toEqual(['www/.cdk-efs-kit/bucket-manifest.json', 'www/big.bin', 'www/css/site.css', 'www/img/a/b/c.bin', 'www/index.html']);
  expect((await body(bucket, 'www/index.html')).toString()).toBe('hello');
  expect((await body(bucket, 'www/img/a/b/c.bin')).equals(Buffer.from([0, 1, 2]))).toBe(true);
  expect((await body(bucket, 'www/big.bin')).equals(large)).toBe(true);
  // 3 small files in one PutObject each, the manifest in one; the 20 MiB file in 3 parts of 8 MiB.
  expect(summary.requests).toMatchObject({ PutObject: 4, CreateMultipartUpload: 1, UploadPart: 3, CompleteMultipartUpload: 1, ListObjectVersions: 1 });
  expect(summary.directories).toBe(5);
});

test('an incremental re-run writes nothing; a changed file is written again, alone', async () => {
  const bucket = await newBucket();
  const dir = tree({ 'a.txt': 'a', 'd/b.txt': 'b', 'd/c.txt': 'c' });
  const target = { bucket, prefix: 'site/' };
  await run(parseSourceSpec(dir), target);
  const again = await run(parseSourceSpec(dir), target);
  expect(again).toMatchObject({ files: 3, written: 0, skipped: 3, failed: [] });
  expect(count('PutObject') + count('CopyObject') + count('UploadPart')).toBe(0);
  expect(again.requests.PutObject ?? 0).toBe(0);
  fs.writeFileSync(path.join(dir, 'd/b.txt'), 'b, changed');
  const changed = await run(parseSourceSpec(dir), target);
  expect(changed).toMatchObject({ written: 1, skipped: 2 });
  // The file and then the manifest.
  expect(seen.filter((r) => r.kind === 'PutObject').map((r) => r.key)).toEqual(['site/d/b.txt', `site/${MANIFEST_NAME}`]);
  expect((await body(bucket, 'site/d/b.txt')).toString()).toBe('b, changed');
});

test('an object the application rewrote since the seed is told apart by its version and written again', async () => {
  const bucket = await newBucket();
  const dir = tree({ 'a.txt': 'a', 'b.txt': 'b' });
  const target = { bucket, prefix: '' };
  await run(parseSourceSpec(dir), target);
  await put(bucket, 'a.txt', 'a'); // same bytes, same ETag: a new version all the same
  const again = await run(parseSourceSpec(dir), target);
  expect(again).toMatchObject({ written: 1, skipped: 1 });
  expect(seen.filter((r) => r.kind === 'PutObject').map((r) => r.key)).toEqual(['a.txt', MANIFEST_NAME]);
});

test('prune deletes the exact versions the seed wrote; objects the application wrote or rewrote survive, and no delete marker is left', async () => {
  const bucket = await newBucket();
  const dir = tree({ 'keep.txt': 'k', 'gone.txt': 'g', 'rewritten.txt': 'r', 'sub/gone2.txt': 'g2' });
  const target = { bucket, prefix: 'p/' };
  await run(parseSourceSpec(dir), target);
  for (const name of ['gone.txt', 'rewritten.txt', 'sub/gone2.txt']) fs.unlinkSync(path.join(dir, name));
  // Without prune nothing is deleted, and what the seed wrote stays recorded for a later prune.
  const withoutPrune = await run(parseSourceSpec(dir), target);
  expect(withoutPrune).toMatchObject({ pruned: 0, written: 0, skipped: 1 });
  expect(count('DeleteObjects') + count('DeleteObject')).toBe(0);
  await put(bucket, 'p/app.txt', 'the application\'s');
  await put(bucket, 'p/rewritten.txt', 'rewritten by the application');
  const pruned = await run(parseSourceSpec(dir), target, { prune: true });
  expect(pruned).toMatchObject({ pruned: 2, kept: ['rewritten.txt'], failed: [] });
  expect(await keys(bucket)).toEqual(['p/.cdk-efs-kit/bucket-manifest.json', 'p/app.txt', 'p/keep.txt', 'p/rewritten.txt']);
  expect((await body(bucket, 'p/rewritten.txt')).toString()).toBe('rewritten by the application');
  const versions = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'p/' }));
  expect(versions.DeleteMarkers ?? []).toEqual([]);
  expect((versions.Versions ?? []).map((v) => v.Key)).not.toContain('p/gone.txt');
  // The rewritten object is the application's from now on: a later prune does not consider it.
  const later = await run(parseSourceSpec(dir), target, { prune: true });
  expect(later).toMatchObject({ pruned: 0, kept: [] });
});

test('removal takes only the seed\'s objects as written, then the manifest', async () => {
  const bucket = await newBucket();
  const dir = tree({ 'a.txt': 'a', 'b.txt': 'b', 'c/d.txt': 'd' });
  const target = { bucket, prefix: 'r/' };
  await run(parseSourceSpec(dir), target);
  await put(bucket, 'r/app.txt', 'x');
  await put(bucket, 'r/b.txt', 'b2');
  const removed = await removeBucketSeed(s3, target);
  expect(removed).toMatchObject({ removed: 2, kept: ['b.txt'], failed: [] });
  expect(await keys(bucket)).toEqual(['r/app.txt', 'r/b.txt']);
  const versions = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'r/' }));
  expect(versions.DeleteMarkers ?? []).toEqual([]);
});

test('an unversioned bucket: the seed writes and skips, but deletes nothing (it could not tell an identical rewrite)', async () => {
  const bucket = await newBucket(false);
  const dir = tree({ 'a.txt': 'a', 'b.txt': 'b' });
  const target = { bucket, prefix: '' };
  await run(parseSourceSpec(dir), target);
  expect(await run(parseSourceSpec(dir), target)).toMatchObject({ written: 0, skipped: 2 });
  fs.unlinkSync(path.join(dir, 'b.txt'));
  expect(await run(parseSourceSpec(dir), target, { prune: true })).toMatchObject({ pruned: 0, kept: ['b.txt'] });
  expect(await keys(bucket)).toContain('b.txt');
});

test('an S3 prefix is copied server-side: CopyObject per object, no GetObject of data', async () => {
  const bucket = await newBucket();
  const source = await newBucket();
  for (let i = 0; i < 12; i++) await put(source, `content/d${i % 3}/f${i}.txt`, `file ${i}`);
  await put(source, 'content/folder/', '');
  const summary = await run(parseSourceSpec(`s3://${source}/content/`), { bucket, prefix: 'seeded/' });
  expect(summary).toMatchObject({ files: 12, written: 12, copied: 12, failed: [] });
  expect(count('CopyObject')).toBe(12);
  expect(seen.filter((r) => r.kind === 'GetObject' && r.key !== `seeded/${MANIFEST_NAME}`)).toEqual([]);
  expect((await body(bucket, 'seeded/d1/f4.txt')).toString()).toBe('file 4');
  const again = await run(parseSourceSpec(`s3://${source}/content/`), { bucket, prefix: 'seeded/' });
  expect(again).toMatchObject({ written: 0, skipped: 12 });
  expect(count('CopyObject')).toBe(0);
});

test('archives, local and in S3: members become objects; hostile member names are refused as on EFS', async () => {
  const bucket = await newBucket();
  const hostile = ['../escape.txt', '/etc/absolute.txt', 'a/../../climb.txt', '.cdk-efs-kit/bucket-manifest.json', '.s3files-lost+found-fs-1/x', 'nul\0name'];
  // Beside the refused names: a member streamed and read whole (2 MiB), one uploaded in parts (9 MiB).
  const medium = Buffer.alloc(2 * 1024 * 1024, 2);
  const large = Buffer.alloc(9 * 1024 * 1024, 9);
  const tar = Buffer.concat([...hostile.map((name) => tarFile(name, 'evil')), tarFile('ok/fine.txt', 'fine'), tarFile('ok/medium.bin', medium), tarFile('ok/large.bin', large), TAR_END]);
  const dir = tempDir('seed-bucket-archives-');
  fs.writeFileSync(path.join(dir, 'site.tar.gz'), zlib.gzipSync(tar));
  fs.writeFileSync(path.join(dir, 'site.zip'), zipArchive([...hostile.filter((n) => !n.includes('\0')).map((name) => ({ name, content: 'evil' })), { name: 'ok/fine.txt', content: 'fine' }]));
  await put(bucket, 'uploads/site.tar', tar);
  for (const [spec, prefix] of [[path.join(dir, 'site.tar.gz'), 'tgz/'], [path.join(dir, 'site.zip'), 'zip/'], [`s3://${bucket}/uploads/site.tar`, 'tar/']]) {
    const summary = await run(parseSourceSpec(spec), { bucket, prefix });
    const isTar = !spec.endsWith('.zip');
    expect(summary.written).toBe(isTar ? 3 : 1);
    expect(summary.failed.length).toBeGreaterThanOrEqual(4);
    // Refused as the EFS seed refuses them: by the entry path rules, or by the tar reader (a NUL in a name).
    for (const f of summary.failed) expect(f.error).toMatch(/^refused |NUL byte/);
    expect(summary.failed.map((f) => f.error).join('\n')).toMatch(/'\.\.' is not allowed[^]*absolute paths are not allowed|absolute paths are not allowed[^]*'\.\.' is not allowed/);
    expect((await keys(bucket)).filter((k) => k.startsWith(prefix))).toEqual([`${prefix}.cdk-efs-kit/bucket-manifest.json`, `${prefix}ok/fine.txt`, ...(isTar ? [`${prefix}ok/large.bin`, `${prefix}ok/medium.bin`] : [])]);
    if (isTar) {
      expect((await body(bucket, `${prefix}ok/medium.bin`)).equals(medium)).toBe(true);
      expect((await body(bucket, `${prefix}ok/large.bin`)).equals(large)).toBe(true);
      expect(summary.requests).toMatchObject({ CreateMultipartUpload: 1, UploadPart: 2, CompleteMultipartUpload: 1 });
    }
  }
  // Nothing anywhere else in the bucket: no key climbed out of its prefix.
  expect((await keys(bucket)).filter((k) => !/^(tgz|zip|tar|uploads)\//.test(k))).toEqual([]);
});

test('a symlink in a local source is not followed, and a directory swapped for one mid-run is not read through', async () => {
  const bucket = await newBucket();
  const outside = tree({ 'secret.txt': 'outside the source', 'f.txt': 'outside f' });
  const dir = tree({ 'a.txt': 'a', 'sub/f.txt': 'inside f' });
  fs.symlinkSync(outside, path.join(dir, 'link-to-outside'));
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, 'secret-link.txt'));
  const opened = await openSource(parseSourceSpec(dir));
  // After the walk has listed sub/f.txt, and before it is read, sub becomes a link to the outside directory.
  const swapping: EntrySource = {
    description: opened.source.description,
    async *entries(): AsyncIterable<SeedEntry> {
      for await (const entry of opened.source.entries()) {
        if (entry.path === 'sub/f.txt') {
          fs.renameSync(path.join(dir, 'sub'), path.join(dir, 'sub.real'));
          fs.symlinkSync(outside, path.join(dir, 'sub'));
        }
        yield entry;
      }
    },
  };
  try {
    const summary = await seedBucket(s3, swapping, { bucket, prefix: '' });
    expect(summary.skippedLinks.sort()).toEqual(['link-to-outside', 'secret-link.txt']);
    expect(summary.failed).toEqual([expect.objectContaining({ path: 'sub/f.txt', error: expect.stringMatching(/reached through a symlink[^]*nothing outside the source is read/) })]);
    expect(await keys(bucket)).toEqual([MANIFEST_NAME, 'a.txt']);
  } finally {
    await opened.close();
  }
});

test('a deadline stops new writes; the next run goes on from what the manifest records', async () => {
  const bucket = await newBucket();
  const dir = tree(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}.txt`, `${i}`])));
  const target = { bucket, prefix: '' };
  const first = await run(parseSourceSpec(dir), target, { deadline: Date.now() - 1 });
  expect(first).toMatchObject({ complete: false, written: 0 });
  const second = await run(parseSourceSpec(dir), target, { concurrency: 4 });
  expect(second).toMatchObject({ complete: true, written: 30 });
  expect(await run(parseSourceSpec(dir), target)).toMatchObject({ written: 0, skipped: 30 });
});

/** `source`, stalled before its file number `files` (counting from 0) until `release` is called. */
function stallAfter(source: EntrySource, files: number): { stalling: EntrySource; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => { release = resolve; });
  const stalling: EntrySource = {
    description: source.description,
    async *entries(): AsyncIterable<SeedEntry> {
      let seen = 0;
      for await (const entry of source.entries()) {
        if (entry.type === 'file' && seen++ === files) await gate;
        yield entry;
      }
    },
  };
  return { stalling, release };
}

test('a run records what it wrote before its end (a checkpoint), so a run killed midway leaves its objects recorded as the seed\'s', async () => {
  const bucket = await newBucket();
  const dir = tree(Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`f${String(i).padStart(2, '0')}.txt`, `${i}`])));
  const opened = await openSource(parseSourceSpec(dir));
  // The source stalls after its first 10 files, as a run that is killed there would never go on.
  const { stalling, release } = stallAfter(opened.source, 10);
  try {
    const running = seedBucket(s3, stalling, { bucket, prefix: '' }, { checkpointEveryMs: 0 });
    let recorded: string[] = [];
    for (let i = 0; i < 200 && recorded.length < 10; i++) {
      await new Promise((r) => setTimeout(r, 50));
      try {
        recorded = Object.keys(JSON.parse((await body(bucket, MANIFEST_NAME)).toString()).objects);
      } catch { /* not saved yet */ }
    }
    expect(recorded.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `f${String(i).padStart(2, '0')}.txt`));
    release();
    expect(await running).toMatchObject({ complete: true, written: 15 });
    expect(Object.keys(JSON.parse((await body(bucket, MANIFEST_NAME)).toString()).objects)).toHaveLength(15);
  } finally {
    release();
    await opened.close();
  }
});

test('a run whose request is no longer the place\'s (stillCurrent says so) stops before its next write, superseded', async () => {
  const bucket = await newBucket();
  const dir = tree({ 'a.txt': 'a', 'b.txt': 'b' });
  let asked = 0;
  const summary = await run(parseSourceSpec(dir), { bucket, prefix: '' }, { stillCurrent: async () => { asked++; return false; } });
  expect(summary).toMatchObject({ superseded: true, complete: false, written: 0 });
  expect(asked).toBe(1);
  expect(await keys(bucket)).toEqual([]);
});

test('two runs on one place never save over each other\'s records: the later save is refused (a conditional write), and its run is not complete', async () => {
  const bucket = await newBucket();
  const target = { bucket, prefix: 'two/' };
  const older = tree(Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`f${i}.txt`, `older ${i}`])));
  const newer = tree({ 'f0.txt': 'newer 0' });
  const opened = await openSource(parseSourceSpec(older));
  // The older run has read the manifest and stalls; meanwhile the newer run (a rollback, another deploy) completes.
  const { stalling, release } = stallAfter(opened.source, 3);
  try {
    const olderRun = seedBucket(s3, stalling, target);
    await new Promise((r) => setTimeout(r, 300));
    expect(await run(parseSourceSpec(newer), target)).toMatchObject({ complete: true, written: 1 });
    const newerManifest = (await body(bucket, `two/${MANIFEST_NAME}`)).toString();
    release();
    const summary = await olderRun;
    expect(summary).toMatchObject({ complete: false, failed: [] });
    expect(summary.warnings.join(' ')).toMatch(/changed while this run went on \(another run of the place wrote it\)/);
    expect((await body(bucket, `two/${MANIFEST_NAME}`)).toString()).toBe(newerManifest);
  } finally {
    release();
    await opened.close();
  }
});

test('a file written again leaves one version of the seed\'s: the one it replaced is deleted, so removal brings back what was there before the seed', async () => {
  const bucket = await newBucket();
  await put(bucket, 'w/a.txt', 'the application\'s, before the seed');
  const dir = tree({ 'a.txt': 'one' });
  const target = { bucket, prefix: 'w/' };
  await run(parseSourceSpec(dir), target);
  fs.writeFileSync(path.join(dir, 'a.txt'), 'two');
  await run(parseSourceSpec(dir), target);
  fs.writeFileSync(path.join(dir, 'a.txt'), 'three');
  await run(parseSourceSpec(dir), target);
  const versions = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'w/a.txt' }));
  expect(versions.Versions?.length).toBe(2);
  expect((await removeBucketSeed(s3, target)).removed).toBe(1);
  expect((await body(bucket, 'w/a.txt')).toString()).toBe('the application\'s, before the seed');
  // The manifest is gone with every version of it.
  const left = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'w/.cdk-efs-kit/' }));
  expect([...left.Versions ?? [], ...left.DeleteMarkers ?? []]).toEqual([]);
});

test('a forged manifest deletes nothing: paths that climb out are ignored, records of another version are not the seed\'s', async () => {
  const bucket = await newBucket();
  const dir = tree({ 'a.txt': 'a' });
  const target = { bucket, prefix: 'm/' };
  await put(bucket, 'outside.txt', 'outside the prefix');
  const app = await put(bucket, 'm/app.txt', 'the application\'s');
  const forged = {
    version: 1,
    objects: {
      '../outside.txt': { identity: 'x', etag: '"x"', versionId: 'v', size: 1 },
      '/etc/passwd': { identity: 'x', etag: '"x"', versionId: 'v', size: 1 },
      'app.txt': { identity: 'x', etag: app.ETag, versionId: 'not-its-version', size: 17 },
      'odd.txt': { identity: 42 },
    },
  };
  await put(bucket, `m/${MANIFEST_NAME}`, JSON.stringify(forged));
  const summary = await run(parseSourceSpec(dir), target, { prune: true });
  expect(summary).toMatchObject({ written: 1, pruned: 0, kept: ['app.txt'], failed: [] });
  expect(summary.warnings.join('\n')).toMatch(/3 entries that are not normal paths or records of the seed's shape were ignored/);
  expect(count('DeleteObjects')).toBe(0);
  expect(await keys(bucket)).toEqual(['m/.cdk-efs-kit/bucket-manifest.json', 'm/a.txt', 'm/app.txt', 'outside.txt']);
  await put(bucket, `m/${MANIFEST_NAME}`, 'not json');
  expect((await run(parseSourceSpec(dir), target, { prune: true })).warnings.join('\n')).toMatch(/is not JSON: ignored, every file is written again and nothing is pruned/);
});

test('an S3 object above the single-copy bound is copied server-side in parts (UploadPartCopy), byte for byte', async () => {
  const bucket = await newBucket();
  const source = await newBucket();
  const big = Buffer.alloc(12 * 1024 * 1024 + 3);
  for (let i = 0; i < big.length; i += 4096) big[i] = i % 251;
  await put(source, 'content/big.bin', big);
  await put(source, 'content/small.txt', 'small');
  const options = { multipartCopyAboveBytes: 8 * 1024 * 1024, copyPartBytes: 5 * 1024 * 1024 };
  const summary = await run(parseSourceSpec(`s3://${source}/content/`), { bucket, prefix: '' }, options);
  expect(summary).toMatchObject({ written: 2, copied: 2, failed: [] });
  expect(summary.requests).toMatchObject({ CopyObject: 1, CreateMultipartUpload: 1, UploadPartCopy: 3, CompleteMultipartUpload: 1 });
  expect(seen.filter((r) => r.kind === 'GetObject' && r.key !== MANIFEST_NAME)).toEqual([]);
  expect((await body(bucket, 'big.bin')).equals(big)).toBe(true);
  expect(await run(parseSourceSpec(`s3://${source}/content/`), { bucket, prefix: '' }, options)).toMatchObject({ written: 0, skipped: 2 });
});

test('a dry run counts what would be written and pruned, and sends no write or delete', async () => {
  const bucket = await newBucket();
  const dir = tree({ 'a.txt': 'a', 'b.txt': 'b' });
  const target = { bucket, prefix: 'dry/' };
  expect(await run(parseSourceSpec(dir), target, { dryRun: true })).toMatchObject({ written: 2, skipped: 0 });
  expect(count('PutObject') + count('CopyObject')).toBe(0);
  expect(await keys(bucket)).toEqual([]);
  await run(parseSourceSpec(dir), target);
  fs.unlinkSync(path.join(dir, 'b.txt'));
  fs.writeFileSync(path.join(dir, 'c.txt'), 'c');
  expect(await run(parseSourceSpec(dir), target, { dryRun: true, prune: true })).toMatchObject({ written: 1, skipped: 1, pruned: 1 });
  expect(count('PutObject') + count('DeleteObjects')).toBe(0);
  expect(await keys(bucket)).toEqual(['dry/.cdk-efs-kit/bucket-manifest.json', 'dry/a.txt', 'dry/b.txt']);
});
