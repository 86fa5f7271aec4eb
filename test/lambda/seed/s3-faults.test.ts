import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { execFile, execFileSync } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { FaultProxy, startFaultProxy } from '../../helpers/fault-proxy';
import { Moto, startMoto } from '../../helpers/moto';
import { tempDir, treeDigest } from '../../helpers/seed-fixtures';
import { seedCreate } from '../../helpers/seed-create';

// S3 that stalls, resets, throttles and errs, through the compiled CLI and the bundled handler: a
// fault-injecting proxy on 127.0.0.1 (test/helpers/fault-proxy.ts) in front of moto's S3 breaks the
// requests each case picks, as a network and S3 break them; nothing of the SDK is mocked. The S3
// timeout is cut to 2 s (CDK_EFS_KIT_S3_TIMEOUT_MS) so that a stall costs seconds, not minutes.
const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'bin', 'cdk-efs-kit.js');
const TIMEOUT_MS = 2000;
const BUCKET = 'faults';
/** 150 small objects in 5 "directories", and 4 of 600 KB whose bodies a fault can break halfway. */
const SMALL = Array.from({ length: 150 }, (_, i) => `site/d${i % 5}/o${i}.txt`);
const BIG = Array.from({ length: 4 }, (_, i) => `site/big/b${i}.bin`);
/** A GET of an object under site/ (path style), not the listing (`/faults/?list-type=2&prefix=site%2F`). */
const OBJECT_GET = /^\/faults\/site\//;
const LISTING = /^\/faults\/\?(.*&)?list-type=2/;

let moto: Moto;
let proxy: FaultProxy;
let fixtures: string;
let expected: Record<string, string>;
let work: string;

beforeAll(async () => {
  moto = await startMoto();
  const s3 = new S3Client(moto.clientConfig);
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  // The source as it should land, for comparing trees.
  fixtures = tempDir('s3-faults-fixtures-');
  const bodies: Array<[string, Buffer]> = [
    ...SMALL.map((key): [string, Buffer] => [key, randomBytes(1000 + Math.floor(Math.random() * 7000))]),
    ...BIG.map((key): [string, Buffer] => [key, randomBytes(600_000)]),
  ];
  for (let i = 0; i < bodies.length; i += 32) {
    await Promise.all(bodies.slice(i, i + 32).map(([key, body]) => s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }))));
  }
  for (const [key, body] of bodies) {
    const file = path.join(fixtures, 'site', key.slice('site/'.length));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, body);
  }
  expected = treeDigest(path.join(fixtures, 'site'));
  execFileSync('tar', ['czf', path.join(fixtures, 'site.tar.gz'), '-C', path.join(fixtures, 'site'), '.']);
  execFileSync('zip', ['-qr0', path.join(fixtures, 'site.zip'), '.'], { cwd: path.join(fixtures, 'site') });
  for (const name of ['site.tar.gz', 'site.zip']) {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `archives/${name}`, Body: fs.readFileSync(path.join(fixtures, name)) }));
  }
  proxy = await startFaultProxy(moto.endpoint);
});
afterAll(async () => {
  await proxy?.stop();
  await moto?.stop();
  fs.rmSync(fixtures, { recursive: true, force: true });
});
beforeEach(() => {
  work = tempDir('s3-faults-');
  proxy.rules = [];
  proxy.log.length = 0;
});
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

const S3_ENV = { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1', CDK_EFS_KIT_S3_TIMEOUT_MS: String(TIMEOUT_MS) };

interface CliRun {
  readonly code: number;
  readonly stderr: string;
  readonly summary?: { written: number; failed: Array<{ path: string; error: string }>; filesByWorker: number[] };
}

/** The CLI against the proxy, killed (and the test failed) if it has not finished within two minutes: nothing may hang. */
function seedCli(source: string, target: string, ...args: string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ...S3_ENV };
    execFile(process.execPath, [CLI, 'seed', source, target, '--endpoint', proxy.endpoint, '--json', ...args], { env, timeout: 120_000 }, (err, stdout, stderr) => {
      if (err?.killed) return reject(new Error(`the seed did not finish within 2 minutes: ${stderr}`));
      const code = err ? Number(err.code) : 0;
      resolve({ code, stderr, summary: stdout.trim() ? JSON.parse(stdout) : undefined });
    });
  });
}

/** Requests the proxy saw for `key` (a GET of the object, whole or a range of it). */
const requestsFor = (key: string) => proxy.log.filter((r) => r.url.split('?')[0] === `/${BUCKET}/${key}`);

describe('the CLI', () => {
  test('stalled GETs, before the answer and halfway through a body, time out and are retried; every object is written, with two workers fetching', async () => {
    proxy.rules = [
      { fault: 'stall', method: 'GET', url: /^\/faults\/site\/d1\//, times: 6 },
      { fault: 'stall-body', method: 'GET', url: /^\/faults\/site\/big\/b[01]\.bin/, times: 2 },
    ];
    const run = await seedCli(`s3://${BUCKET}/site/`, path.join(work, 'dst'), '--workers', '2');
    expect(run.code).toBe(0);
    expect(run.summary).toMatchObject({ written: 154, failed: [] });
    expect(run.summary!.filesByWorker.every((n) => n > 0)).toBe(true);
    expect(treeDigest(path.join(work, 'dst'))).toEqual(expected);
    expect(proxy.counts()).toMatchObject({ 'stall': 6, 'stall-body': 2 });
    // Each stalled object was asked for again; a broken body went on from where it stopped.
    for (const stalled of proxy.log.filter((r) => r.fault)) {
      expect(requestsFor(stalled.url.slice(`/${BUCKET}/`.length).split('?')[0]).length).toBeGreaterThan(1);
    }
  });

  test('connections reset before the answer or halfway through a body are retried; every object is written', async () => {
    proxy.rules = [
      { fault: 'reset-body', method: 'GET', url: /^\/faults\/site\/big\//, times: 3 },
      { fault: 'reset', method: 'GET', url: OBJECT_GET, rate: 0.1 },
    ];
    const run = await seedCli(`s3://${BUCKET}/site/`, path.join(work, 'dst'), '--workers', '0');
    expect(run.code).toBe(0);
    expect(run.summary).toMatchObject({ written: 154, failed: [] });
    expect(treeDigest(path.join(work, 'dst'))).toEqual(expected);
    expect(proxy.counts()['reset-body']).toBe(3);
    expect(proxy.counts().reset).toBeGreaterThan(0);
  });

  test('with 10% of GETs and the first listing throttled (503 SlowDown), the run slows down and writes every object (exit 0)', async () => {
    proxy.rules = [
      { fault: 'slow-down', method: 'GET', url: LISTING, times: 1 },
      { fault: 'slow-down', method: 'GET', url: OBJECT_GET, rate: 0.1 },
    ];
    const run = await seedCli(`s3://${BUCKET}/site/`, path.join(work, 'dst'));
    expect(run.code).toBe(0);
    expect(run.summary).toMatchObject({ written: 154, failed: [] });
    expect(treeDigest(path.join(work, 'dst'))).toEqual(expected);
    expect(proxy.counts()['slow-down']).toBeGreaterThan(1);
  });

  test('an object that always gets a 500 fails alone, named with S3\'s reason, after 4 attempts (exit 1); the rest are written', async () => {
    proxy.rules = [{ fault: 'internal-error', method: 'GET', url: /^\/faults\/site\/d2\/o7\.txt/ }];
    const run = await seedCli(`s3://${BUCKET}/site/`, path.join(work, 'dst'), '--workers', '2');
    expect(run.code).toBe(1);
    expect(run.summary!.failed).toEqual([{
      path: 'd2/o7.txt',
      error: `d2/o7.txt: GET s3://${BUCKET}/site/d2/o7.txt failed 4 times: InternalError (HTTP 500): We encountered an internal error. Please try again.`,
    }]);
    expect(run.summary!.written).toBe(153);
    const { 'd2/o7.txt': missing, ...rest } = expected;
    expect(missing).toBeDefined();
    expect(treeDigest(path.join(work, 'dst'))).toEqual(rest);
    expect(requestsFor('site/d2/o7.txt')).toHaveLength(4);
  });

  test('a listing that always fails stops the run with one line naming it and S3\'s reason (exit 3, not 2: it is not bad input)', async () => {
    proxy.rules = [{ fault: 'internal-error', method: 'GET', url: LISTING }];
    const run = await seedCli(`s3://${BUCKET}/site/`, path.join(work, 'dst'));
    expect(run.code).toBe(3);
    expect(run.stderr.trim().split('\n').pop()).toBe(
      `cdk-efs-kit: listing s3://${BUCKET}/site/ failed 4 times: InternalError (HTTP 500): We encountered an internal error. Please try again.`);
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(proxy.log.filter((r) => LISTING.test(r.url))).toHaveLength(4);
  });

  test('a listing that stalls every time stops the run too, within its attempts\' timeouts (exit 3)', async () => {
    proxy.rules = [{ fault: 'stall', method: 'GET', url: LISTING }];
    const run = await seedCli(`s3://${BUCKET}/site/`, path.join(work, 'dst'));
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(new RegExp(`cdk-efs-kit: listing s3://${BUCKET}/site/ failed 4 times: timed out`));
  });

  test('a bucket that does not exist is still bad input (exit 2), asked once', async () => {
    const run = await seedCli('s3://no-such-bucket/site/', path.join(work, 'dst'));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/cdk-efs-kit: listing s3:\/\/no-such-bucket\/site\/ failed: NoSuchBucket \(HTTP 404\): The specified bucket does not exist/);
    expect(proxy.log).toHaveLength(1);
  });

  test('a zip read in place survives a stalled HEAD, and stalled, reset and throttled ranged GETs', async () => {
    proxy.rules = [
      { fault: 'stall', method: 'HEAD', times: 1 },
      { fault: 'stall', method: 'GET', url: /^\/faults\/archives\/site\.zip/, times: 1 },
      { fault: 'reset-body', method: 'GET', url: /^\/faults\/archives\/site\.zip/, times: 1 },
      { fault: 'slow-down', method: 'GET', url: /^\/faults\/archives\/site\.zip/, times: 1 },
    ];
    const run = await seedCli(`s3://${BUCKET}/archives/site.zip`, path.join(work, 'dst'));
    expect(run.code).toBe(0);
    expect(treeDigest(path.join(work, 'dst'))).toEqual(expected);
    expect(proxy.counts()).toMatchObject({ 'stall': 2, 'reset-body': 1, 'slow-down': 1 });
  });

  test('a .tar.gz whose body breaks off halfway goes on from where it stopped', async () => {
    proxy.rules = [
      { fault: 'reset-body', method: 'GET', url: /^\/faults\/archives\/site\.tar\.gz/, times: 1 },
      { fault: 'stall-body', method: 'GET', url: /^\/faults\/archives\/site\.tar\.gz/, times: 1 },
    ];
    const run = await seedCli(`s3://${BUCKET}/archives/site.tar.gz`, path.join(work, 'dst'));
    expect(run.code).toBe(0);
    expect(treeDigest(path.join(work, 'dst'))).toEqual(expected);
    const gets = proxy.log.filter((r) => r.url.startsWith(`/${BUCKET}/archives/site.tar.gz`));
    expect(gets).toHaveLength(3);
  });
});

describe('the bundled handler', () => {
  let handler: any;
  let mountPath: string;
  const saved = { ...process.env };

  beforeAll(() => {
    // The handler makes its S3 client when it is loaded, from the environment, as in Lambda.
    Object.assign(process.env, S3_ENV, { AWS_ENDPOINT_URL: proxy.endpoint, SEED_WORKERS: '2' });
    handler = require(path.join(__dirname, '..', '..', '..', 'dist', 'handlers', 'seed', 'index.js'));
  });
  afterAll(() => { process.env = saved; });
  beforeEach(() => {
    mountPath = `/mnt/cdk-efs-kit-test-${path.basename(work)}`;
    fs.symlinkSync(work, mountPath);
  });
  afterEach(() => fs.rmSync(mountPath, { force: true }));

  const props = (overrides: Record<string, string> = {}) => ({
    Bucket: BUCKET, Key: 'site/', Format: 's3-objects', Fingerprint: 'v1', MountPath: mountPath,
    TargetSubPath: 'www', Concurrency: '32', Prune: 'false', RemoveOnDelete: 'false', ...overrides,
  });
  /** A Create as the Provider framework drives it (a Create's failure comes from isComplete). */
  const create = (overrides: Record<string, string> = {}) =>
    seedCreate(handler, { RequestType: 'Create', LogicalResourceId: 'Seed', ResourceProperties: props(overrides) }, { getRemainingTimeInMillis: () => 900_000 });

  test('seeds S3 objects through stalls and 10% throttling, its workers fetching with clients of their own', async () => {
    proxy.rules = [
      { fault: 'stall', method: 'GET', url: /^\/faults\/site\/d3\//, times: 4 },
      { fault: 'slow-down', method: 'GET', url: OBJECT_GET, rate: 0.1 },
    ];
    const logged = jest.spyOn(console, 'log');
    try {
      const response = await create();
      expect(response.Data).toMatchObject({ Complete: 'true', Files: 154, Written: 154 });
      const slice = logged.mock.calls.map(([line]) => String(line)).find((line) => line.includes('"seed slice done"'));
      expect(JSON.parse(slice!).filesByWorker.every((n: number) => n > 0)).toBe(true);
    } finally {
      logged.mockRestore();
    }
    expect(treeDigest(path.join(work, 'www'))).toEqual(expected);
    expect(proxy.counts()).toMatchObject({ stall: 4 });
  });

  test('a zip asset read in place survives stalled and throttled ranged GETs', async () => {
    proxy.rules = [
      { fault: 'stall', method: 'GET', url: /^\/faults\/archives\/site\.zip/, times: 1 },
      { fault: 'slow-down', method: 'GET', url: /^\/faults\/archives\/site\.zip/, times: 2 },
    ];
    const response = await create({ Key: 'archives/site.zip', Format: 'zip' });
    expect(response.Data).toMatchObject({ Complete: 'true', Written: 154 });
    expect(treeDigest(path.join(work, 'www'))).toEqual(expected);
  });

  test('an object that always fails fails the resource naming it; a listing that always fails, naming the listing', async () => {
    proxy.rules = [{ fault: 'internal-error', method: 'GET', url: /^\/faults\/site\/d4\/o9\.txt/ }];
    await expect(create()).rejects.toThrow(`failed for 1 entry: d4/o9.txt: GET s3://${BUCKET}/site/d4/o9.txt failed 4 times: InternalError (HTTP 500)`);
    proxy.rules = [{ fault: 'internal-error', method: 'GET', url: LISTING }];
    await expect(create()).rejects.toThrow(`listing s3://${BUCKET}/site/ failed 4 times: InternalError (HTTP 500)`);
  });
});
