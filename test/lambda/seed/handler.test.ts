import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { describeWithFuse, EfsSim, startEfsSim } from '../../helpers/efs-sim';
import { Moto, startMoto } from '../../helpers/moto';
import { makeTree, tempDir, treeDigest, manifestPaths } from '../../helpers/seed-fixtures';
import { seedCreate } from '../../helpers/seed-create';

// The bundled seed handler, exactly the asset FileSystemSeed deploys (dist/handlers/seed), driven
// with CloudFormation-shaped events from the Provider framework, reading from moto's S3 on
// 127.0.0.1 and writing under /mnt/<name> as in Lambda (a symlink to a test directory).
let moto: Moto;
let handler: any;
let work: string;
let mountPath: string;
let fixtures: string;

beforeAll(async () => {
  moto = await startMoto();
  Object.assign(process.env, { AWS_ENDPOINT_URL: moto.endpoint, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' });
  handler = require(path.join(__dirname, '..', '..', '..', 'dist', 'handlers', 'seed', 'index.js'));
  const s3 = new S3Client(moto.clientConfig);
  await s3.send(new CreateBucketCommand({ Bucket: 'assets' }));
  fixtures = tempDir();
  const src = path.join(fixtures, 'site');
  makeTree(src, 8, 10);
  execFileSync('zip', ['-qr', path.join(fixtures, 'site.zip'), '.'], { cwd: src });
  await s3.send(new PutObjectCommand({ Bucket: 'assets', Key: 'asset-hash-1.zip', Body: fs.readFileSync(path.join(fixtures, 'site.zip')) }));
  fs.writeFileSync(path.join(src, 'dir-0', 'file-0.dat'), 'version two');
  execFileSync('zip', ['-qr', path.join(fixtures, 'site2.zip'), '.'], { cwd: src });
  await s3.send(new PutObjectCommand({ Bucket: 'assets', Key: 'asset-hash-2.zip', Body: fs.readFileSync(path.join(fixtures, 'site2.zip')) }));
});
afterAll(async () => {
  await moto.stop();
  fs.rmSync(fixtures, { recursive: true, force: true });
});

beforeEach(() => {
  work = tempDir();
  mountPath = `/mnt/cdk-efs-kit-test-${path.basename(work)}`;
  fs.symlinkSync(work, mountPath);
});
afterEach(() => {
  fs.rmSync(mountPath, { force: true });
  fs.rmSync(work, { recursive: true, force: true });
});

const props = (overrides: Record<string, string> = {}) => ({
  Bucket: 'assets', Key: 'asset-hash-1.zip', Format: 'zip', Fingerprint: 'asset-hash-1', MountPath: mountPath,
  TargetSubPath: 'www', Concurrency: '16', Prune: 'false', RemoveOnDelete: 'false', ...overrides,
});
const context = (remainingMs = 900_000) => ({ getRemainingTimeInMillis: () => remainingMs });

/** A Create as the Provider framework runs it: onEvent claims the place, isComplete copies. */
const create = (properties: object, ctx = context(), calls = 1) =>
  seedCreate(handler, { RequestType: 'Create', LogicalResourceId: 'Seed', ResourceProperties: properties }, ctx, calls);

test('Create claims the place in onEvent and copies from isComplete, reporting the counts', async () => {
  const event = { RequestType: 'Create', LogicalResourceId: 'Seed', ResourceProperties: props() };
  const claimed = await handler.onEvent(event, context());
  expect(claimed).toMatchObject({ PhysicalResourceId: `seed:${mountPath}/www`, Data: { Complete: 'false' } });
  expect(fs.readdirSync(path.join(work, 'www'))).toEqual(['.cdk-efs-kit']);
  expect(await handler.isComplete({ ...event, ...claimed }, context())).toMatchObject({ IsComplete: true, Data: { Complete: 'true', Files: 80, Written: 80 } });
  expect(Object.keys(treeDigest(path.join(work, 'www')))).toHaveLength(80);
});

test('Update with a new asset rewrites only what changed; Update without a source change does nothing', async () => {
  await create(props());
  const changed = props({ Key: 'asset-hash-2.zip', Fingerprint: 'asset-hash-2' });
  const update = await handler.onEvent({ RequestType: 'Update', ResourceProperties: changed, OldResourceProperties: props(), PhysicalResourceId: `seed:${mountPath}/www` }, context());
  expect(update.Data).toMatchObject({ Written: 1, Skipped: 79 });
  expect(fs.readFileSync(path.join(work, 'www', 'dir-0', 'file-0.dat'), 'utf8')).toBe('version two');

  const noop = await handler.onEvent({ RequestType: 'Update', ResourceProperties: { ...changed, Concurrency: '32' }, OldResourceProperties: changed }, context());
  expect(noop.Data).toEqual({ Complete: 'true' });
});

test('Delete leaves the data by default, and removes only what the seed wrote when asked', async () => {
  const { PhysicalResourceId } = await create(props());
  fs.writeFileSync(path.join(work, 'www', 'users-file.txt'), 'mine');
  fs.writeFileSync(path.join(work, 'www', 'dir-0', 'users-file.txt'), 'mine');
  await handler.onEvent({ RequestType: 'Delete', ResourceProperties: props(), PhysicalResourceId }, context());
  expect(Object.keys(treeDigest(path.join(work, 'www')))).toHaveLength(82);

  // The directories the seed's files were in go with them, unless something else is in them.
  await handler.onEvent({ RequestType: 'Delete', ResourceProperties: props({ RemoveOnDelete: 'true' }), PhysicalResourceId }, context());
  expect(Object.keys(treeDigest(path.join(work, 'www'))).sort()).toEqual(['dir-0/users-file.txt', 'users-file.txt']);
});

test('fails with a clear reason when the source is missing: a Create from isComplete, so that its rollback Delete reaches the handler', async () => {
  const event = { RequestType: 'Create', ResourceProperties: props({ Key: 'nope.zip' }) };
  const response = await handler.onEvent(event, context());
  expect(response.Data).toMatchObject({ Complete: 'false' });
  await expect(handler.isComplete({ ...event, ...response }, context())).rejects.toThrow(/NoSuchKey|does not exist/);
});

test('fails when the mount path is not /mnt/<name>', async () => {
  await expect(handler.onEvent({ RequestType: 'Create', ResourceProperties: props({ MountPath: '/etc' }) }, context()))
    .rejects.toThrow('MountPath must be /mnt/<name>, got "/etc"');
});

describeWithFuse('on efs-sim', () => {
  let sim: EfsSim;
  afterEach(async () => sim.stop());
  /** An efs-sim mount with `flags`, at the /mnt path the handler writes under. */
  const mountSim = async (flags: string[]) => {
    sim = await startEfsSim({ profile: 'efs-gp', flags });
    fs.rmSync(mountPath);
    fs.symlinkSync(sim.mount, mountPath);
  };

  /** Calls isComplete with 1-second slices, as the Provider framework would, until it says complete (at most 30 times); how many calls it took. */
  // A slice of 1 s gets less done on a busy machine: the bound is on calls, far above the few an idle one needs.
  const resumeUntilComplete = async (event: object) => {
    for (let calls = 1; calls <= 300; calls++) {
      if ((await handler.isComplete(event, context(61_000))).IsComplete) return calls;
    }
    throw new Error('still not complete after 300 calls');
  };

  test('runs out of time, checkpoints, and isComplete resumes until done', async () => {
    // 80 files, 4 at a time, 20 ms per operation: about 2 s of work, so 1 s per invocation needs several.
    await mountSim(['--latency-any=20']);
    // 60 s is the safety margin: 61 s remaining leaves 1 s of work per invocation.
    const slow = props({ Concurrency: '4' });
    const first = await handler.onEvent({ RequestType: 'Create', ResourceProperties: slow }, context(61_000));
    expect(first.Data.Complete).toBe('false');
    expect(await resumeUntilComplete({ RequestType: 'Create', ResourceProperties: slow, ...first })).toBeGreaterThan(1);
    const files = Object.keys(treeDigest(path.join(sim.mount, 'www')));
    expect(files).toHaveLength(80);
    expect(files.filter((f) => path.basename(f).startsWith('.cdk-efs-kit-tmp-'))).toEqual([]);
  }, 600_000);

  test('every slice stops by the deploy\'s time limit, whatever time the function has left, and the next call then fails the resource saying why', async () => {
    await mountSim(['--latency-any=20']);
    // A limit of 2 s from onEvent's start, with 15 minutes of function time: the limit is what stops the slice.
    const limited = props({ Concurrency: '4', TimeLimitSeconds: '2' });
    const started = Date.now();
    const first = await handler.onEvent({ RequestType: 'Create', ResourceProperties: limited }, context(900_000));
    expect(first.Data.Complete).toBe('false');
    expect(first.Data.Deadline).toBeGreaterThanOrEqual(started + 2000);
    const event = { RequestType: 'Create', ResourceProperties: limited, ...first };
    expect(await handler.isComplete(event, context(900_000))).toEqual({ IsComplete: false });
    expect(first.Data.Deadline).toBeLessThanOrEqual(Date.now());
    await expect(handler.isComplete(event, context(900_000))).rejects.toThrow(
      'seed: the copy did not finish within the deploy\'s time limit of 2 seconds (CloudFormation waits at most an hour for a custom resource). '
      + 'The files copied so far stay (unless removeOnDelete removes them as the stack rolls back), and the next deploy resumes where this one stopped.');
    // What was written stays, and the next run skips it (a busy machine may have written nothing in 2 s).
    const www = path.join(sim.mount, 'www');
    const recorded = fs.existsSync(path.join(www, '.cdk-efs-kit', 'seed-manifest.json')) ? manifestPaths(www).length : 0;
    const next = await create(props({ Concurrency: '4' }));
    expect(next.Data).toMatchObject({ Complete: 'true', Files: 80 });
    expect(next.Data.Skipped).toBeGreaterThanOrEqual(Math.min(recorded, 1));
  });

  test('removeOnDelete removes in slices that each stop before the function\'s time runs out, resuming where the last stopped', async () => {
    await mountSim(['--latency-any=20']);
    const slow = props({ Concurrency: '4', RemoveOnDelete: 'true' });
    const created = await create(slow);
    expect(created.Data.Complete).toBe('true');
    fs.writeFileSync(path.join(sim.mount, 'www', 'users-file.txt'), 'mine');
    // 62 s left, less the 60 s margin: two seconds per invocation, for 80 files one at a time, two
    // operations of 20 ms each (over three seconds): a loaded machine still removes some in the first.
    const removal = { ...slow, Concurrency: '1' };
    const first = await handler.onEvent({ RequestType: 'Delete', ResourceProperties: removal, PhysicalResourceId: created.PhysicalResourceId }, context(62_000));
    expect(first.Data.Complete).toBe('false');
    const left = manifestPaths(path.join(sim.mount, 'www')).length;
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(80);
    await resumeUntilComplete({ RequestType: 'Delete', ResourceProperties: removal, ...first });
    expect(fs.readdirSync(path.join(sim.mount, 'www'))).toEqual(['users-file.txt']);
  });

  test('a Create that runs out of time, then rolled back with RemoveOnDelete, leaves only what was there before', async () => {
    await mountSim(['--latency-any=20']);
    fs.mkdirSync(path.join(sim.mount, 'www'));
    fs.writeFileSync(path.join(sim.mount, 'www', 'users-file.txt'), 'mine');
    const slow = props({ Concurrency: '4', RemoveOnDelete: 'true' });
    const first = await create(slow, context(61_000));
    expect(first.Data.Complete).toBe('false');
    // The slice stopped with new directories still under their staging names.
    expect(fs.readdirSync(path.join(sim.mount, 'www')).filter((name) => name.startsWith('.cdk-efs-kit-new-')).length).toBeGreaterThan(0);

    const warnings = jest.spyOn(console, 'warn');
    try {
      await handler.onEvent({ RequestType: 'Delete', ResourceProperties: slow, PhysicalResourceId: first.PhysicalResourceId }, context());
      // Files in directories that were never published went with their staging directories: nothing to report.
      expect(warnings).not.toHaveBeenCalled();
    } finally {
      warnings.mockRestore();
    }
    expect(fs.readdirSync(path.join(sim.mount, 'www'))).toEqual(['users-file.txt']);
  });
});

describe('per-request settings (the seed\'s own, on a shared function)', () => {
  test('an Update that changes only the seed\'s timeout or concurrency copies nothing: they change how, not what', async () => {
    const before = props({ InvocationTimeoutSeconds: '900' });
    const { PhysicalResourceId } = await create(before);
    for (const after of [{ ...before, InvocationTimeoutSeconds: '300' }, { ...before, Concurrency: '128' }]) {
      const update = await handler.onEvent({ RequestType: 'Update', LogicalResourceId: 'Seed', ResourceProperties: after, OldResourceProperties: before, PhysicalResourceId }, context());
      expect(update).toEqual({ PhysicalResourceId, Data: { Complete: 'true' } });
    }
  });

  test.each(['60', '901', 'soon'])('fails, naming the property and its bounds, when InvocationTimeoutSeconds is %j, before anything is touched', async (value) => {
    const event = { RequestType: 'Create', LogicalResourceId: 'Seed', ResourceProperties: props({ InvocationTimeoutSeconds: value }) };
    await expect(handler.onEvent(event, context())).rejects.toThrow(`invalid seed properties: InvocationTimeoutSeconds must be a whole number of seconds from 120 to 900, got ${JSON.stringify(value)}`);
    expect(fs.readdirSync(work)).toEqual([]);
  });
});
