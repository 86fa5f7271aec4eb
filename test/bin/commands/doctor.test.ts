import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { PutFileSystemPolicyCommand } from '@aws-sdk/client-efs';
import { AttachRolePolicyCommand, CreatePolicyCommand, CreateRoleCommand, IAMClient, PutRolePolicyCommand } from '@aws-sdk/client-iam';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { readAwsFacts } from '../../../bin/doctor/aws-facts';
import { renderDoctorReport } from '../../../bin/doctor/render';
import { DoctorDeps, DoctorReport, runDoctor } from '../../../bin/doctor/run-doctor';
import { processIdentity } from '../../../lambda/shared/mount-checks/posix-identity';
import { DnsStub, startDnsStub } from '../../helpers/dns-stub';
import { describeWithFuse, EfsSim, startEfsSim } from '../../helpers/efs-sim';
import { Moto, startMoto } from '../../helpers/moto';
import { createMotoAccessPoint, createMotoFileSystem, MotoFileSystem } from '../../helpers/moto-efs';
import { NFS_MOUNTINFO } from '../../helpers/nfs-mountinfo';
import { listen, Listener } from '../../helpers/nfs-listener';

// `cdk-efs-kit doctor` against real parts: a DNS server on 127.0.0.1 answering for the file
// system's names (test/helpers/dns-stub.ts), TCP listeners on loopback port 2049 for the mount
// targets, moto's EFS, IAM and STS on 127.0.0.1 for the file system, access point, policy and
// caller, real directories for the round trip and an efs-sim FUSE mount. What cannot run here is
// a fixture, said where it is used: this kernel has no NFS client, so an NFS mount's mountinfo
// line comes from test/helpers/nfs-mountinfo.ts, and a stand-in script answers `mount.efs --version`
// the way amazon-efs-utils does.

const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'bin', 'cdk-efs-kit.js');
const REGION = 'us-east-1';

let moto: Moto;
let dns: DnsStub;
let work: string;
let listeners: Listener[];
beforeAll(async () => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  moto = await startMoto();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'doctor-'));
  // amazon-efs-utils is not installed here: a script that prints what `mount.efs --version` prints.
  fs.mkdirSync(path.join(work, 'bin'));
  fs.writeFileSync(path.join(work, 'bin', 'mount.efs'), '#!/bin/sh\n[ "$1" = --version ] && echo "$0 Version: 2.1.0"\n', { mode: 0o755 });
}, 60_000);
afterAll(async () => {
  await moto?.stop();
  fs.rmSync(work, { recursive: true, force: true });
});
beforeEach(async () => {
  dns = await startDnsStub();
  listeners = [];
});
afterEach(async () => {
  await dns.stop();
  await Promise.all(listeners.map((l) => l.close()));
});

const fsName = (fileSystemId: string) => `${fileSystemId}.efs.${REGION}.amazonaws.com`;

/** A file system in moto whose mount targets answer: names in the stub DNS, a listener on 2049 at each address. */
async function answeringFileSystem(options: { silentPortOf?: number; unresolvedZoneOf?: number } = {}): Promise<MotoFileSystem> {
  const efs = await createMotoFileSystem(moto, ['us-east-1a', 'us-east-1b']);
  for (const [i, t] of efs.mountTargets.entries()) {
    if (i !== options.silentPortOf) listeners.push(await listen(t.ipAddress));
    if (i !== options.unresolvedZoneOf) dns.set(`${t.availabilityZone}.${fsName(efs.fileSystemId)}`, { A: [t.ipAddress] });
  }
  dns.set(fsName(efs.fileSystemId), { A: [efs.mountTargets[0].ipAddress] });
  return efs;
}

/** A role session in moto whose own policies allow `actions` on file systems, and the environment that uses it. */
async function roleSession(name: string, actions: string[], managed = false): Promise<Record<string, string>> {
  const iam = new IAMClient(moto.clientConfig);
  await iam.send(new CreateRoleCommand({ RoleName: name, AssumeRolePolicyDocument: JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { AWS: '*' }, Action: 'sts:AssumeRole' }] }) }));
  const document = JSON.stringify({ Version: '2012-10-17', Statement: [{ Sid: 'Efs', Effect: 'Allow', Action: actions, Resource: '*' }] });
  if (managed) {
    const policy = await iam.send(new CreatePolicyCommand({ PolicyName: `${name}-efs`, PolicyDocument: document }));
    await iam.send(new AttachRolePolicyCommand({ RoleName: name, PolicyArn: policy.Policy!.Arn! }));
  } else {
    await iam.send(new PutRolePolicyCommand({ RoleName: name, PolicyName: 'efs', PolicyDocument: document }));
  }
  const sts = new STSClient(moto.clientConfig);
  const { Credentials: c } = await sts.send(new AssumeRoleCommand({ RoleArn: `arn:aws:iam::123456789012:role/${name}`, RoleSessionName: 'doctor' }));
  iam.destroy();
  sts.destroy();
  return { AWS_ACCESS_KEY_ID: c!.AccessKeyId!, AWS_SECRET_ACCESS_KEY: c!.SecretAccessKey!, AWS_SESSION_TOKEN: c!.SessionToken! };
}

/** The policy a SharedFileSystem writes, in spirit: no plain NFS, the account's IAM identities may mount and write. */
async function secureDefaultPolicy(efs: MotoFileSystem): Promise<void> {
  const arn = `arn:aws:elasticfilesystem:${REGION}:123456789012:file-system/${efs.fileSystemId}`;
  await efs.efs.send(new PutFileSystemPolicyCommand({
    FileSystemId: efs.fileSystemId,
    Policy: JSON.stringify({
      Version: '2012-10-17',
      Statement: [
        { Sid: 'DenyPlainNfs', Effect: 'Deny', Principal: { AWS: '*' }, Action: '*', Resource: arn, Condition: { Bool: { 'aws:SecureTransport': 'false' } } },
        { Sid: 'AccountIdentities', Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::123456789012:root' }, Action: ['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite'], Resource: arn },
      ],
    }),
  }));
}

/**
 * Each check's status and id. The round trip on the real directory works here: a warning says only
 * that it was slow (an operation above 50 ms, as a loaded machine can take), so either counts as working.
 */
const statusOf = (report: DoctorReport) => report.checks.map((c) => `${c.id === 'round-trip' && c.status === 'warn' ? 'pass' : c.status} ${c.id}`);

describe('runDoctor on a client with an amazon-efs-utils mount (mountinfo and state file are fixtures; DNS, TCP, AWS and the directory are real)', () => {
  let stateDir: string;
  let mountDir: string;
  let proxy: Listener;
  beforeEach(async () => {
    stateDir = fs.mkdtempSync(path.join(work, 'state-'));
    mountDir = fs.mkdtempSync(path.join(work, 'mnt-'));
    // The local proxy's port: a real listener on 127.0.0.1, standing in for efs-proxy.
    proxy = await listen('127.0.0.1', 0);
    listeners.push(proxy);
  });

  /** The mountinfo line of an efs-utils TLS mount at mountDir on the proxy's port, and its state file as efs-utils writes it. */
  function efsUtilsMount(fileSystemId: string, state: Record<string, unknown> = {}): string {
    fs.writeFileSync(path.join(stateDir, `${fileSystemId}.${mountDir.slice(1).replace(/\//g, '.')}.${proxy.port}`), JSON.stringify({
      pid: process.pid, cmd: ['/usr/bin/efs-proxy', `${stateDir}/stunnel-config.${fileSystemId}`, '--tls', '--no-direct-s3-read'],
      files: [], mount_time: 1795000000, mountpoint: mountDir, service_type: 'elasticfilesystem', awsCredentialsMethod: 'env', ...state,
    }));
    return NFS_MOUNTINFO.efsUtilsTls.replace(' /mnt/efs ', ` ${mountDir} `).replace('port=20049', `port=${proxy.port}`);
  }

  const deps = (mountinfo: string, over: Partial<DoctorDeps> = {}): DoctorDeps => ({
    aws: { skipped: 'as --no-aws asks' },
    dnsServers: [dns.server],
    mountinfo: () => mountinfo,
    efsUtilsStateDir: stateDir,
    mountEfsCommand: path.join(work, 'bin', 'mount.efs'),
    identity: processIdentity(),
    ...over,
  });

  test('a healthy mount, with AWS: every check passes, in order, one result per mount target', async () => {
    const efs = await answeringFileSystem();
    await secureDefaultPolicy(efs);
    const me = processIdentity();
    const accessPointId = await createMotoAccessPoint(efs, { Uid: me.uid, Gid: me.gid }, { path: '/app', ownerUid: me.uid, ownerGid: me.gid, permissions: '750' });
    const role = `healthy-${Date.now()}`;
    useCredentials(await roleSession(role, ['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite'], true));
    const aws = await readAwsFacts(efs.fileSystemId, accessPointId, { region: REGION, endpoint: moto.endpoint });
    const report = await runDoctor({ fileSystemId: efs.fileSystemId, region: REGION, accessPointId }, deps(efsUtilsMount(efs.fileSystemId, { accessPoint: accessPointId }), { aws }));
    console.log(`doctor, healthy mount (sample output for the README):\n${renderDoctorReport(report, { width: 100, markdown: false })}`);
    expect(statusOf(report)).toEqual([
      'pass file-system', 'pass dns-file-system', 'pass dns-mount-target', 'pass dns-mount-target', 'pass tcp-2049', 'pass tcp-2049',
      'pass mount', 'pass mount-options', 'pass encryption-in-transit', 'pass efs-utils', 'pass file-system-policy',
      'pass access-point', 'pass posix-identity', 'pass access-point-root', 'pass round-trip',
    ]);
    const detail = (id: string) => report.checks.find((c) => c.id === id)!.detail;
    expect(detail('file-system-policy')).toBe(`arn:aws:sts::123456789012:assumed-role/${role}/doctor mounting with TLS, with IAM, through ${accessPointId}: ClientMount and ClientWrite allowed (ClientMount is allowed by the identity's policies (statement Efs); ClientWrite is allowed by the identity's policies (statement Efs))`);
    expect(detail('encryption-in-transit')).toBe(`efs-proxy (pid ${process.pid}) serves 127.0.0.1:${proxy.port}, IAM, access point ${accessPointId} with TLS`);
    expect(detail('mount')).toBe(`${efs.fileSystemId} is mounted at ${mountDir} (nfs4 through amazon-efs-utils' local proxy on port ${proxy.port})`);
    expect(report.counts).toEqual({ pass: 15, warn: 0, fail: 0, skip: 0 });
    expect(fs.readdirSync(mountDir)).toEqual([]); // the round trip left nothing
  });

  test('without AWS: the checks that need it say they were skipped and why; the others run', async () => {
    const efs = await answeringFileSystem();
    const report = await runDoctor({ fileSystemId: efs.fileSystemId, region: REGION }, deps(efsUtilsMount(efs.fileSystemId)));
    expect(statusOf(report)).toEqual([
      'skip file-system', 'pass dns-file-system', 'skip dns-mount-target', 'pass tcp-2049', 'pass mount', 'pass mount-options',
      'pass encryption-in-transit', 'pass efs-utils', 'skip file-system-policy', 'pass posix-identity', 'pass round-trip',
    ]);
    expect(report.checks.find((c) => c.id === 'file-system-policy')!.detail).toBe('file system policy for this identity: skipped, as --no-aws asks');
  });

  test('fails naming each broken step: a zone name that does not resolve, a port that never answers, a proxy that is gone', async () => {
    const efs = await answeringFileSystem({ silentPortOf: 1, unresolvedZoneOf: 1 });
    useCredentials({ AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' });
    const aws = await readAwsFacts(efs.fileSystemId, undefined, { region: REGION, endpoint: moto.endpoint });
    const mountinfo = efsUtilsMount(efs.fileSystemId, { pid: 2 ** 22 + 1 }); // above Linux's pid_max: no such process
    const report = await runDoctor({ fileSystemId: efs.fileSystemId, region: REGION }, deps(mountinfo, { aws }));
    console.log(`doctor, failing mount (sample output for the README):\n${renderDoctorReport(report, { width: 100, markdown: false })}`);
    const failed = report.checks.filter((c) => c.status === 'fail');
    const zoneB = `us-east-1b.${fsName(efs.fileSystemId)}`;
    expect(failed.map((c) => c.detail)).toEqual([
      `${zoneB} (A) should resolve to ${efs.mountTargets[1].ipAddress}, the address of ${efs.mountTargets[1].id}, but: no such name (NXDOMAIN)`,
      `${efs.mountTargets[1].ipAddress}:2049 (mount target ${efs.mountTargets[1].id} (us-east-1b)): connection refused (the address answers, but nothing listens on the port)`,
      `efs-proxy for ${mountDir} (${stateDir}/${fs.readdirSync(stateDir)[0]}) is not running (pid ${2 ** 22 + 1} is gone): I/O on the mount hangs`,
    ]);
    expect(failed.every((c) => c.fix)).toBe(true);
    // moto's default identity (arn:aws:sts::123456789012:user/moto) is neither a role session nor an IAM user ARN.
    expect(report.checks.find((c) => c.id === 'file-system-policy')).toMatchObject({ status: 'pass', detail: expect.stringContaining('no file system policy') });
  });

  test('an access point that forces another user, and a root directory that user may not write', async () => {
    const efs = await answeringFileSystem();
    const accessPointId = await createMotoAccessPoint(efs, { Uid: 4242, Gid: 4242 }, { path: '/data', ownerUid: 0, ownerGid: 0, permissions: '755' });
    useCredentials({ AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' });
    const aws = await readAwsFacts(efs.fileSystemId, accessPointId, { region: REGION, endpoint: moto.endpoint });
    const report = await runDoctor({ fileSystemId: efs.fileSystemId, region: REGION, accessPointId }, deps('', { aws }));
    const me = processIdentity();
    expect(report.checks.find((c) => c.id === 'posix-identity')).toMatchObject({ status: 'warn', detail: expect.stringContaining(`this client runs as ${me.uid}:${me.gid} but ${accessPointId} makes every request 4242:4242`) });
    expect(report.checks.find((c) => c.id === 'access-point-root')).toMatchObject({
      status: 'fail', detail: `4242:4242 may not write the root directory of ${accessPointId}, /data (owner 0:0, mode 755, as the access point creates it, if it does not exist yet): every create there fails with Permission denied`,
    });
    expect(report.checks.find((c) => c.id === 'mount')).toMatchObject({ status: 'skip', detail: `no mount of ${efs.fileSystemId} on this machine (give --mount-point to check a directory)` });
  });

  test('a direct mount by a mount target\'s IP address is found as the file system\'s, and its options judged', async () => {
    const efs = await answeringFileSystem();
    useCredentials({ AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' });
    const aws = await readAwsFacts(efs.fileSystemId, undefined, { region: REGION, endpoint: moto.endpoint });
    const address = efs.mountTargets[1].ipAddress;
    const line = NFS_MOUNTINFO.ipDefaults.replace(' /var/www/efs ', ` ${mountDir} `).replace(/10\.55\.15\.43/g, address);
    const report = await runDoctor({ fileSystemId: efs.fileSystemId, region: REGION }, deps(line, { aws }));
    expect(report.checks.find((c) => c.id === 'mount')).toMatchObject({ status: 'pass', detail: `${efs.fileSystemId} is mounted at ${mountDir} (nfs4 from ${address}:/)` });
    expect(report.checks.find((c) => c.id === 'mount-options')).toMatchObject({ status: 'warn', detail: expect.stringContaining('no noresvport') });
    expect(report.checks.find((c) => c.id === 'encryption-in-transit')!.status).toBe('warn');
    // A direct mount is anonymous and plain: no file system policy lets it in as EFS's default does.
    expect(report.checks.find((c) => c.id === 'file-system-policy')!.detail).toContain('an anonymous client mounting without TLS, without IAM');
    expect(statusOf(report)).toContain('pass round-trip');
  });

  test('a direct NFS mount of another file system, and TLS off: each named', async () => {
    const efs = await answeringFileSystem();
    const line = NFS_MOUNTINFO.dnsNameRecommended.replace(' /mnt/shared ', ` ${mountDir} `);
    const report = await runDoctor({ fileSystemId: efs.fileSystemId, region: REGION, mountPoint: mountDir }, deps(line));
    expect(report.checks.find((c) => c.id === 'mount')).toMatchObject({ status: 'fail', detail: `${mountDir} mounts fs-0313e79d562273a6b, not ${efs.fileSystemId}` });
    expect(report.checks.find((c) => c.id === 'encryption-in-transit')).toMatchObject({ status: 'warn', detail: expect.stringContaining('traffic is not encrypted') });
    expect(report.checks.find((c) => c.id === 'round-trip')!.status).toBe('skip');
  });
});

/** readAwsFacts takes credentials the SDK's way, from the environment; afterEach puts it back. */
const savedEnv = { ...process.env };
afterEach(() => { process.env = { ...savedEnv }; });
function useCredentials(env: Record<string, string>): void {
  delete process.env.AWS_SESSION_TOKEN;
  Object.assign(process.env, env);
}

interface Run { code: number | null; stdout: string; stderr: string; ms: number }

/** The built command line, as a user runs it, with no AWS settings but those given. */
function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_')));
  const started = Date.now();
  const child = spawn(process.execPath, [CLI, ...args], {
    env: {
      ...base, HOME: work, PATH: `${path.join(work, 'bin')}:${process.env.PATH}`,
      AWS_EC2_METADATA_DISABLED: 'true', AWS_CONFIG_FILE: path.join(work, 'none'), AWS_SHARED_CREDENTIALS_FILE: path.join(work, 'none'), ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started })));
}

/** The report's lines, each check's continuation lines joined back onto it (they wrap at spaces). */
function checkRows(stdout: string): string[] {
  return stdout.trim().split('\n').reduce<string[]>((rows, line) => (/^ /.test(line) && rows.length > 0
    ? [...rows.slice(0, -1), `${rows[rows.length - 1]} ${line.trim()}`] : [...rows, line]), []);
}

const widest = (text: string) => Math.max(...text.split('\n').map((l) => l.length));

describe('cdk-efs-kit doctor (the built command line)', () => {
  test('healthy, with credentials: one line per check, a summary, exit 0', async () => {
    const efs = await answeringFileSystem();
    await secureDefaultPolicy(efs);
    const session = await roleSession(`cli-${Date.now()}`, ['elasticfilesystem:Client*']);
    const run = await cli(['doctor', efs.fileSystemId, '--region', REGION, '--endpoint', moto.endpoint, '--dns-server', dns.server], session);
    console.log(`doctor (CLI, with AWS, no mount) took ${run.ms} ms`);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = checkRows(run.stdout);
    expect(lines.map((l) => l.split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'pass file-system', 'pass dns-file-system', 'pass dns-mount-target', 'pass dns-mount-target', 'pass tcp-2049', 'pass tcp-2049',
      'skip mount', 'skip mount-options', 'skip encryption-in-transit', 'pass efs-utils', 'pass file-system-policy', 'skip posix-identity', 'skip round-trip',
      `${efs.fileSystemId} (${REGION}):`,
    ]);
    expect(lines[lines.length - 1]).toMatch(new RegExp(`^${efs.fileSystemId} \\(us-east-1\\): 8 passed, 0 warnings, 0 failed, 5 skipped, in \\d+\\.\\d s$`));
    expect(lines[10]).toContain('mounting with TLS, with IAM: ClientMount and ClientWrite allowed');
  });

  test('a failing mount target and a policy that denies this role: exit 1, with --json the same checks', async () => {
    const efs = await answeringFileSystem({ silentPortOf: 0 });
    await efs.efs.send(new PutFileSystemPolicyCommand({
      FileSystemId: efs.fileSystemId,
      Policy: JSON.stringify({ Version: '2012-10-17', Statement: [{ Sid: 'OnlyOthers', Effect: 'Deny', Principal: { AWS: '*' }, Action: '*', Condition: { StringNotEquals: { 'aws:PrincipalAccount': '999999999999' } } }] }),
    }));
    const session = await roleSession(`denied-${Date.now()}`, ['elasticfilesystem:Client*']);
    const run = await cli(['doctor', efs.fileSystemId, '--region', REGION, '--endpoint', moto.endpoint, '--dns-server', dns.server, '--json'], session);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.counts.fail).toBe(2);
    expect(report.checks.filter((c: { status: string }) => c.status === 'fail').map((c: { id: string }) => c.id)).toEqual(['tcp-2049', 'file-system-policy']);
    expect(report.checks.find((c: { id: string }) => c.id === 'file-system-policy').detail).toContain('ClientMount denied: the file system policy denies ClientMount (statement OnlyOthers)');
  });

  test('without credentials it runs the checks that need none and says which it skipped', async () => {
    const efs = await answeringFileSystem();
    const run = await cli(['doctor', efs.fileSystemId, '--region', REGION, '--dns-server', dns.server]);
    console.log(`doctor (CLI, no credentials, no mount) took ${run.ms} ms`);
    expect(run.code).toBe(0);
    const skipped = checkRows(run.stdout).filter((l) => l.startsWith('skip'));
    expect(skipped.filter((l) => l.includes('skipped, no AWS credentials')).map((l) => l.split(/\s+/)[1])).toEqual(['file-system', 'dns-mount-target', 'file-system-policy']);
    const tcp = checkRows(run.stdout).find((l) => /^pass +tcp-2049 /.test(l));
    expect(tcp).toContain(`${efs.mountTargets[0].ipAddress}:2049 (${fsName(efs.fileSystemId)}) accepts connections`);
    // To a pipe: 100 columns, each check's text wrapped under what was found.
    expect(widest(run.stdout)).toBeLessThanOrEqual(100);
    expect(run.stdout).toMatch(/^skip  file-system {12}\S.*\n {29}\S/m);
  });

  test('--no-aws needs no Region: the file system\'s DNS name goes unchecked, and says why; fits COLUMNS', async () => {
    const run = await cli(['doctor', 'fs-0123456789abcdef0', '--no-aws', '--dns-server', dns.server], { COLUMNS: '80' });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const rows = checkRows(run.stdout);
    expect(rows).toContain('skip  dns-file-system        the file system\'s DNS name (fs-0123456789abcdef0.efs.<region>.amazonaws.com): skipped, no Region given (--region or AWS_REGION)');
    expect(rows[rows.length - 1]).toMatch(/^fs-0123456789abcdef0 \(no Region given\): 1 passed, 0 warnings, 0 failed, 10 skipped, in \d+\.\d s$/);
    expect(widest(run.stdout)).toBeLessThanOrEqual(80);
  });

  test('--markdown prints the checks as a table, the fix in a column of its own', async () => {
    const run = await cli(['doctor', 'fs-0123456789abcdef0', '--no-aws', '--dns-server', dns.server, '--markdown']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines.slice(0, 3)).toEqual(['| status | check | found | fix |', '|---|---|---|---|',
      '| skip | file-system | the file system and its mount targets (DescribeMountTargets): skipped, as --no-aws asks |  |']);
    expect(lines[lines.length - 1]).toMatch(/^fs-0123456789abcdef0 \(no Region given\): /);
  });

  test.each([
    [['doctor', 'fs-12'], '\'fs-12\' is not a file system id: expected fs- and 8 to 40 hex digits'],
    [['doctor', 'fs-12345678', '--region', 'us-east-1', '--access-point', 'ap-1'], '--access-point \'ap-1\' is not an access point id'],
    [['doctor', 'fs-12345678', '--region', 'us-east-1', '--dns-server', 'resolver.local'], '--dns-server \'resolver.local\' is not an IP address with an optional port'],
    [['doctor', 'fs-12345678', '--region', 'us-east-1', '--mount-point', '/nonexistent/dir'], '--mount-point /nonexistent/dir is not a directory'],
    [['doctor', 'fs-12345678'], 'no AWS Region: give --region (the file system\'s DNS names contain it), set AWS_REGION, or check without AWS (--no-aws)'],
    [['doctor', 'fs-12345678', '--region', 'Virginia'], '--region \'Virginia\' is not a Region name such as us-east-1'],
  ])('fails with exit 2 and one line on bad input (%#)', async (args, message) => {
    const run = await cli(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^cdk-efs-kit: /);
    expect(run.stderr).toContain(message);
    expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  });

  test('--help explains the command, its options and examples', async () => {
    const run = await cli(['doctor', '--help']);
    expect(run.stdout).toMatch(/^Usage: cdk-efs-kit doctor \[options\] <file-system-id>/);
    for (const option of ['--access-point <id>', '--mount-point <dir>', '--region <region>', '--profile <name>', '--endpoint <url>', '--dns-server <ip[:port]>', '--no-aws', '--json', '--markdown']) {
      expect(run.stdout).toContain(option);
    }
  });

  test('--no-aws runs without loading the AWS SDK', async () => {
    // Checked on the sources: the bundle holds the SDK inline, where no require hook sees it (esbuild
    // keeps a dynamic import() lazy, so what is lazy in the sources is lazy in the bundle).
    const efs = await answeringFileSystem();
    const forbid = path.join(__dirname, '..', '..', 'helpers', 'forbid-aws-sdk.js');
    const child = spawn(path.join(__dirname, '..', '..', '..', 'node_modules', '.bin', 'tsx'), [path.join(__dirname, '..', '..', '..', 'bin', 'cdk-efs-kit.ts'), 'doctor', efs.fileSystemId, '--region', REGION, '--no-aws', '--dns-server', dns.server], {
      env: { ...process.env, NODE_OPTIONS: `--require ${forbid}` },
    });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(out).not.toContain('loaded @aws-sdk');
    expect(out).toMatch(/^pass +dns-file-system /m);
    expect(code).toBe(0);
  });

  describeWithFuse('on an efs-sim FUSE mount', () => {
    let sim: EfsSim;
    beforeAll(async () => { sim = await startEfsSim({ profile: 'efs-gp' }); });
    afterAll(async () => { await sim?.stop(); });

    test('--mount-point on it fails as "not an NFS mount", read from the real /proc/self/mountinfo', async () => {
      const efs = await answeringFileSystem();
      const run = await cli(['doctor', efs.fileSystemId, '--region', REGION, '--no-aws', '--dns-server', dns.server, '--mount-point', sim.mount]);
      expect(run.code).toBe(1);
      const line = checkRows(run.stdout).find((l) => /^FAIL +mount +/.test(l));
      expect(line!.replace(/^FAIL +mount +/, '')).toBe(`${sim.mount} is not an NFS mount (it is fuse.efs-sim, efs-sim) -> fix: mount the file system there: sudo mount -t efs -o tls,iam ${efs.fileSystemId}:/ ${sim.mount}`);
      expect(run.stdout).toMatch(/^skip +round-trip /m);
    });
  });
});
