import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AccessPointPreset, SeedSource, SharedFileSystem } from '../../lib';
import { DeployedFunction, DeployStandIn, MountStandIn, REGION, stacksIn, SynthesizedStack } from '../helpers/deploy-stand-in';
import { IDENTITY_CHECK } from '../../lambda/shared/mount-checks/posix-identity';
import { DnsStub, startDnsStub } from '../helpers/dns-stub';
import { efsSimUsable } from '../../tools/efs-sim/mount';
import { startEfsSim } from '../helpers/efs-sim';
import { lambdaMountOf, removeLambdaMounts } from '../helpers/lambda-mount';
import { Moto, startMoto } from '../helpers/moto';
import { CfnResponse } from '../helpers/provider-framework';
import { listen, Listener, loopbackAddress } from '../helpers/nfs-listener';
import { s3FilesMountTargetDnsName } from '../../lib/s3-files/contract/s3-files-names';
import { synthesizeQuickStart } from '../helpers/quick-start';
import { makeTree, tempDir, treeDigest } from '../helpers/seed-fixtures';

// Where synth meets the handlers: each app below is synthesized to a cloud assembly (cdk.out), and
// its custom resources and canaries are deployed by test/helpers/deploy-stand-in.ts: the properties
// exactly as the template writes them, resolved as CloudFormation would (bucket names, asset
// objects uploaded to moto's S3 on 127.0.0.1 from cdk.out, file system and access point ids), sent
// through aws-cdk-lib's own Provider framework code to the handler the template names, loaded from
// its staged bundle (dist/handlers, run `npm run build` first), with a local directory for the mount
// (for a probe on S3 Files, efs-sim's s3files profile over its bucket in moto).
// A property a construct writes and a handler misreads fails here, whichever side is wrong.
//
// Stood in for, because nothing here can run them: the VPC's DNS resolver (test/helpers/dns-stub.ts:
// the bundled readiness handler's resolver is pointed at it, as /etc/resolv.conf points Lambda's at
// the VPC's) and the mount targets (TCP listeners on loopback addresses, port 2049,
// test/helpers/nfs-listener.ts). Not run: the DataSync engine's run (moto has no CreateLocationEfs;
// test/lambda/seed-datasync-run covers it) and resources without a handler of ours.

const EXAMPLES = path.join(__dirname, '..', '..', 'examples');
/** The custom resource types this suite runs; any other in an app fails the suite until it is run or listed with a reason. */
const RUN = ['Custom::CdkEfsKitSeed', 'Custom::CdkEfsKitS3FilesSeed', 'Custom::CdkEfsKitMountTargetsReady'];
const NOT_RUN: Record<string, string> = {
  'Custom::CdkEfsKitDataSyncSeed': 'DataSync cannot run here (moto has no CreateLocationEfs)',
};

let moto: Moto;
let dns: DnsStub;
let work: string;
let site: string;
const listeners: Listener[] = [];

beforeAll(async () => {
  moto = await startMoto();
  dns = await startDnsStub();
  // The handlers' clients read these, as in Lambda they read the function's role and Region.
  Object.assign(process.env, { AWS_ENDPOINT_URL: moto.endpoint, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: REGION });
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  // The readiness bundle makes its resolver once, with the system's servers: here, the stub's.
  const dnsPromises = require('dns/promises');
  const SystemResolver = dnsPromises.Resolver;
  dnsPromises.Resolver = class extends SystemResolver {
    constructor(options?: unknown) {
      super(options);
      this.setServers([dns.server]);
    }
  };
  work = tempDir('synth-meets-handlers-');
  site = path.join(work, 'site');
  makeTree(site, 3, 4, [100, 3000]);
  fs.writeFileSync(path.join(site, 'index.html'), '<h1>hello</h1>');
  if (!process.env.SHOW_LOGS) jest.spyOn(console, 'log').mockImplementation(() => undefined);
  if (!process.env.SHOW_LOGS) jest.spyOn(console, 'warn').mockImplementation(() => undefined);
}, 120_000);

afterAll(async () => {
  removeLambdaMounts();
  await Promise.all(listeners.map((l) => l.close()));
  await dns?.stop();
  await moto?.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

/** The file system behind an access point, as a Lambda function sees it: /mnt/<name>, a link to `<root>/<file system>/<access point>`. */
const standInMount = (root: string): MountStandIn => (fileSystem, accessPoint) => lambdaMountOf(path.join(root, fileSystem, accessPoint), 'cdk-efs-kit-harness');

/** Where the seed resource `logicalId` puts its files, as a directory of this test. */
function placeOf(deploy: DeployStandIn, root: string, logicalId: string): string {
  const props = deploy.resolve(deploy.resource(logicalId).Properties);
  return path.join(root, props.FileSystemId, props.AccessPointId, props.TargetSubPath);
}

/** SUCCESS, or the reason CloudFormation was given for the failure. */
const outcome = (response: CfnResponse) => (response.Status === 'SUCCESS' ? 'SUCCESS' : `${response.Status}: ${response.Reason}`);

/** A tree without the seed's own state. */
const content = (dir: string) => Object.fromEntries(Object.entries(treeDigest(dir)).filter(([name]) => !name.startsWith('.cdk-efs-kit')));

function synthesized(build: (app: App) => void, name: string): SynthesizedStack[] {
  const outdir = path.join(work, `${name}.out`);
  const app = new App({ outdir });
  build(app);
  app.synth();
  return stacksIn(outdir);
}

async function deployed(stack: SynthesizedStack): Promise<DeployStandIn> {
  const deploy = new DeployStandIn(stack, moto);
  await deploy.publish();
  return deploy;
}

/** Creates every readiness gate of the stack, with its mount targets answering on loopback and its names in the DNS stub. */
async function passGates(deploy: DeployStandIn): Promise<void> {
  for (const id of deploy.logicalIdsOf('Custom::CdkEfsKitMountTargetsReady')) {
    const props = deploy.resolve(deploy.resource(id).Properties);
    if (props.FileSystemKind === 'S3_FILES') {
      await passS3FilesGate(deploy, id, props);
      continue;
    }
    const fsName = `${props.FileSystemId}.efs.${props.Region}.amazonaws.com`;
    const before = listeners.length;
    for (const target of props.MountTargets) {
      listeners.push(await listen(target.IpAddress));
      dns.set(`${target.AvailabilityZone}.${fsName}`, { A: [target.IpAddress] });
    }
    dns.set(fsName, { A: [props.MountTargets[0].IpAddress] });
    const response = await deploy.create(id, standInMount(work));
    expect(outcome(response)).toBe('SUCCESS');
    expect(response.PhysicalResourceId).toBe(`mount-targets-ready:${props.FileSystemId}`);
    // Every mount target the template names was connected to on 2049.
    expect(listeners.slice(before).map((l) => l.accepted())).toEqual(props.MountTargets.map(() => 1));
  }
}

/**
 * Creates an S3 Files gate: its mount targets carry no address (CloudFormation has none for them),
 * so each answers on a loopback address of its own under its zonal name, the only name the gate
 * (like mount.s3files) resolves.
 */
async function passS3FilesGate(deploy: DeployStandIn, id: string, props: any): Promise<void> {
  const before = listeners.length;
  for (const target of props.MountTargets) {
    expect(target).toEqual({ MountTargetId: expect.stringMatching(/^fsmt-/), AvailabilityZoneId: expect.stringMatching(/^use1-az\d$/) });
    const address = loopbackAddress();
    listeners.push(await listen(address));
    dns.set(s3FilesMountTargetDnsName(target.AvailabilityZoneId, props.FileSystemId, props.Region), { A: [address] });
  }
  const response = await deploy.create(id, standInMount(work));
  expect(outcome(response)).toBe('SUCCESS');
  expect(listeners.slice(before).map((l) => l.accepted())).toEqual(props.MountTargets.map(() => 1));
}

/** Runs every probe canary of the stack: the handler gets the rule's Input as its event, in the function's environment. */
async function runCanaries(deploy: DeployStandIn, root: string): Promise<number> {
  let canaries = 0;
  for (const id of deploy.logicalIdsOf('AWS::Events::Rule')) {
    // A rule with no Input (the DataSync failure rule) sends AWS's events, not ours.
    for (const target of deploy.resource(id).Properties!.Targets ?? []) {
      if (target.Input === undefined) continue;
      const fn = deploy.functionOf(deploy.resolve(target.Arn));
      const result: any = await invokeCanary(fn, JSON.parse(target.Input), root);
      if (result === SKIPPED) continue;
      expect({ rule: id, status: result.status, errors: result.errors }).toEqual({ rule: id, status: 'ok', errors: undefined });
      // The file system and the access point the construct tells the probe about reach its result.
      expect(result).toMatchObject({ label: 'canary', fileSystemId: fn.mounts[0].fileSystemId });
      const identity = result.mountChecks.find((c: { id: string }) => c.id === IDENTITY_CHECK);
      expect(identity).toMatchObject({ status: 'pass', detail: expect.stringContaining(`the access point ${fn.mounts[0].accessPointId} sets uid 1000 gid 1000`) });
      canaries++;
    }
  }
  return canaries;
}

const SKIPPED = Symbol('skipped');

/**
 * A probe on EFS runs on a local directory; one on S3 Files (PROBE_BUCKET_URL) on efs-sim's s3files
 * profile over its bucket in moto, the access point's key prefix as the mount's root, so that its
 * own scenarios (import, direct-read, export-lag) see the sync they measure.
 */
async function invokeCanary(fn: DeployedFunction, event: unknown, root: string): Promise<unknown> {
  const url = fn.environment.PROBE_BUCKET_URL;
  if (url === undefined) return fn.invoke(event, standInMount(root));
  if (!efsSimUsable()) {
    console.warn(`${fn.logicalId}: an S3 Files probe's canary is not run here: efs-sim needs FUSE (bash tools/setup.sh installs it)`);
    return SKIPPED;
  }
  const [, bucket, prefix] = /^s3:\/\/([^/]+)\/(.*)$/.exec(url)!;
  const sim = await startEfsSim({ profile: 's3files', flags: ['--latency-any=0', '--export-window=2', '--import-delay=1', `--s3-endpoint=${moto.endpoint}`, `--bucket=${bucket}`, `--prefix=${prefix}`] });
  try {
    return await fn.invoke(event, () => sim.mount);
  } finally {
    await sim.stop();
  }
}

function expectOnlyKnownCustomResources(stack: SynthesizedStack): void {
  const types = new Set(Object.values(stack.template.Resources).map((r) => r.Type).filter((t) => t.startsWith('Custom::') || t === 'AWS::CloudFormation::CustomResource'));
  expect([...types].filter((t) => !RUN.includes(t) && !(t in NOT_RUN))).toEqual([]);
}

describe('every seed source kind, synthesized and seeded by the bundled handler', () => {
  let stack: SynthesizedStack;
  let deploy: DeployStandIn;
  const root = () => path.join(work, 'kinds');

  beforeAll(async () => {
    execFileSync('zip', ['-qr', path.join(work, 'site.zip'), '.'], { cwd: site });
    execFileSync('tar', ['-cf', path.join(work, 'site.tar'), '-C', site, '.']);
    execFileSync('tar', ['-czf', path.join(work, 'site.tar.gz'), '-C', site, '.']);
    fs.copyFileSync(path.join(work, 'site.tar.gz'), path.join(work, 'site.tgz'));
    [stack] = synthesized((app) => {
      const s = new Stack(app, 'Kinds');
      const files = new SharedFileSystem(s, 'Files', { vpc: new ec2.Vpc(s, 'Vpc', { maxAzs: 2, natGateways: 1 }) });
      const web = files.addAccessPoint('Web', AccessPointPreset.applicationUser('/web'));
      const lake = new s3.Bucket(s, 'Lake');
      const sources: Record<string, SeedSource> = {
        Directory: SeedSource.asset(site),
        Zip: SeedSource.asset(path.join(work, 'site.zip')),
        Tar: SeedSource.asset(path.join(work, 'site.tar')),
        TarGz: SeedSource.asset(path.join(work, 'site.tar.gz')),
        Tgz: SeedSource.asset(path.join(work, 'site.tgz')),
        Objects: SeedSource.s3(lake, 'data/', { version: '1' }),
        Release: SeedSource.archive(lake, 'releases/site-1.tar.gz', { version: '1' }),
      };
      for (const [name, source] of Object.entries(sources)) files.addSeed(name, { accessPoint: web, source, targetPath: `/${name.toLowerCase()}` });
    }, 'kinds');
    deploy = await deployed(stack);
    // The bucket's content, put there by its owner: the site as objects under data/, and as a release archive.
    const client = new S3Client(moto.clientConfig);
    const bucket = deploy.resolve({ Ref: deploy.logicalIdsOf('AWS::S3::Bucket').find((id) => id.startsWith('Lake')) });
    for (const [name] of Object.entries(treeDigest(site))) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: `data/${name}`, Body: fs.readFileSync(path.join(site, name)) }));
    }
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: 'releases/site-1.tar.gz', Body: fs.readFileSync(path.join(work, 'site.tar.gz')) }));
    await passGates(deploy);
  }, 300_000);

  test('the stack has a seed of each kind and nothing this suite does not run', () => {
    expect(deploy.logicalIdsOf('Custom::CdkEfsKitSeed')).toHaveLength(7);
    expectOnlyKnownCustomResources(stack);
  });

  test.each([
    ['an asset directory', 'Directory'],
    ['an asset .zip', 'Zip'],
    ['an asset .tar', 'Tar'],
    ['an asset .tar.gz', 'TarGz'],
    ['an asset .tgz', 'Tgz'],
    ['SeedSource.s3 (a prefix of objects)', 'Objects'],
    ['SeedSource.archive (a .tar.gz object)', 'Release'],
  ])('%s: the Create puts exactly the site in the target', async (_, name) => {
    const id = deploy.logicalIdsOf('Custom::CdkEfsKitSeed').find((i) => deploy.resolve(deploy.resource(i).Properties).TargetSubPath === name.toLowerCase())!;
    expect(outcome(await deploy.create(id, standInMount(root())))).toBe('SUCCESS');
    expect(content(placeOf(deploy, root(), id))).toEqual(treeDigest(site));
  });
});

const examples = fs.readdirSync(EXAMPLES).filter((f) => f.endsWith('.ts'));

describe.each(examples)('examples/%s, deployed as far as its custom resources and canaries go', (file) => {
  let stacks: SynthesizedStack[];
  beforeAll(() => {
    const { createApp } = require(path.join(EXAMPLES, file)) as { createApp: (app: App) => App };
    stacks = synthesized((app) => createApp(app), file);
  }, 120_000);

  test('its gates pass, its seeds put their sources in place and its canaries run', async () => {
    for (const stack of stacks) {
      expectOnlyKnownCustomResources(stack);
      const deploy = await deployed(stack);
      await passGates(deploy);
      const root = path.join(work, file);
      for (const id of deploy.logicalIdsOf('Custom::CdkEfsKitSeed')) {
        expect(outcome(await deploy.create(id, standInMount(root)))).toBe('SUCCESS');
        // The examples seed examples/site.
        expect(content(placeOf(deploy, root, id))).toEqual(treeDigest(path.join(EXAMPLES, 'site')));
      }
      await runS3FilesSeeds(deploy);
      await runCanaries(deploy, root);
    }
  });
});

/**
 * Creates every S3 Files seed of the stack on efs-sim's s3files profile over its bucket in moto,
 * the file system's prefix as the mount's root: the handler writes the bucket and waits until the
 * files show through the mount, where they must hold examples/site byte for byte.
 */
async function runS3FilesSeeds(deploy: DeployStandIn): Promise<void> {
  const ids = deploy.logicalIdsOf('Custom::CdkEfsKitS3FilesSeed');
  if (ids.length === 0) return;
  if (!efsSimUsable()) {
    console.warn(`${ids.join(', ')}: S3 Files seeds are not run here: efs-sim needs FUSE (bash tools/setup.sh installs it)`);
    return;
  }
  for (const id of ids) {
    const props = deploy.resolve(deploy.resource(id).Properties);
    const filesPrefix = props.TargetPrefix.slice(0, props.TargetPrefix.length - (props.VisiblePath === '' ? 0 : props.VisiblePath.length + 1));
    const sim = await startEfsSim({ profile: 's3files', flags: ['--latency-any=0', '--export-window=2', '--import-delay=1', `--s3-endpoint=${moto.endpoint}`, `--bucket=${props.TargetBucket}`, `--prefix=${filesPrefix}`] });
    try {
      expect(outcome(await deploy.create(id, () => lambdaMountOf(sim.mount, 'cdk-efs-kit-harness-s3files')))).toBe('SUCCESS');
      const seen = path.join(sim.mount, ...props.VisiblePath.split('/'));
      // The examples seed examples/site.
      expect(fileBytes(seen)).toEqual(fileBytes(path.join(EXAMPLES, 'site')));
    } finally {
      await sim.stop();
    }
  }
}

/** Every regular file under `dir` (the seed's own state aside), relative, with its bytes. */
const fileBytes = (dir: string) => Object.fromEntries((fs.readdirSync(dir, { recursive: true }) as string[])
  .filter((name) => !name.startsWith('.cdk-efs-kit') && fs.lstatSync(path.join(dir, name)).isFile()).sort()
  .map((name) => [name, fs.readFileSync(path.join(dir, name)).toString('base64')]));

test('the README\'s quick start: its gate passes, its seed puts ./site in place and its canary runs', async () => {
  const dir = path.join(work, 'quick-start');
  fs.mkdirSync(path.join(dir, 'site'), { recursive: true });
  fs.cpSync(site, path.join(dir, 'site'), { recursive: true });
  const [stack] = stacksIn(synthesizeQuickStart(dir));
  expectOnlyKnownCustomResources(stack);
  const deploy = await deployed(stack);
  await passGates(deploy);
  const root = path.join(dir, 'mounts');
  const [seed] = deploy.logicalIdsOf('Custom::CdkEfsKitSeed');
  expect(outcome(await deploy.create(seed, standInMount(root)))).toBe('SUCCESS');
  expect(content(placeOf(deploy, root, seed))).toEqual(treeDigest(site));
  expect(await runCanaries(deploy, root)).toBe(1);
});
