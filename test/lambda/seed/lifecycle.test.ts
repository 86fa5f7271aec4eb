import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { execFileSync, spawn } from 'child_process';
import { randomUUID } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AccessPointPreset, SeedEngine, SeedSource, SharedFileSystem } from '../../../lib';
import { describeWithFuse, EfsSim, startEfsSim } from '../../helpers/efs-sim';
import { lambdaMountOf, removeLambdaMounts } from '../../helpers/lambda-mount';
import { Moto, startMoto } from '../../helpers/moto';
import { CloudFormationStandIn, startCloudFormationStandIn } from '../../helpers/cloudformation-stand-in';
import { CfnRequest, CfnResponse, CREATE_FAILED_PHYSICAL_ID_MARKER, ProviderFramework } from '../../helpers/provider-framework';
import { resolveTokens } from '../../helpers/seed-run-template';
import { makeTree, manifestPaths, tempDir, treeDigest } from '../../helpers/seed-fixtures';

// The single-function seed under CloudFormation: event sequences exactly as CloudFormation sends
// them, through aws-cdk-lib's own Provider framework code (test/helpers/provider-framework.ts: a
// Create that fails in onEvent answers with the framework's CREATE_FAILED marker and its Delete never
// reaches the handler; isComplete sees onEvent's physical id and Data), to the bundled handler (the
// asset FileSystemSeed deploys), with ResourceProperties from FileSystemSeed's synthesized template,
// reading archives from moto's S3 on 127.0.0.1 and writing to real directories under /mnt/<name> (an
// access point's root, as Lambda mounts it), on efs-sim where slices must be slow. The stack's
// resources, which a Delete reads, are a CloudFormation stand-in's (test/helpers/cloudformation-stand-in.ts):
// each Stackish puts its resource there as CloudFormation would list it. Each test ends by
// comparing the tree with the source it should hold, byte for byte.

let moto: Moto;
let cloudFormation: CloudFormationStandIn;
let handler: any;
let work: string;
const SOURCES = { v1: '', v2: '', bad: '' };

beforeAll(async () => {
  moto = await startMoto();
  cloudFormation = await startCloudFormationStandIn({ pageSize: 2 });
  Object.assign(process.env, {
    AWS_ENDPOINT_URL: moto.endpoint, AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.url, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1',
  });
  handler = require(path.join(__dirname, '..', '..', '..', 'dist', 'handlers', 'seed', 'index.js'));
  work = tempDir('lifecycle-');
  const client = new S3Client(moto.clientConfig);
  await client.send(new CreateBucketCommand({ Bucket: 'assets' }));
  // v1: 6 directories of 50 files, x.html and b/x.html (a directory named as a nested target is, so that
  // a seed moved from /a to /a/b writes its x.html over /a's b/x.html) and old/ (250
  // small files); v2 changes dir-0, drops dir-5 and old/, and adds added/ (250 files); bad holds a name
  // the seed refuses among good files.
  SOURCES.v1 = path.join(work, 'v1');
  makeTree(SOURCES.v1, 6, 50, [64, 512]);
  fs.mkdirSync(path.join(SOURCES.v1, 'b'));
  fs.writeFileSync(path.join(SOURCES.v1, 'x.html'), 'x v1');
  fs.writeFileSync(path.join(SOURCES.v1, 'b', 'x.html'), 'b/x v1');
  makeTree(path.join(SOURCES.v1, 'old'), 5, 50, [16, 32]);
  SOURCES.v2 = path.join(work, 'v2');
  fs.cpSync(SOURCES.v1, SOURCES.v2, { recursive: true });
  for (const name of fs.readdirSync(path.join(SOURCES.v2, 'dir-0'))) fs.writeFileSync(path.join(SOURCES.v2, 'dir-0', name), `v2 ${name}`);
  fs.rmSync(path.join(SOURCES.v2, 'dir-5'), { recursive: true });
  fs.rmSync(path.join(SOURCES.v2, 'old'), { recursive: true });
  makeTree(path.join(SOURCES.v2, 'added'), 5, 50, [64, 128]);
  for (const version of ['v1', 'v2'] as const) {
    execFileSync('zip', ['-qr', path.join(work, `${version}.zip`), '.'], { cwd: SOURCES[version] });
    await client.send(new PutObjectCommand({ Bucket: 'assets', Key: `${version}.zip`, Body: fs.readFileSync(path.join(work, `${version}.zip`)) }));
  }
  execFileSync('python3', ['-c', `
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    for i in range(50): z.writestr(f'good/{i}.txt', f'good {i}')
    z.writestr('../evil.txt', 'refused')
`, path.join(work, 'bad.zip')]);
  await client.send(new PutObjectCommand({ Bucket: 'assets', Key: 'bad.zip', Body: fs.readFileSync(path.join(work, 'bad.zip')) }));
  if (!process.env.SHOW_LOGS) jest.spyOn(console, 'log').mockImplementation(() => undefined);
  if (!process.env.SHOW_LOGS) jest.spyOn(console, 'warn').mockImplementation(() => undefined);
}, 120_000);

afterAll(async () => {
  removeLambdaMounts();
  await moto.stop();
  await cloudFormation.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/**
 * One invocation of the bundled handler in a process of its own, killed (SIGKILL) after `timeoutMs`
 * as Lambda ends an invocation at its timeout: then it fails as Lambda reports it, "Task timed out".
 */
function invokeIsolated(name: 'onEvent' | 'isComplete', event: unknown, timeoutMs: number): Promise<unknown> {
  const bundle = path.join(__dirname, '..', '..', '..', 'dist', 'handlers', 'seed', 'index.js');
  const script = `const handler = require(${JSON.stringify(bundle)});
process.on('message', (event) => handler[${JSON.stringify(name)}](event, { getRemainingTimeInMillis: () => 900000 })
  .then((result) => process.send({ result }), (err) => process.send({ error: err.message })));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'], env: process.env });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`));
    }, timeoutMs);
    child.on('message', (answer: { result?: unknown; error?: string }) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      if (answer.error !== undefined) reject(new Error(answer.error)); else resolve(answer.result);
    });
    child.send(event as object);
  });
}

/** What a user deploys: which source, through which access point (root directory), where under it. */
interface Deploy {
  readonly version?: 'v1' | 'v2' | 'bad';
  readonly accessPoint?: string;
  readonly targetPath?: string;
  readonly fileSystem?: string;
  readonly removeOnDelete?: boolean;
  readonly prune?: boolean;
  readonly concurrency?: number;
  /** Another engine than the single function: its resource's Metadata only (they copy S3 objects, not archives). */
  readonly engine?: 'distributedMap' | 'dataSync';
}

const templates = new Map<string, Record<string, any>>();

/** The seed's ResourceProperties for `deploy`, from FileSystemSeed's synthesized template, as CloudFormation sends them. */
function propertiesOf(deploy: Deploy, root: string): Record<string, any> {
  // Lambda mounts the access point's root at /mnt/seed; here each root is a directory of its own, under /mnt.
  return { ...resourceOf(deploy).Properties, MountPath: mountOf(root, deploy) };
}

/** The seed's resource in FileSystemSeed's synthesized template (Type, Properties, Metadata), its tokens resolved as CloudFormation would. */
function resourceOf(deploy: Deploy): Record<string, any> {
  const key = JSON.stringify({ ...deploy, fileSystem: undefined });
  if (!templates.has(key)) {
    const stack = new Stack(new App(), 'Test');
    const files = new SharedFileSystem(stack, 'Files', { vpc: new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 }) });
    const accessPoint = files.addAccessPoint(deploy.accessPoint ?? 'Web', AccessPointPreset.applicationUser(`/${(deploy.accessPoint ?? 'Web').toLowerCase()}`));
    const version = deploy.version ?? 'v1';
    const bucket = new s3.Bucket(stack, 'Assets');
    const engine = deploy.engine && SeedEngine[deploy.engine]();
    files.addSeed('Content', {
      accessPoint, source: engine ? SeedSource.s3(bucket, version) : SeedSource.archive(bucket, `${version}.zip`, { version }), engine,
      targetPath: deploy.targetPath ?? '/www', removeOnDelete: deploy.removeOnDelete, prune: deploy.prune, concurrency: deploy.concurrency,
    });
    const [seed] = Object.values<any>(Template.fromStack(stack).findResources(engine ? `Custom::CdkEfsKit${deploy.engine === 'dataSync' ? 'DataSync' : 'DistributedMap'}Seed` : 'Custom::CdkEfsKitSeed'));
    templates.set(key, seed);
  }
  const resources: Record<string, string> = { Files: deploy.fileSystem ?? 'fs-0123456789abcdef0', Assets: 'assets' };
  return resolveTokens(templates.get(key), (id) => {
    const match = Object.keys(resources).find((prefix) => id.startsWith(prefix) && !id.includes('AccessPoint') && !id.includes('Web'));
    if (match) return resources[match];
    // An access point's id, stable per logical id.
    return `fsap-${Buffer.from(id).toString('hex').slice(0, 17)}`;
  });
}

/** The access point's root directory as the seed function sees it: /mnt/<name>, a link to `root`/<file system>/<access point>. */
function mountOf(root: string, deploy: Deploy): string {
  return lambdaMountOf(path.join(root, deploy.fileSystem ?? 'fs-0123456789abcdef0', (deploy.accessPoint ?? 'Web').toLowerCase()), 'cdk-efs-kit-lifecycle');
}

/** Where a deploy's files land, as a path of the test. */
const placeOf = (root: string, deploy: Deploy) => path.join(root, deploy.fileSystem ?? 'fs-0123456789abcdef0', (deploy.accessPoint ?? 'Web').toLowerCase(), ...(deploy.targetPath ?? '/www').split('/').filter(Boolean));

/** A tree without the seed's own state. */
const content = (dir: string) => Object.fromEntries(Object.entries(fs.existsSync(dir) ? treeDigest(dir) : {}).filter(([name]) => !name.startsWith('.cdk-efs-kit')));

/** Each test's stack: the stand-in lists the resources of one stack, and no test sees another's. */
let testStack = '';
beforeEach(() => { testStack = `arn:aws:cloudformation:us-east-1:123456789012:stack/Test/${randomUUID()}`; });

/**
 * The stack's CloudFormation: it sends requests to the seed through the Provider framework, keeps its
 * physical id, and lists its resource in the stack's resources as it goes (CREATE_COMPLETE,
 * UPDATE_COMPLETE, DELETE_IN_PROGRESS while its Delete runs, then DELETE_COMPLETE).
 */
class Stackish {
  readonly framework: ProviderFramework;
  physicalId = '';
  constructor(readonly root: string, remainingMs = 900_000, readonly logicalId = 'Content', readonly stackId = testStack) {
    const context = { getRemainingTimeInMillis: () => remainingMs };
    this.framework = new ProviderFramework({ onEvent: (e) => handler.onEvent(e, context), isComplete: (e) => handler.isComplete(e, context) }, logicalId, stackId);
  }

  request(type: CfnRequest['RequestType'], deploy: Deploy, old?: Deploy, physicalId = this.physicalId): CfnRequest {
    return {
      RequestType: type, RequestId: randomUUID(), ResourceProperties: propertiesOf(deploy, this.root),
      ...old ? { OldResourceProperties: propertiesOf(old, this.root) } : {}, ...type === 'Create' ? {} : { PhysicalResourceId: physicalId },
    };
  }

  async deliver(request: CfnRequest, deploy?: Deploy): Promise<CfnResponse> {
    if (request.RequestType === 'Delete') this.listed('DELETE_IN_PROGRESS', deploy);
    const response = await this.framework.deliver(request);
    if (response.Status === 'SUCCESS' && request.RequestType !== 'Delete') this.physicalId = response.PhysicalResourceId;
    if (response.Status === 'SUCCESS') this.listed(request.RequestType === 'Delete' ? 'DELETE_COMPLETE' : `${request.RequestType.toUpperCase()}_COMPLETE`, deploy);
    return response;
  }

  create = (deploy: Deploy) => this.deliver(this.request('Create', deploy), deploy);
  update = (deploy: Deploy, old: Deploy) => this.deliver(this.request('Update', deploy, old), deploy);
  /** The Delete CloudFormation sends for a physical id it no longer needs (after a replacement) or for the stack. */
  remove = (deploy: Deploy, physicalId = this.physicalId) =>
    // The Delete of an old physical id after an Update (a new place) leaves the resource listed as updated.
    this.deliver(this.request('Delete', deploy, undefined, physicalId), physicalId === this.physicalId ? deploy : undefined);

  private listed(status: string, deploy: Deploy | undefined): void {
    if (deploy) cloudFormation.put(this.stackId, { logicalId: this.logicalId, type: 'Custom::CdkEfsKitSeed', physicalId: this.physicalId, status, metadata: resourceOf(deploy).Metadata });
  }
}

describe('on a local disk', () => {
  let root: string;
  beforeEach(() => { root = fs.mkdtempSync(path.join(work, 'fs-')); });

  test.each([
    ['a new access point', { accessPoint: 'Web2' }],
    ['a replaced file system', { fileSystem: 'fs-0fedcba9876543210' }],
  ])('%s is a new place: the Update seeds it (a new physical id), and the old place\'s Delete removes only its own', async (_what, change) => {
    const cfn = new Stackish(root);
    const before: Deploy = { removeOnDelete: true };
    const after: Deploy = { ...before, ...change };
    expect(propertiesOf(before, root)).not.toEqual(propertiesOf(after, root));
    expect(await cfn.create(before)).toMatchObject({ Status: 'SUCCESS' });
    const oldId = cfn.physicalId;
    expect(await cfn.update(after, before)).toMatchObject({ Status: 'SUCCESS' });
    expect(cfn.physicalId).not.toBe(oldId);
    expect(content(placeOf(root, after))).toEqual(treeDigest(SOURCES.v1));
    // CloudFormation's clean-up: the Delete of the old physical id, with the old properties.
    expect(await cfn.remove(before, oldId)).toMatchObject({ Status: 'SUCCESS' });
    expect(content(placeOf(root, before))).toEqual({});
    expect(content(placeOf(root, after))).toEqual(treeDigest(SOURCES.v1));
  });

  test.each([['/a/b', '/a'], ['/a', '/a/b']])('moving targetPath from %s to %s keeps the new content through the old place\'s Delete', async (from, to) => {
    const cfn = new Stackish(root);
    const before: Deploy = { targetPath: from, removeOnDelete: true };
    const after: Deploy = { targetPath: to, removeOnDelete: true };
    await cfn.create(before);
    const oldId = cfn.physicalId;
    expect(await cfn.update(after, before)).toMatchObject({ Status: 'SUCCESS' });
    expect(cfn.physicalId).not.toBe(oldId);
    expect(await cfn.remove(before, oldId)).toMatchObject({ Status: 'SUCCESS' });
    expect(content(placeOf(root, after))).toMatchObject(treeDigest(SOURCES.v1));
    // A redeploy with no change changes nothing.
    expect(await cfn.update(after, after)).toMatchObject({ Status: 'SUCCESS', Data: { Complete: 'true' } });
    expect(content(placeOf(root, after))).toMatchObject(treeDigest(SOURCES.v1));
  });

  test.each([['/a/b', '/a'], ['/a', '/a/b']])('rolling back a move from %s to %s ends on the old content, through the new place\'s Delete', async (from, to) => {
    const cfn = new Stackish(root);
    const before: Deploy = { targetPath: from, removeOnDelete: true };
    const after: Deploy = { targetPath: to, removeOnDelete: true };
    await cfn.create(before);
    const oldId = cfn.physicalId;
    await cfn.update(after, before);
    const newId = cfn.physicalId;
    // Another resource failed: CloudFormation rolls the seed back with the old properties, then deletes the new physical id.
    const rolledBack = await cfn.deliver(cfn.request('Update', before, after, newId));
    expect(rolledBack).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: oldId });
    if (to === '/a/b') {
      // /a/b's x.html replaced /a's b/x.html: the rollback checks it is still the file /a wrote (it is not) and writes it again.
      expect(Number(rolledBack.Data?.Written)).toBeGreaterThanOrEqual(1);
      expect(fs.readFileSync(path.join(placeOf(root, before), 'b', 'x.html'), 'utf8')).toBe('b/x v1');
    }
    // The Delete of /a/b removes only what is still as it wrote it: /a's x.html, rewritten, stays.
    expect(await cfn.remove(after, newId)).toMatchObject({ Status: 'SUCCESS' });
    expect(content(placeOf(root, before))).toMatchObject(treeDigest(SOURCES.v1));
    // Every file of the old place holds the old content (the Update checks content, not presence).
    for (const [name, digest] of Object.entries(treeDigest(SOURCES.v1))) expect([name, content(placeOf(root, before))[name]]).toEqual([name, digest]);
  });

  test('a Create that fails in its first slice, with removeOnDelete, leaves nothing: the rollback\'s Delete reaches the handler', async () => {
    const cfn = new Stackish(root);
    const deploy: Deploy = { version: 'bad', removeOnDelete: true };
    const created = await cfn.deliver(cfn.request('Create', deploy));
    expect(created).toMatchObject({ Status: 'FAILED', Reason: expect.stringMatching(/refused "\.\.\/evil\.txt"/) });
    // Not the framework's CREATE_FAILED marker, whose Delete would never reach the handler.
    expect(created.PhysicalResourceId).not.toBe(CREATE_FAILED_PHYSICAL_ID_MARKER);
    expect(content(placeOf(root, deploy))).not.toEqual({});
    expect(await cfn.remove(deploy, created.PhysicalResourceId)).toMatchObject({ Status: 'SUCCESS' });
    expect(content(placeOf(root, deploy))).toEqual({});
  });

  test.each([
    // What the seed can still reach it removes (RemoveOnDelete is 'true'); what it cannot, it leaves, and succeeds.
    ['an unreadable TimeLimitSeconds', { TimeLimitSeconds: 'soon' }, true],
    ['an older version\'s MountPath layout', { MountPath: '/mnt/seed/www' }, false],
    ['no Concurrency', { Concurrency: undefined }, true],
    ['a Concurrency today\'s checks refuse', { Concurrency: '100000' }, true],
  ])('a Delete with %s never sticks', async (_what, overrides, removes) => {
    const cfn = new Stackish(root);
    const deploy: Deploy = { removeOnDelete: true };
    await cfn.create(deploy);
    const request = cfn.request('Delete', deploy);
    const response = await cfn.deliver({ ...request, ResourceProperties: { ...request.ResourceProperties, ...overrides } });
    expect(response).toMatchObject({ Status: 'SUCCESS' });
    expect(content(placeOf(root, deploy))).toEqual(removes ? {} : treeDigest(SOURCES.v1));
  });

  test('an Update whose only change is the ServiceToken (the seed moved onto shared handlers) claims nothing and copies nothing', async () => {
    const cfn = new Stackish(root);
    const deploy: Deploy = { removeOnDelete: true };
    expect(await cfn.create(deploy)).toMatchObject({ Status: 'SUCCESS' });
    // The place's state: the manifest (what was copied) and the claim (which request owns the place).
    const state = path.join(placeOf(root, deploy), '.cdk-efs-kit');
    const before = treeDigest(state);
    const request = cfn.request('Update', deploy, deploy);
    const moved = {
      ...request,
      ResourceProperties: { ...request.ResourceProperties, ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:Test-CdkEfsKitSeedSingleFunction-onEvent' },
      OldResourceProperties: { ...request.OldResourceProperties, ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:Test-FilesContentProvider-onEvent' },
    };
    expect(await cfn.deliver(moved)).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: cfn.physicalId, Data: { Complete: 'true' } });
    expect(treeDigest(state)).toEqual(before);
    expect(content(placeOf(root, deploy))).toEqual(treeDigest(SOURCES.v1));
  });

  test('a seed renamed in its stack (a new logical id, the same place) keeps its files through the old resource\'s Delete', async () => {
    const root = tempDir('lifecycle-renamed-');
    const deploy: Deploy = { removeOnDelete: true };
    const before = new Stackish(root, undefined, 'Content');
    expect((await before.create(deploy)).Status).toBe('SUCCESS');
    // CloudFormation creates the renamed resource, then deletes the old logical id in its cleanup.
    const renamed = new Stackish(root, undefined, 'SiteContent');
    expect((await renamed.create(deploy)).Status).toBe('SUCCESS');
    expect(renamed.physicalId).toBe(before.physicalId);
    expect((await before.remove(deploy)).Status).toBe('SUCCESS');
    expect(content(placeOf(root, deploy))).toEqual(treeDigest(SOURCES.v1));
    // The renamed resource still owns the place: its own Delete removes the files.
    expect((await renamed.remove(deploy)).Status).toBe('SUCCESS');
    expect(content(placeOf(root, deploy))).toEqual({});
  });

  test('a seed moved to another access point (a new logical id, on a provider of its own) leaves the old place empty through the old resource\'s Delete', async () => {
    const root = tempDir('lifecycle-new-access-point-');
    const before: Deploy = { removeOnDelete: true };
    const after: Deploy = { removeOnDelete: true, accessPoint: 'Web2' };
    // The construct gives the seed on the new access point the logical id <seed>/ResourceVia<kind><hash> and a
    // provider whose function mounts the new access point; the old resource keeps its provider, which still mounts the old one.
    const old = new Stackish(root, undefined, 'Content');
    expect((await old.create(before)).Status).toBe('SUCCESS');
    const replacement = new Stackish(root, undefined, 'ContentResourceViaAccessPoint0123abcd');
    expect((await replacement.create(after)).Status).toBe('SUCCESS');
    expect(replacement.physicalId).not.toBe(old.physicalId);
    // CloudFormation's cleanup: the old logical id's Delete, through the old provider, with the old properties.
    expect((await old.remove(before)).Status).toBe('SUCCESS');
    expect(fs.existsSync(placeOf(root, before))).toBe(false);
    expect(content(placeOf(root, after))).toEqual(treeDigest(SOURCES.v1));
  });

  // An engine change (single-function to Distributed Map or DataSync, the same place) is a new logical id
  // (<seed>/ResourceVia<kind><hash>): the new engine copies into the place without the single-function seed's
  // claim or manifest (DataSync cannot write them, and skips files whose size and time already match), so the
  // old resource's cleanup Delete asks CloudFormation which seeds of its stack are live, and reads the place
  // each serves from its Metadata.
  test.each(['distributedMap', 'dataSync'] as const)('a seed moved to the %s engine on the same place keeps its files through the old single-function resource\'s Delete', async (engine) => {
    const root = tempDir('lifecycle-engine-change-');
    const deploy: Deploy = { removeOnDelete: true };
    const old = new Stackish(root, undefined, 'ContentResourceViaSingleFunction0123abcd');
    expect((await old.create(deploy)).Status).toBe('SUCCESS');
    // The new engine's resource, as the synthesized template gives it: its Metadata names the place the old physical id does.
    const next = resourceOf({ engine });
    expect(next.Metadata['cdk-efs-kit:seedPlace']).toBe(old.physicalId);
    cloudFormation.put(old.stackId, { logicalId: 'ContentRun0123abcd', type: next.Type, physicalId: 'run', status: 'CREATE_COMPLETE', metadata: next.Metadata });
    // Its run (DataSync, TransferMode CHANGED) finds every file as the source has it and writes none.
    // CloudFormation's cleanup: the old logical id's Delete, through the old provider, with the old properties.
    const asked = cloudFormation.requests.length;
    expect((await old.remove(deploy)).Status).toBe('SUCCESS');
    expect(content(placeOf(root, deploy))).toEqual(treeDigest(SOURCES.v1));
    expect(cloudFormation.requests.slice(asked).map((r) => r.action)).toEqual(expect.arrayContaining(['ListStackResources', 'DescribeStackResource']));
    expect(cloudFormation.requests.slice(asked).every((r) => r.stackName === old.stackId)).toBe(true);
    // Back to the single function (a new resource claims the place), then the new engine's resource leaves: the files stay the seed's to remove.
    cloudFormation.status(old.stackId, 'ContentRun0123abcd', 'DELETE_COMPLETE');
    const back = new Stackish(root, undefined, 'ContentResourceViaSingleFunction4567ef01');
    expect((await back.create(deploy)).Status).toBe('SUCCESS');
    expect((await back.remove(deploy)).Status).toBe('SUCCESS');
    expect(content(placeOf(root, deploy))).toEqual({});
  });

  test('a live seed of the stack on a place nested in this one\'s keeps this one\'s files; one being deleted does not', async () => {
    const root = tempDir('lifecycle-engine-nested-');
    const deploy: Deploy = { targetPath: '/www', removeOnDelete: true };
    const old = new Stackish(root, undefined, 'Content');
    expect((await old.create(deploy)).Status).toBe('SUCCESS');
    const nested = resourceOf({ targetPath: '/www/b', engine: 'distributedMap' });
    cloudFormation.put(old.stackId, { logicalId: 'NestedRun', type: nested.Type, status: 'DELETE_IN_PROGRESS', metadata: nested.Metadata });
    cloudFormation.put(old.stackId, { logicalId: 'Other', type: 'AWS::S3::Bucket', status: 'CREATE_COMPLETE', metadata: nested.Metadata });
    // Another access point's place, and the nested seed on its way out: nothing serves this place, and the Delete removes it.
    const elsewhere = resourceOf({ accessPoint: 'Web2', engine: 'dataSync' });
    cloudFormation.put(old.stackId, { logicalId: 'ElsewhereRun', type: elsewhere.Type, status: 'CREATE_COMPLETE', metadata: elsewhere.Metadata });
    expect((await old.remove(deploy)).Status).toBe('SUCCESS');
    expect(content(placeOf(root, deploy))).toEqual({});
    // Once it is live, the nested seed's files are under this place: its Delete leaves them all.
    expect((await old.create(deploy)).Status).toBe('SUCCESS');
    cloudFormation.status(old.stackId, 'NestedRun', 'UPDATE_COMPLETE');
    expect((await old.remove(deploy)).Status).toBe('SUCCESS');
    expect(content(placeOf(root, deploy))).toEqual(treeDigest(SOURCES.v1));
  });

  test('a Delete that cannot reach CloudFormation leaves the files, and says why', async () => {
    const root = tempDir('lifecycle-no-cloudformation-');
    const deploy: Deploy = { removeOnDelete: true };
    const cfn = new Stackish(root);
    expect((await cfn.create(deploy)).Status).toBe('SUCCESS');
    const warn = jest.spyOn(console, 'warn');
    // A port nothing listens on: each request is refused at once, and the SDK's retries end.
    const closed = await startCloudFormationStandIn();
    await closed.close();
    process.env.AWS_ENDPOINT_URL_CLOUDFORMATION = closed.url;
    try {
      expect((await cfn.remove(deploy)).Status).toBe('SUCCESS');
    } finally {
      process.env.AWS_ENDPOINT_URL_CLOUDFORMATION = cloudFormation.url;
    }
    expect(content(placeOf(root, deploy))).toEqual(treeDigest(SOURCES.v1));
    expect(warn.mock.calls.map(([line]) => String(line)).join('\n')).toContain('could not tell whether another seed resource of the stack serves the place: its files stay');
  });

  test('a rename rolled back (the new resource deleted, the old one kept) leaves the old resource its content, which its own Delete still removes', async () => {
    const root = tempDir('lifecycle-rename-rollback-');
    const deploy: Deploy = { removeOnDelete: true };
    const before = new Stackish(root, undefined, 'Content');
    expect((await before.create(deploy)).Status).toBe('SUCCESS');
    const renamed = new Stackish(root, undefined, 'SiteContent');
    expect((await renamed.create(deploy)).Status).toBe('SUCCESS');
    // Another resource of the deploy fails: CloudFormation deletes the new resource and keeps the old one.
    expect((await renamed.remove(deploy)).Status).toBe('SUCCESS');
    expect(content(placeOf(root, deploy))).toEqual(treeDigest(SOURCES.v1));
    expect((await before.remove(deploy)).Status).toBe('SUCCESS');
    expect(content(placeOf(root, deploy))).toEqual({});
  });

  test('a twin stack seeding a live place of another stack fails its Create naming both, and takes the place once the other released it', async () => {
    const root = tempDir('lifecycle-twins-');
    const deploy: Deploy = {};
    const blue = new Stackish(root, undefined, 'Content', 'arn:aws:cloudformation:us-east-1:123456789012:stack/Blue/11111111-1111-1111-1111-111111111111');
    const green = new Stackish(root, undefined, 'Content', 'arn:aws:cloudformation:us-east-1:123456789012:stack/Green/22222222-2222-2222-2222-222222222222');
    expect((await blue.create(deploy)).Status).toBe('SUCCESS');
    const refused = await green.create({ removeOnDelete: true });
    expect(refused).toMatchObject({ Status: 'FAILED', PhysicalResourceId: CREATE_FAILED_PHYSICAL_ID_MARKER });
    expect(refused.Reason).toContain(`seed: ${blue.physicalId} is the place of resource Content of stack Blue (arn:aws:cloudformation:us-east-1:123456789012:stack/Blue/`);
    expect(refused.Reason).toContain('so resource Content of stack Green (arn:aws:cloudformation:us-east-1:123456789012:stack/Green/');
    expect(content(placeOf(root, deploy))).toEqual(treeDigest(SOURCES.v1));
    // Blue deleted without removing its content: the place is released, and green may seed it.
    expect((await blue.remove(deploy)).Status).toBe('SUCCESS');
    expect((await green.create({ removeOnDelete: true })).Status).toBe('SUCCESS');
    expect(content(placeOf(root, deploy))).toEqual(treeDigest(SOURCES.v1));
  });

  test('deleting seeds (removeOnDelete) removes the directories of their places they made, once empty; not one that was there before', async () => {
    const first: Deploy = { targetPath: '/sites/a', removeOnDelete: true };
    const second: Deploy = { targetPath: '/sites/b', removeOnDelete: true };
    const accessPointRoot = placeOf(root, { targetPath: '/' });
    fs.mkdirSync(path.join(accessPointRoot, 'kept'), { recursive: true });
    const third: Deploy = { targetPath: '/kept', removeOnDelete: true };
    const stacks = [new Stackish(root), new Stackish(root), new Stackish(root)];
    const deploys = [first, second, third];
    for (const [i, deploy] of deploys.entries()) expect(await stacks[i].create(deploy)).toMatchObject({ Status: 'SUCCESS' });
    // Deleted in reverse: /sites, made by the first seed, is empty once its Delete comes (a parent shared
    // with a seed that is still there stays: only the seed that made a directory removes it).
    for (const [i, deploy] of [...deploys.entries()].reverse()) expect(await stacks[i].remove(deploy)).toMatchObject({ Status: 'SUCCESS' });
    // /sites/a, /sites/b and /sites were the seeds'; /kept was there before.
    expect(fs.readdirSync(accessPointRoot).sort()).toEqual(['kept']);
    expect(fs.readdirSync(path.join(accessPointRoot, 'kept'))).toEqual([]);
  });

  test.each(['the maker first', 'the maker last', 'at once'])('a parent one seed made and another uses is removed by the last Delete that empties it (%s)', async (order) => {
    const maker: Deploy = { targetPath: '/sites/a', removeOnDelete: true };
    const user: Deploy = { targetPath: '/sites/b', removeOnDelete: true };
    const accessPointRoot = placeOf(root, { targetPath: '/' });
    fs.mkdirSync(accessPointRoot, { recursive: true });
    fs.writeFileSync(path.join(accessPointRoot, 'kept.txt'), 'not the seeds\'');
    const [a, b] = [new Stackish(root, undefined, 'SiteA'), new Stackish(root, undefined, 'SiteB')];
    expect(await a.create(maker)).toMatchObject({ Status: 'SUCCESS' });
    expect(await b.create(user)).toMatchObject({ Status: 'SUCCESS' });
    // Two resources of one stack on one provider (the same access point): its one framework, each
    // invocation in an execution environment of its own, so that Deletes at once truly run side by side.
    const isolated = (name: 'onEvent' | 'isComplete') => (event: unknown) => invokeIsolated(name, event, 600_000);
    const provider = new ProviderFramework({ onEvent: isolated('onEvent'), isComplete: isolated('isComplete') }, 'SiteA', a.stackId);
    const removeA = () => provider.deliver(a.request('Delete', maker));
    const removeB = () => provider.deliver({ ...b.request('Delete', user), LogicalResourceId: 'SiteB' });
    const deletes = order === 'at once' ? await Promise.all([removeA(), removeB()])
      : order === 'the maker first' ? [await removeA(), await removeB()] : [await removeB(), await removeA()];
    expect(deletes).toMatchObject([{ Status: 'SUCCESS' }, { Status: 'SUCCESS' }]);
    expect(fs.readdirSync(accessPointRoot)).toEqual(['kept.txt']);
  });

  test('two seeds on one access point served by the same handler: each fills and keeps its own place', async () => {
    // One handler module for both resources, as one shared function serves both: its requests
    // alternate between the two (a warm Lambda environment keeps module state between invocations;
    // concurrent ones run in environments of their own). Each resource has its own requests and physical id.
    const site = new Stackish(root);
    const docs = new Stackish(root);
    const siteDeploy: Deploy = { targetPath: '/site', removeOnDelete: true };
    const docsDeploy: Deploy = { targetPath: '/docs', removeOnDelete: true, prune: true };
    expect(await site.create(siteDeploy)).toMatchObject({ Status: 'SUCCESS' });
    expect(await docs.create(docsDeploy)).toMatchObject({ Status: 'SUCCESS' });
    expect(site.physicalId).not.toBe(docs.physicalId);
    expect(content(placeOf(root, siteDeploy))).toEqual(treeDigest(SOURCES.v1));
    expect(content(placeOf(root, docsDeploy))).toEqual(treeDigest(SOURCES.v1));
    // One seed's new source (pruned), then the other's Delete: neither touches the other's place.
    expect(await docs.update({ ...docsDeploy, version: 'v2' }, docsDeploy)).toMatchObject({ Status: 'SUCCESS' });
    expect(content(placeOf(root, siteDeploy))).toEqual(treeDigest(SOURCES.v1));
    expect(await site.remove(siteDeploy)).toMatchObject({ Status: 'SUCCESS' });
    expect(content(placeOf(root, siteDeploy))).toEqual({});
    expect(content(placeOf(root, docsDeploy))).toEqual(treeDigest(SOURCES.v2));
  });
});

describeWithFuse('on efs-sim, with copies that take several slices', () => {
  let sim: EfsSim;
  let root: string;
  beforeAll(async () => { sim = await startEfsSim({ profile: 'efs-gp', flags: ['--latency-any=20'] }); });
  afterAll(async () => sim.stop());
  beforeEach(() => { root = fs.mkdtempSync(path.join(sim.mount, 'fs-')); });
  /** Where `at` on the mount is stored: the checks read the tree there, without the mount's latency. */
  const stored = (at: string) => path.join(sim.backing, path.relative(sim.mount, at));

  test('two seeds on one function, prune false, roll back to exactly the old content whichever finished its forward Update', async () => {
    const siteV1: Deploy = { targetPath: '/site' };
    const docsV1: Deploy = { targetPath: '/docs' };
    const v2 = (deploy: Deploy): Deploy => ({ ...deploy, version: 'v2', concurrency: 2 });
    const site = new Stackish(root);
    const docs = new Stackish(root);
    expect(await site.create(siteV1)).toMatchObject({ Status: 'SUCCESS' });
    expect(await docs.create(docsV1)).toMatchObject({ Status: 'SUCCESS' });
    // The deploy updates both: site's forward Update finishes; docs' has done a slice (a second of work) and goes on.
    expect(await site.update(v2(siteV1), siteV1)).toMatchObject({ Status: 'SUCCESS' });
    expect(content(stored(placeOf(root, siteV1)))).toMatchObject(treeDigest(SOURCES.v2));
    const slow = new Stackish(root, 61_000);
    slow.physicalId = docs.physicalId;
    const { waiter } = await slow.framework.send(slow.request('Update', v2(docsV1), docsV1));
    expect(waiter).toBeDefined();
    // Another resource fails: CloudFormation rolls both seeds back to the old properties.
    const rollbacks = [await site.update(siteV1, v2(siteV1)), await docs.update(docsV1, v2(docsV1))];
    expect(rollbacks).toMatchObject([{ Status: 'SUCCESS' }, { Status: 'SUCCESS' }]);
    // Nothing of v2 stays (its added/ tree, files and directories), whichever seed had finished.
    expect(content(stored(placeOf(root, siteV1)))).toEqual(treeDigest(SOURCES.v1));
    expect(content(stored(placeOf(root, docsV1)))).toEqual(treeDigest(SOURCES.v1));
    expect(manifestPaths(stored(placeOf(root, siteV1))).sort()).toEqual(Object.keys(treeDigest(SOURCES.v1)).sort());
    // Four copies of 552 files at 20 ms a round trip: about 90 s idle.
  }, 900_000);

  test('a rollback while the forward copy still runs stops it and ends on the old content, with nothing the forward run added', async () => {
    const cfn = new Stackish(root);
    await cfn.create({ version: 'v1' });
    const place = placeOf(root, {});
    // The forward Update runs in one long slice. It is sent to the handler as the framework would
    // (the framework's own code keeps its outbound calls in module globals, one request at a time):
    // the rollback, meanwhile, goes through the framework.
    const context = { getRemainingTimeInMillis: () => 900_000 };
    const forwardEvent = { ...cfn.request('Update', { version: 'v2', concurrency: 2 }, { version: 'v1' }), LogicalResourceId: 'Content' };
    const forward = handler.onEvent(forwardEvent, context);
    // Staged (under the run's token) or published.
    await waitFor(() => fs.existsSync(place) && fs.readdirSync(place).some((name) => /^(\.cdk-efs-kit-new-[0-9a-f]{16}-)?added$/.test(name)));
    const rollback = cfn.deliver(cfn.request('Update', { version: 'v1' }, { version: 'v2', concurrency: 2 }));
    // The forward slice sees the newer request at its next heartbeat, stops and saves what it wrote;
    // the waiter of the abandoned request then fails (CloudFormation no longer listens to it).
    const stopped = await forward;
    expect(stopped.Data.Complete).toBe('false');
    await expect(handler.isComplete({ ...forwardEvent, ...stopped }, context)).rejects.toThrow(/a newer request for this place/);
    expect(await rollback).toMatchObject({ Status: 'SUCCESS' });
    expect(content(stored(place))).toEqual(treeDigest(SOURCES.v1));
  }, 300_000);

  test('a Create killed in its first slice leaves nothing once the stack\'s rollback completes (removeOnDelete)', async () => {
    // Each invocation in an execution environment of its own, killed at 3 s as Lambda kills one at its
    // timeout (the handler thinks it has 15 minutes, so only the kill ends the slice).
    const killedAt = (ms: number) => (name: 'onEvent' | 'isComplete') => (event: unknown) => invokeIsolated(name, event, ms);
    const kill = killedAt(3_000);
    const cfn = new ProviderFramework({ onEvent: kill('onEvent'), isComplete: kill('isComplete') }, 'Content');
    const deploy: Deploy = { version: 'v1', removeOnDelete: true, concurrency: 2 };
    const place = placeOf(root, deploy);
    const created = await cfn.deliver({ RequestType: 'Create', RequestId: randomUUID(), ResourceProperties: propertiesOf(deploy, root) });
    expect(created).toMatchObject({ Status: 'FAILED', Reason: expect.stringMatching(/Task timed out/) });
    // The resource exists (a real physical id, not the framework's CREATE_FAILED marker), so CloudFormation's rollback Delete reaches the handler.
    expect(created.PhysicalResourceId).toMatch(/^seed:/);
    expect(fs.readdirSync(place).length).toBeGreaterThan(0);
    const unhurried = killedAt(600_000);
    const rollback = new ProviderFramework({ onEvent: unhurried('onEvent'), isComplete: unhurried('isComplete') }, 'Content');
    const deleted = await rollback.deliver({ RequestType: 'Delete', RequestId: randomUUID(), ResourceProperties: propertiesOf(deploy, root), PhysicalResourceId: created.PhysicalResourceId });
    expect(deleted).toMatchObject({ Status: 'SUCCESS' });
    // Nothing is left: no staging directory, temporary file, lock or state directory, no file or
    // directory the killed slice wrote (a directory is published only once the manifest on disk
    // records it and its files), and not the place's own directory, which the seed made.
    expect(fs.existsSync(place) ? fs.readdirSync(place) : []).toEqual([]);
    expect(fs.existsSync(place)).toBe(false);
  }, 300_000);

  test.each([false, true])('a stack Delete while a Create still resumes (removeOnDelete %s) stops it: nothing is written after', async (removeOnDelete) => {
    const cfn = new Stackish(root, 61_000); // a second of work per slice
    const deploy: Deploy = { version: 'v1', removeOnDelete, concurrency: 2 };
    const { waiter } = await cfn.framework.send(cfn.request('Create', deploy));
    expect(await waiter!.poll()).toBeUndefined(); // a slice, and more to do
    const place = placeOf(root, deploy);
    const physicalId = `seed:fs-0123456789abcdef0:${propertiesOf(deploy, root).AccessPointId}:/www`;
    expect(await new Stackish(root).remove(deploy, physicalId)).toMatchObject({ Status: 'SUCCESS' });
    const after = content(stored(place));
    expect(await waiter!.answer()).toMatchObject({ Status: 'FAILED', Reason: expect.stringMatching(/a newer request for this place/) });
    expect(content(stored(place))).toEqual(after);
    if (removeOnDelete) expect(after).toEqual({});
  }, 300_000);

  test('prune stops at the slice\'s deadline and saves what it did; the next slices finish it', async () => {
    await new Stackish(root).create({ version: 'v1' });
    const cfn = new Stackish(root, 65_000); // five seconds of work per slice
    const small: Deploy = { version: 'v2', prune: true, concurrency: 1 };
    const summaries = jest.spyOn(console, 'log');
    const before = summaries.mock.calls.length;
    const { waiter } = await cfn.framework.send(cfn.request('Update', small, { version: 'v1' }));
    let answer: CfnResponse | undefined;
    while (!(answer = await waiter!.poll()));
    expect(answer).toMatchObject({ Status: 'SUCCESS' });
    // 300 files to prune, one at a time, two calls of 20 ms each: more than a slice; each slice pruned what it could.
    const pruned = summaries.mock.calls.slice(before).map(([line]) => String(line)).filter((line) => line.includes('"seed slice done"')).map((line) => JSON.parse(line).pruned).filter((n) => n > 0);
    expect(pruned.length).toBeGreaterThan(1);
    expect(pruned.reduce((a, b) => a + b, 0)).toBe(300);
    expect(content(stored(placeOf(root, small)))).toEqual(treeDigest(SOURCES.v2));
    expect(manifestPaths(stored(placeOf(root, small))).sort()).toEqual(Object.keys(treeDigest(SOURCES.v2)).sort());
  }, 600_000); // a guard against hangs: dozens of slices on efs-sim take minutes on a loaded machine
});

async function waitFor(condition: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
