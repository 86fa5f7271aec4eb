import { CopyObjectCommand, CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, ListObjectVersionsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { execFileSync } from 'child_process';
import { createHash, randomUUID } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AccessPointPreset, S3FilesFileSystem, SeedEngine, SeedSource, SeedThrough } from '../../../lib';
import { describeWithFuse, EfsSim, startEfsSim } from '../../helpers/efs-sim';
import { lambdaMountOf, removeLambdaMounts } from '../../helpers/lambda-mount';
import { CfnRequest, CfnResponse, CREATE_FAILED_PHYSICAL_ID_MARKER, ProviderFramework } from '../../helpers/provider-framework';
import { resolveTokens } from '../../helpers/seed-run-template';
import { makeTree, tempDir } from '../../helpers/seed-fixtures';

// The S3 Files seed under CloudFormation: event sequences as CloudFormation sends them, through
// aws-cdk-lib's own Provider framework code (test/helpers/provider-framework.ts), to the bundled
// handler (the asset S3FilesSeed deploys), with ResourceProperties from S3FilesSeed's synthesized
// template. The bucket is moto's on 127.0.0.1 and the mount is efs-sim's s3files profile over it
// (a 2 s import delay, a 2 s export window): the handler writes objects, then waits until they show
// through the mount, as in Lambda. Each test has a place (a key prefix) of its own, and ends by
// comparing what the bucket holds there with the source it should hold, byte for byte.
let sim: EfsSim;
let s3Client: S3Client;
let handler: any;
let work: string;
let filesBucket: string;
const SOURCES = { v1: '', v2: '', bad: '' };

describeWithFuse('S3FilesSeed under CloudFormation (moto + efs-sim s3files)', () => {
  beforeAll(async () => {
    sim = await startEfsSim({ profile: 's3files', flags: ['--latency-any=0', '--export-window=2', '--import-delay=2'] });
    const { endpoint, bucket } = sim.s3files!;
    filesBucket = bucket;
    Object.assign(process.env, { AWS_ENDPOINT_URL: endpoint, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' });
    s3Client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    handler = require(path.join(__dirname, '..', '..', '..', 'dist', 'handlers', 'seed-s3-files', 'index.js'));
    work = tempDir('s3files-lifecycle-');
    await s3Client.send(new CreateBucketCommand({ Bucket: 'assets' }));
    // v1: 3 directories of 20 files, x.html and old/ (40 files); v2 changes dir-0, drops dir-2 and
    // old/, and adds added/ (40 files); bad holds a name the seed refuses among good files.
    SOURCES.v1 = path.join(work, 'v1');
    makeTree(SOURCES.v1, 3, 20, [64, 512]);
    fs.writeFileSync(path.join(SOURCES.v1, 'x.html'), 'x v1');
    makeTree(path.join(SOURCES.v1, 'old'), 2, 20, [16, 32]);
    SOURCES.v2 = path.join(work, 'v2');
    fs.cpSync(SOURCES.v1, SOURCES.v2, { recursive: true });
    for (const name of fs.readdirSync(path.join(SOURCES.v2, 'dir-0'))) fs.writeFileSync(path.join(SOURCES.v2, 'dir-0', name), `v2 ${name}`);
    fs.rmSync(path.join(SOURCES.v2, 'dir-2'), { recursive: true });
    fs.rmSync(path.join(SOURCES.v2, 'old'), { recursive: true });
    makeTree(path.join(SOURCES.v2, 'added'), 2, 20, [64, 128]);
    for (const version of ['v1', 'v2'] as const) {
      // As objects under assets/<version>/ too, the S3 prefix a DataSync seed copies.
      for (const name of Object.keys(sourceContent(SOURCES[version]))) {
        await s3Client.send(new PutObjectCommand({ Bucket: 'assets', Key: `${version}/${name}`, Body: fs.readFileSync(path.join(SOURCES[version], name)) }));
      }
      execFileSync('zip', ['-qr', path.join(work, `${version}.zip`), '.'], { cwd: SOURCES[version] });
      await s3Client.send(new PutObjectCommand({ Bucket: 'assets', Key: `${version}.zip`, Body: fs.readFileSync(path.join(work, `${version}.zip`)) }));
    }
    execFileSync('python3', ['-c', `
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    for i in range(30): z.writestr(f'good/{i}.txt', f'good {i}')
    z.writestr('../evil.txt', 'refused')
`, path.join(work, 'bad.zip')]);
    await s3Client.send(new PutObjectCommand({ Bucket: 'assets', Key: 'bad.zip', Body: fs.readFileSync(path.join(work, 'bad.zip')) }));
    if (!process.env.SHOW_LOGS) jest.spyOn(console, 'log').mockImplementation(() => undefined);
    if (!process.env.SHOW_LOGS) jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  }, 120_000);

  afterAll(async () => {
    removeLambdaMounts();
    s3Client?.destroy();
    await sim?.stop();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  /** What a user deploys: which source, where in the file system. */
  interface Deploy {
    readonly version?: 'v1' | 'v2' | 'bad';
    readonly targetPath: string;
    readonly removeOnDelete?: boolean;
    readonly prune?: boolean;
    /** Copied by SeedEngine.dataSync() from the prefix assets/<version>/, not by the seed function from an archive. */
    readonly dataSync?: boolean;
  }

  const templates = new Map<string, Record<string, any>>();

  /** The seed's ResourceProperties for `deploy`, from S3FilesSeed's synthesized template, its tokens resolved as CloudFormation would. */
  function propertiesOf(deploy: Deploy): Record<string, any> {
    const key = JSON.stringify(deploy);
    if (!templates.has(key)) {
      const stack = new Stack(new App(), 'Test');
      const files = new S3FilesFileSystem(stack, 'Files', { vpc: new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 }), bucket: s3.Bucket.fromBucketName(stack, 'FilesBucket', filesBucket) });
      const version = deploy.version ?? 'v1';
      const assets = new s3.Bucket(stack, 'Assets');
      files.addSeed('Content', {
        ...deploy.dataSync
          ? { source: SeedSource.s3(assets, `${version}/`, { version }), engine: SeedEngine.dataSync() }
          : { source: SeedSource.archive(assets, `${version}.zip`, { version }) },
        targetPath: deploy.targetPath, removeOnDelete: deploy.removeOnDelete, prune: deploy.prune,
      });
      const [seed] = Object.values<any>(Template.fromStack(stack).findResources('Custom::CdkEfsKitS3FilesSeed'));
      templates.set(key, seed.Properties);
    }
    const properties = resolveTokens(templates.get(key), (id) => (id.startsWith('Assets') ? 'assets' : `unresolved-${id}`));
    // Lambda mounts the file system's root at /mnt/seed; here the root is efs-sim's mount, under /mnt by a link.
    return { ...properties, MountPath: lambdaMountOf(sim.mount, 'cdk-efs-kit-s3files-lifecycle'), VisibilityTimeoutSeconds: '60' };
  }

  const prefixOf = (deploy: Deploy) => `${deploy.targetPath.replace(/^\/+/, '')}/`;
  const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

  /** The current objects under the place's prefix (the seed's own `.cdk-efs-kit/` aside), by path, with their content's hash. */
  async function placeContent(deploy: Deploy): Promise<Record<string, string>> {
    const prefix = prefixOf(deploy);
    const out: Record<string, string> = {};
    const versions = await s3Client.send(new ListObjectVersionsCommand({ Bucket: filesBucket, Prefix: prefix }));
    for (const v of versions.Versions ?? []) {
      const relative = v.Key!.slice(prefix.length);
      if (!v.IsLatest || relative.startsWith('.cdk-efs-kit/')) continue;
      const body = await s3Client.send(new GetObjectCommand({ Bucket: filesBucket, Key: v.Key! }));
      out[relative] = sha(Buffer.from(await body.Body!.transformToByteArray()));
    }
    return out;
  }

  /** Every regular file of a source tree, by path, with its content's hash. */
  function sourceContent(dir: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
      if (fs.lstatSync(path.join(dir, name)).isFile()) out[name.split(path.sep).join('/')] = sha(fs.readFileSync(path.join(dir, name)));
    }
    return out;
  }

  /** Every key under the place, versions and delete markers included: what removal must leave. */
  async function everyVersion(deploy: Deploy): Promise<string[]> {
    const versions = await s3Client.send(new ListObjectVersionsCommand({ Bucket: filesBucket, Prefix: prefixOf(deploy) }));
    return [...versions.Versions ?? [], ...versions.DeleteMarkers ?? []].map((v) => v.Key!.slice(prefixOf(deploy).length)).sort();
  }

  const testStack = () => `arn:aws:cloudformation:us-east-1:123456789012:stack/Test/${randomUUID()}`;

  /** The stack's CloudFormation for one seed resource: requests through the Provider framework, keeping its physical id. */
  class Stackish {
    readonly framework: ProviderFramework;
    physicalId = '';
    constructor(readonly logicalId = 'Content', readonly stackId = testStack()) {
      const context = { getRemainingTimeInMillis: () => 900_000 };
      this.framework = new ProviderFramework({ onEvent: (e) => handler.onEvent(e, context), isComplete: (e) => handler.isComplete(e, context) }, logicalId, stackId);
    }

    request(type: CfnRequest['RequestType'], deploy: Deploy, old?: Deploy, physicalId = this.physicalId): CfnRequest {
      return {
        RequestType: type, RequestId: randomUUID(), ResourceProperties: propertiesOf(deploy),
        ...old ? { OldResourceProperties: propertiesOf(old) } : {}, ...type === 'Create' ? {} : { PhysicalResourceId: physicalId },
      };
    }

    async deliver(request: CfnRequest): Promise<CfnResponse> {
      const response = await this.framework.deliver(request, () => new Promise((r) => setTimeout(r, 500)));
      if (response.Status === 'SUCCESS' && request.RequestType !== 'Delete') this.physicalId = response.PhysicalResourceId;
      return response;
    }

    create = (deploy: Deploy) => this.deliver(this.request('Create', deploy));
    update = (deploy: Deploy, old: Deploy) => this.deliver(this.request('Update', deploy, old));
    remove = (deploy: Deploy, physicalId = this.physicalId) => this.deliver(this.request('Delete', deploy, undefined, physicalId));
  }

  test('Create writes the source as objects and completes once they show through the mount; an unchanged Update does nothing', async () => {
    const deploy: Deploy = { targetPath: '/create/www' };
    const cfn = new Stackish();
    const created = await cfn.create(deploy);
    expect(created).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: `seed:s3://${filesBucket}/create/www/`, Data: { Written: 101 } });
    expect(await placeContent(deploy)).toEqual(sourceContent(SOURCES.v1));
    // Through the mount, byte for byte, as the stack's clients will read it.
    expect(sourceContent(path.join(sim.mount, 'create', 'www'))).toMatchObject(sourceContent(SOURCES.v1));
    const versionsBefore = await everyVersion(deploy);
    expect(await cfn.update(deploy, deploy)).toMatchObject({ Status: 'SUCCESS', Data: { Complete: 'true' } });
    expect(await everyVersion(deploy)).toEqual(versionsBefore);
  });

  test('Update to a new source rewrites what changed; prune then removes what the source dropped, never the application\'s objects', async () => {
    const v1: Deploy = { targetPath: '/update' };
    const cfn = new Stackish();
    await cfn.create(v1);
    // The application writes one object and rewrites a seeded one.
    await s3Client.send(new PutObjectCommand({ Bucket: filesBucket, Key: 'update/app.txt', Body: 'the application\'s' }));
    await s3Client.send(new PutObjectCommand({ Bucket: filesBucket, Key: 'update/old/dir-0/file-0.dat', Body: 'rewritten by the application' }));
    const v2: Deploy = { ...v1, version: 'v2' };
    const updated = await cfn.update(v2, v1);
    // dir-0 (20 files) and added/ (40): written; the rest unchanged; dir-2 and old/ kept (no prune).
    expect(updated).toMatchObject({ Status: 'SUCCESS', Data: { Written: 60 } });
    const kept = await placeContent(v2);
    expect(kept).toMatchObject(sourceContent(SOURCES.v2));
    expect(Object.keys(kept)).toEqual(expect.arrayContaining(['dir-2/file-0.dat', 'old/dir-1/file-0.dat', 'app.txt']));
    const pruned: Deploy = { ...v2, prune: true };
    expect(await cfn.update(pruned, v2)).toMatchObject({ Status: 'SUCCESS', Data: { Written: 0 } });
    expect(await placeContent(pruned)).toEqual({ ...sourceContent(SOURCES.v2), 'app.txt': sha(Buffer.from('the application\'s')), 'old/dir-0/file-0.dat': sha(Buffer.from('rewritten by the application')) });
  });

  test('a rollback Update ends on the old content exactly, prune or not: what the forward request added is removed', async () => {
    const v1: Deploy = { targetPath: '/rollback' };
    const v2: Deploy = { ...v1, version: 'v2' };
    const cfn = new Stackish();
    await cfn.create(v1);
    expect(await cfn.update(v2, v1)).toMatchObject({ Status: 'SUCCESS' });
    // Another resource failed: CloudFormation rolls the seed back with the old properties.
    expect(await cfn.update(v1, v2)).toMatchObject({ Status: 'SUCCESS', Data: { Written: 20 } });
    expect(await placeContent(v1)).toEqual(sourceContent(SOURCES.v1));
    // No older copy of the seed's comes back when it removes what it wrote: one version of the seed's per path.
    const versions = (await everyVersion(v1)).filter((name) => name === 'dir-0/file-0.dat');
    expect(versions).toEqual(['dir-0/file-0.dat']);
  });

  test('a rollback while the forward run still goes on: the newer request takes the place, the older one stops and fails', async () => {
    const v1: Deploy = { targetPath: '/superseded' };
    const v2: Deploy = { ...v1, version: 'v2' };
    const cfn = new Stackish();
    await cfn.create(v1);
    const forward = cfn.request('Update', v2, v1);
    const { waiter } = await cfn.framework.send(forward);
    // CloudFormation gave up on the forward request (another resource failed) before its first poll, and rolls back.
    expect(await cfn.update(v1, v2)).toMatchObject({ Status: 'SUCCESS' });
    await expect(waiter!.answer()).resolves.toMatchObject({ Status: 'FAILED', Reason: expect.stringMatching(/a newer request for this place .* took over/) });
    expect(await placeContent(v1)).toEqual(sourceContent(SOURCES.v1));
  });

  test('Delete with removeOnDelete removes exactly what the seed wrote, every version of it, and its manifest and claim; the application\'s objects stay', async () => {
    const deploy: Deploy = { targetPath: '/removed', removeOnDelete: true };
    const cfn = new Stackish();
    await cfn.create(deploy);
    await s3Client.send(new PutObjectCommand({ Bucket: filesBucket, Key: 'removed/app.txt', Body: 'the application\'s' }));
    await s3Client.send(new PutObjectCommand({ Bucket: filesBucket, Key: 'removed/x.html', Body: 'rewritten' }));
    expect(await cfn.remove(deploy)).toMatchObject({ Status: 'SUCCESS' });
    expect(await placeContent(deploy)).toEqual({ 'app.txt': sha(Buffer.from('the application\'s')), 'x.html': sha(Buffer.from('rewritten')) });
    // The seed's x.html version stays under the application's (it is noncurrent, and the application's now); nothing else of the seed's is left.
    expect(await everyVersion(deploy)).toEqual(['app.txt', 'x.html', 'x.html']);
  });

  test('a Create that fails, with removeOnDelete, leaves nothing once the rollback\'s Delete is done', async () => {
    const deploy: Deploy = { targetPath: '/failed', version: 'bad', removeOnDelete: true };
    const cfn = new Stackish();
    const created = await cfn.deliver(cfn.request('Create', deploy));
    expect(created).toMatchObject({ Status: 'FAILED', Reason: expect.stringMatching(/\.\.\/evil\.txt/) });
    expect(created.PhysicalResourceId).not.toBe(CREATE_FAILED_PHYSICAL_ID_MARKER);
    expect(Object.keys(await placeContent(deploy)).length).toBeGreaterThan(0);
    expect(await cfn.remove(deploy, created.PhysicalResourceId)).toMatchObject({ Status: 'SUCCESS' });
    expect(await everyVersion(deploy)).toEqual([]);
  });

  test('a twin stack cannot seed the same place; a renamed construct takes it over, and the old resource\'s Delete leaves it', async () => {
    const deploy: Deploy = { targetPath: '/owned', removeOnDelete: true };
    const first = new Stackish('Content');
    await first.create(deploy);
    const twin = new Stackish('Content');
    expect(await twin.create(deploy)).toMatchObject({ Status: 'FAILED', Reason: expect.stringMatching(/is the place of resource Content of stack Test .* cannot seed it too/) });
    // Renamed in its stack: CloudFormation creates the new logical id, then deletes the old one.
    const renamed = new Stackish('Renamed', first.stackId);
    expect(await renamed.create(deploy)).toMatchObject({ Status: 'SUCCESS' });
    expect(await first.remove(deploy)).toMatchObject({ Status: 'SUCCESS' });
    expect(await placeContent(deploy)).toEqual(sourceContent(SOURCES.v1));
  });

  test('a rename rolled back: the new resource\'s Delete hands the place back, and its content stays for the old one, whose own Delete removes it', async () => {
    const deploy: Deploy = { targetPath: '/renamed-back', removeOnDelete: true };
    const first = new Stackish('Content');
    await first.create(deploy);
    const renamed = new Stackish('Renamed', first.stackId);
    expect(await renamed.create(deploy)).toMatchObject({ Status: 'SUCCESS' });
    // Another resource failed: CloudFormation deletes the new logical id, and the old one stays in the stack.
    expect(await renamed.remove(deploy)).toMatchObject({ Status: 'SUCCESS' });
    expect(await placeContent(deploy)).toEqual(sourceContent(SOURCES.v1));
    // The old resource holds the place again: its Delete removes what the seed wrote, and the claim.
    expect(await first.remove(deploy)).toMatchObject({ Status: 'SUCCESS' });
    expect(await everyVersion(deploy)).toEqual([]);
  });

  test('a new targetPath is a new place: the Update seeds it, and the old place\'s Delete removes only its own', async () => {
    const before: Deploy = { targetPath: '/moved/a', removeOnDelete: true };
    const after: Deploy = { targetPath: '/moved/b', removeOnDelete: true };
    const cfn = new Stackish();
    await cfn.create(before);
    const oldId = cfn.physicalId;
    expect(await cfn.update(after, before)).toMatchObject({ Status: 'SUCCESS' });
    expect(cfn.physicalId).not.toBe(oldId);
    expect(await cfn.remove(before, oldId)).toMatchObject({ Status: 'SUCCESS' });
    expect(await everyVersion(before)).toEqual([]);
    expect(await placeContent(after)).toEqual(sourceContent(SOURCES.v1));
  });

  test('through the mount (SeedThrough.MOUNT), the EFS seed\'s handler writes the files on the access point\'s root; S3 Files exports them to the bucket', async () => {
    const stack = new Stack(new App(), 'Test');
    const files = new S3FilesFileSystem(stack, 'Files', { vpc: new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 }), bucket: s3.Bucket.fromBucketName(stack, 'FilesBucket', filesBucket) });
    const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/viamount'));
    files.addSeed('Content', { source: SeedSource.archive(new s3.Bucket(stack, 'Assets'), 'v1.zip', { version: 'v1' }), through: SeedThrough.MOUNT, accessPoint: web, targetPath: '/www' });
    const [seed] = Object.values<any>(Template.fromStack(stack).findResources('Custom::CdkEfsKitSeed'));
    const properties = resolveTokens(seed.Properties, (id) => (id.startsWith('Assets') ? 'assets' : id.startsWith('FilesWeb') ? 'fsap-0123456789abcdef0' : 'fs-0123456789abcdef0'));
    // Lambda mounts the access point's root (/viamount) at /mnt/seed.
    fs.mkdirSync(path.join(sim.mount, 'viamount'), { recursive: true });
    const mount = lambdaMountOf(path.join(sim.mount, 'viamount'), 'cdk-efs-kit-s3files-viamount');
    const efsSeed = require(path.join(__dirname, '..', '..', '..', 'dist', 'handlers', 'seed', 'index.js'));
    const context = { getRemainingTimeInMillis: () => 900_000 };
    const framework = new ProviderFramework({ onEvent: (e) => efsSeed.onEvent(e, context), isComplete: (e) => efsSeed.isComplete(e, context) }, 'Content', testStack());
    const response = await framework.deliver({ RequestType: 'Create', RequestId: randomUUID(), ResourceProperties: { ...properties, MountPath: mount } }, () => new Promise((r) => setTimeout(r, 500)));
    expect(response).toMatchObject({ Status: 'SUCCESS' });
    expect(sourceContent(path.join(sim.mount, 'viamount', 'www'))).toMatchObject(sourceContent(SOURCES.v1));
    // The export window is 2 s here (about 60 s in S3 Files): the files reach the bucket as objects.
    const deploy: Deploy = { targetPath: '/viamount/www' };
    const exported = async () => JSON.stringify(await placeContent(deploy)) === JSON.stringify(sourceContent(SOURCES.v1));
    for (let i = 0; i < 60 && !await exported(); i++) await new Promise((r) => setTimeout(r, 1000));
    // Exactly the source's files: the copier's staging names and temporary files never reach the bucket as objects that stay.
    expect(await placeContent(deploy)).toEqual(sourceContent(SOURCES.v1));
  });

  test('files that never show through the mount fail the request once the wait is over, named', async () => {
    const deploy: Deploy = { targetPath: '/invisible' };
    const cfn = new Stackish();
    const request = cfn.request('Create', deploy);
    // The mount the seed looks through is not the file system's: nothing seeded shows there.
    const elsewhere = lambdaMountOf(tempDir('not-the-mount-'), 'cdk-efs-kit-s3files-elsewhere');
    const response = await cfn.deliver({ ...request, ResourceProperties: { ...request.ResourceProperties, MountPath: elsewhere } });
    expect(response).toMatchObject({ Status: 'FAILED', Reason: expect.stringMatching(/101 of 101 files written to s3:\/\/.*\/invisible\/ did not show through the mount .* within 1 minute/) });
  }, 120_000);
  describe('with SeedEngine.dataSync(): DataSync copies, then the seed\'s resource claims the place and checks that the files show through the mount', () => {
    // DataSync cannot run here. dataSyncCopies does what the Enhanced-mode task S3FilesSeed synthesizes
    // does between two S3 locations (DataSync User Guide; TransferMode CHANGED, PreserveDeletedFiles
    // PRESERVE): each object under the source prefix, server side, to the same key under the place's
    // prefix, and never a deletion. `except` leaves objects out, as a run that failed part way would.
    // What follows it is the real handler, through the Provider framework.
    async function dataSyncCopies(deploy: Deploy, except: string[] = []): Promise<void> {
      const from = `${deploy.version ?? 'v1'}/`;
      const listing = await s3Client.send(new ListObjectsV2Command({ Bucket: 'assets', Prefix: from }));
      for (const object of listing.Contents ?? []) {
        const relative = object.Key!.slice(from.length);
        if (except.includes(relative)) continue;
        await s3Client.send(new CopyObjectCommand({ Bucket: filesBucket, Key: `${prefixOf(deploy)}${relative}`, CopySource: `assets/${object.Key}` }));
      }
    }

    test('Create and Update complete once the source\'s files show through the mount; the seed writes no object of its own but its claim, and its Delete leaves every object', async () => {
      const v1: Deploy = { targetPath: '/datasync/www', dataSync: true };
      await dataSyncCopies(v1);
      const cfn = new Stackish();
      expect(await cfn.create(v1)).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: `seed:s3://${filesBucket}/datasync/www/`, Data: { Files: 101 } });
      expect(await placeContent(v1)).toEqual(sourceContent(SOURCES.v1));
      expect(sourceContent(path.join(sim.mount, 'datasync', 'www'))).toMatchObject(sourceContent(SOURCES.v1));
      expect((await everyVersion(v1)).filter((key) => key.startsWith('.cdk-efs-kit/'))).toEqual(['.cdk-efs-kit/claim.json']);
      // The application writes an object; DataSync's next run (v2) removes nothing, and neither does the seed.
      await s3Client.send(new PutObjectCommand({ Bucket: filesBucket, Key: 'datasync/www/app.txt', Body: 'the application\'s' }));
      const v2: Deploy = { ...v1, version: 'v2' };
      await dataSyncCopies(v2);
      expect(await cfn.update(v2, v1)).toMatchObject({ Status: 'SUCCESS', Data: { Files: 81 } });
      expect(await placeContent(v2)).toMatchObject({ ...sourceContent(SOURCES.v2), 'app.txt': sha(Buffer.from('the application\'s')) });
      const before = await placeContent(v2);
      expect(await cfn.remove(v2)).toMatchObject({ Status: 'SUCCESS' });
      expect(await placeContent(v2)).toEqual(before);
    });

    test('an engine change from a single-function seed with removeOnDelete keeps the files: the DataSync seed\'s resource takes the place over first', async () => {
      const single: Deploy = { targetPath: '/switched', removeOnDelete: true };
      const first = new Stackish('Content');
      await first.create(single);
      // A new resource of the same stack (its functions, sized otherwise, are another provider's): created, then the old one deleted.
      const viaDataSync: Deploy = { targetPath: '/switched', dataSync: true };
      await dataSyncCopies(viaDataSync);
      expect(await new Stackish('ContentDataSync', first.stackId).create(viaDataSync)).toMatchObject({ Status: 'SUCCESS' });
      expect(await first.remove(single)).toMatchObject({ Status: 'SUCCESS' });
      expect(await placeContent(viaDataSync)).toEqual(sourceContent(SOURCES.v1));
      // A twin stack's DataSync seed of the same place is refused, naming the holder.
      expect(await new Stackish('Content').create(viaDataSync)).toMatchObject({ Status: 'FAILED', Reason: expect.stringMatching(/is the place of resource ContentDataSync of stack Test .* cannot seed it too/) });
    });

    test('a source key the seed refuses fails the request, named, before any lookup', async () => {
      const deploy: Deploy = { targetPath: '/refused', dataSync: true, version: 'bad' };
      await s3Client.send(new PutObjectCommand({ Bucket: 'assets', Key: 'bad/good.txt', Body: 'good' }));
      await s3Client.send(new PutObjectCommand({ Bucket: 'assets', Key: 'bad/.cdk-efs-kit/manifest.json', Body: '{}' }));
      expect(await new Stackish().create(deploy)).toMatchObject({
        Status: 'FAILED', Reason: expect.stringMatching(/has 1 key the seed refuses, which DataSync copied as they are: refused "\.cdk-efs-kit\/manifest\.json": names starting with \.cdk-efs-kit are reserved/),
      });
    });

    test('a file DataSync did not copy fails the request once the wait is over, named', async () => {
      const deploy: Deploy = { targetPath: '/partial', dataSync: true };
      await dataSyncCopies(deploy, ['x.html']);
      expect(await new Stackish().create(deploy)).toMatchObject({ Status: 'FAILED', Reason: expect.stringMatching(/1 of 101 files written to s3:\/\/.*\/partial\/ did not show through the mount .* x\.html/) });
    }, 120_000);
  });
});
