import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CreateRoleCommand, IAMClient, PutRolePolicyCommand } from '@aws-sdk/client-iam';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { readS3FilesAwsFacts } from '../../../bin/doctor/aws-facts';
import { DoctorDeps, DoctorReport, runDoctor } from '../../../bin/doctor/run-doctor';
import { addressFamilyCheck, hasIpv6Route, isNat64, parseIpv6Routes } from '../../../lambda/shared/mount-checks/address-family';
import { DnsLookup } from '../../../lambda/shared/mount-checks/dns-lookup';
import { processIdentity } from '../../../lambda/shared/mount-checks/posix-identity';
import { DnsStub, startDnsStub } from '../../helpers/dns-stub';
import { Moto, startMoto } from '../../helpers/moto';
import { listen, Listener, loopbackAddress } from '../../helpers/nfs-listener';

// `cdk-efs-kit doctor --kind s3files` against real parts: a DNS server on 127.0.0.1 answering for
// the zonal names `<az-id>.fs-….s3files.<region>.on.aws`, TCP listeners on loopback addresses for
// the mount targets, moto's IAM and STS on 127.0.0.1 for the caller and its policies. Fixtures,
// said where used: amazon-efs-utils is not installed here, so scripts answer `mount.s3files
// --version` / `mount.efs --version` as it does; this host's IPv6 route table is given as
// /proc/net/ipv6_route text (a test cannot change the host's routes); the DNS64 case is judged from
// lookups built by hand, because connecting to a 64:ff9b:: address would leave loopback.

const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'bin', 'cdk-efs-kit.js');
const REGION = 'us-east-1';
const FS = 'fs-0123456789abcdef01';
const zonal = (azId: string) => `${azId}.${FS}.s3files.${REGION}.on.aws`;
/** A host with IPv4 only: its table holds the loopback route and the kernel's reject default route. */
const NO_IPV6_ROUTES = [
  '00000000000000000000000000000001 80 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000004 00000000 80200001       lo',
  '00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo',
].join('\n');

let moto: Moto;
let dns: DnsStub;
let work: string;
let listeners: Listener[];
beforeAll(async () => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  moto = await startMoto();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'doctor-s3files-'));
  fs.mkdirSync(path.join(work, 'bin'));
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

/** A stand-in for an amazon-efs-utils helper: prints what `<helper> --version` prints. */
function helper(name: string, version: string): string {
  const file = path.join(work, 'bin', `${name}-${version}`);
  fs.writeFileSync(file, `#!/bin/sh\n[ "$1" = --version ] && echo "$0 Version: ${version}"\n`, { mode: 0o755 });
  return file;
}

/** A mount target in `azId`: its zonal name resolves to a loopback address that listens on 2049 unless told not to. */
async function mountTarget(azId: string, options: { listening?: boolean } = {}): Promise<string> {
  const address = loopbackAddress();
  if (options.listening !== false) listeners.push(await listen(address));
  dns.set(zonal(azId), { A: [address] });
  return address;
}

/** Credentials of a role session in moto whose inline policy is `statements`. */
async function roleSession(name: string, statements: object[]): Promise<Record<string, string>> {
  const iam = new IAMClient(moto.clientConfig);
  await iam.send(new CreateRoleCommand({ RoleName: name, AssumeRolePolicyDocument: JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { AWS: '*' }, Action: 'sts:AssumeRole' }] }) }));
  await iam.send(new PutRolePolicyCommand({ RoleName: name, PolicyName: 's3files', PolicyDocument: JSON.stringify({ Version: '2012-10-17', Statement: statements }) }));
  const sts = new STSClient(moto.clientConfig);
  const { Credentials: c } = await sts.send(new AssumeRoleCommand({ RoleArn: `arn:aws:iam::123456789012:role/${name}`, RoleSessionName: 'doctor' }));
  iam.destroy();
  sts.destroy();
  return { AWS_ACCESS_KEY_ID: c!.AccessKeyId!, AWS_SECRET_ACCESS_KEY: c!.SecretAccessKey!, AWS_SESSION_TOKEN: c!.SessionToken! };
}

/** The AWS facts as the command reads them for S3 Files, with a role session's credentials. */
async function factsAs(env: Record<string, string>) {
  const previous = { ...process.env };
  Object.assign(process.env, env);
  try {
    return await readS3FilesAwsFacts({ region: REGION, endpoint: moto.endpoint });
  } finally {
    process.env = previous;
  }
}

const deps = (over: Partial<DoctorDeps> = {}): DoctorDeps => ({
  aws: { skipped: 'as --no-aws asks' },
  dnsServers: [dns.server],
  mountinfo: () => '',
  mountS3FilesCommand: helper('mount.s3files', '3.2.0'),
  identity: processIdentity(),
  ipv6Routes: () => NO_IPV6_ROUTES,
  ...over,
});
const statusOf = (report: DoctorReport) => report.checks.map((c) => `${c.status} ${c.id}`);
const check = (report: DoctorReport, id: string) => report.checks.filter((c) => c.id === id);
const input = (azIds: string[]) => ({ fileSystemId: FS, region: REGION, kind: 'S3_FILES' as const, availabilityZoneIds: azIds });

describe('runDoctor for S3 Files (DNS, TCP and IAM real; efs-utils and the route table fixtures)', () => {
  test('a healthy client: zonal names resolve, TCP 2049 answers, efs-utils 3.2.0, the role allows ClientMount and ClientWrite', async () => {
    const [a, b] = [await mountTarget('use1-az1'), await mountTarget('use1-az2')];
    const aws = await factsAs(await roleSession('s3files-client', [{ Sid: 'S3FilesClient', Effect: 'Allow', Action: ['s3files:ClientMount', 's3files:ClientWrite'], Resource: '*' }]));
    const report = await runDoctor(input(['use1-az1', 'use1-az2']), deps({ aws }));
    expect(statusOf(report)).toEqual([
      'skip file-system', 'skip dns-file-system', 'pass dns-mount-target', 'pass dns-mount-target', 'pass tcp-2049', 'pass tcp-2049', 'pass address-family',
      'skip mount', 'skip mount-options', 'skip encryption-in-transit', 'pass efs-utils', 'pass file-system-policy', 'skip access-point', 'skip round-trip',
    ]);
    expect(check(report, 'dns-mount-target').map((c) => c.detail)).toEqual([`${zonal('use1-az1')} resolves to ${a} (A)`, `${zonal('use1-az2')} resolves to ${b} (A)`]);
    expect(check(report, 'dns-file-system')[0].detail).toBe(`${FS}.s3files.${REGION}.on.aws does not resolve (A: no such name (NXDOMAIN); AAAA: no such name (NXDOMAIN)); not needed: mount.s3files resolves only the zonal names <az-id>.${FS}.s3files.${REGION}.on.aws`);
    expect(check(report, 'tcp-2049')[0].detail).toMatch(new RegExp(`^${a.replace(/\./g, '\\.')}:2049 \\(mount target in use1-az1\\) accepts connections`));
    expect(check(report, 'file-system-policy')[0].detail).toContain(`arn:aws:sts::123456789012:assumed-role/s3files-client/doctor: ClientMount and ClientWrite allowed by the identity's own policies (statement S3FilesClient)`);
    expect(check(report, 'efs-utils')[0].detail).toContain('amazon-efs-utils 3.2.0');
    expect(listeners.map((l) => l.accepted())).toEqual([1, 1]);
    // Only S3 Files names were asked: never an EFS name.
    expect(dns.queries.every((q) => q.name.includes('.s3files.'))).toBe(true);
  });

  test('fails naming each broken step and its fix: a zone without a name, a port that never answers, a role without s3files:ClientMount', async () => {
    const silent = await mountTarget('use1-az1', { listening: false });
    const aws = await factsAs(await roleSession('efs-only-client', [{ Effect: 'Allow', Action: ['elasticfilesystem:ClientMount'], Resource: '*' }]));
    const report = await runDoctor(input(['use1-az1', 'use1-az3']), deps({ aws }));
    const [resolves, missing] = check(report, 'dns-mount-target');
    expect(resolves.status).toBe('pass');
    expect(missing).toMatchObject({ status: 'fail', detail: `${zonal('use1-az3')} does not resolve (A: no such name (NXDOMAIN); AAAA: no such name (NXDOMAIN))` });
    expect(missing.fix).toContain(`check that use1-az3 has a mount target of ${FS} (aws s3files list-mount-targets --file-system-id ${FS})`);
    expect(check(report, 'tcp-2049')).toEqual([expect.objectContaining({ status: 'fail', detail: `${silent}:2049 (mount target in use1-az1): connection refused (the address answers, but nothing listens on the port)` })]);
    expect(check(report, 'tcp-2049')[0].fix).toContain('allow inbound TCP 2049 on the mount target\'s security group');
    const policy = check(report, 'file-system-policy')[0];
    expect(policy.status).toBe('warn');
    expect(policy.detail).toContain('the identity\'s own policies do not allow s3files:ClientMount, and the file system policy is not read here (no S3 Files API client): unless that policy allows it to this identity, the mount fails with access denied');
    expect(policy.fix).toBe(`allow s3files:ClientMount and s3files:ClientWrite on arn:aws:s3files:us-east-1:123456789012:file-system/${FS} to arn:aws:sts::123456789012:assumed-role/efs-only-client/doctor (its role's policy, e.g. the AmazonS3FilesClientFullAccess managed policy, or the file system policy)`);
    expect(report.counts.fail).toBe(2);
  });

  test('a role that denies ClientWrite through other access points: read-only through them, allowed through its own', async () => {
    await mountTarget('use1-az1');
    const fsArn = `arn:aws:s3files:${REGION}:123456789012:file-system/${FS}`;
    const aws = await factsAs(await roleSession('ap-bound-client', [
      { Sid: 'Client', Effect: 'Allow', Action: ['s3files:ClientMount', 's3files:ClientWrite'], Resource: fsArn },
      { Sid: 'OnlyJobs', Effect: 'Deny', Action: 's3files:ClientWrite', Resource: fsArn, Condition: { StringNotEquals: { 's3files:AccessPointArn': `${fsArn}/access-point/fsap-0000000000000000a` } } },
    ]));
    const through = async (accessPointId: string) => check(await runDoctor({ ...input(['use1-az1']), accessPointId }, deps({ aws })), 'file-system-policy')[0];
    expect(await through('fsap-0000000000000000a')).toMatchObject({ status: 'pass' });
    expect(await through('fsap-0000000000000000b')).toMatchObject({ status: 'warn', detail: expect.stringContaining('deny ClientWrite (statement OnlyJobs): the mount is read-only') });
  });

  test('amazon-efs-utils: 3.1.0 mounts S3 Files but lacks the STS fix; 2.1.0 has no mount.s3files; none at all', async () => {
    await mountTarget('use1-az1');
    const efsUtils = async (over: Partial<DoctorDeps>) => check(await runDoctor(input(['use1-az1']), deps(over)), 'efs-utils')[0];
    const old = await efsUtils({ mountS3FilesCommand: helper('mount.s3files', '3.1.0') });
    expect(old).toMatchObject({ status: 'warn', detail: expect.stringContaining('amazon-efs-utils 3.1.0') });
    expect(old.detail).toContain('predates 3.1.2\'s STS endpoint fix: mounts that take credentials from IRSA or EKS Pod Identity in private subnets fail (aws-efs-csi-driver #1907)');
    expect(old.fix).toContain('3.0.0 is the first that mounts S3 Files (mount -t s3files), 3.1.2 fixed the STS endpoint');
    const none = path.join(work, 'bin', 'no-such-mount.s3files');
    expect(await efsUtils({ mountS3FilesCommand: none, mountEfsCommand: helper('mount.efs', '2.1.0') }))
      .toMatchObject({ status: 'fail', detail: expect.stringMatching(/^amazon-efs-utils 2\.1\.0 \(.*mount\.efs-2\.1\.0\) has no mount\.s3files: mount -t s3files needs 3\.0\.0 or later$/) });
    expect(await efsUtils({ mountS3FilesCommand: none, mountEfsCommand: none }))
      .toMatchObject({ status: 'fail', detail: 'amazon-efs-utils is not installed: mount -t s3files (TLS and IAM, both required by S3 Files) is not available here' });
  });

  test('a dual-stack zonal name on a host without an IPv6 route: the address-family check names the pitfall and the fix', async () => {
    // ::1 is this machine's only IPv6 loopback address: every address listens on a port of its own instead of 2049.
    const v6 = await listen('::1', 0);
    const v4 = loopbackAddress();
    listeners.push(v6, await listen(v4, v6.port));
    dns.set(zonal('use1-az1'), { A: [v4], AAAA: ['::1'] });
    const routes = NO_IPV6_ROUTES.split('\n')[1]; // only the reject route: no route to ::1 either
    const report = await runDoctor(input(['use1-az1']), deps({ nfsPort: v6.port, ipv6Routes: () => routes }));
    const family = check(report, 'address-family')[0];
    expect(family.status).toBe('warn');
    expect(family.detail).toBe(`${zonal('use1-az1')} resolves (AAAA) to ::1, but this host has no IPv6 route to it: a client that takes the IPv6 address first (amazon-efs-utils does, aws/efs-utils #356) fails or times out instead of using ${v4}`);
    expect(family.fix).toBe(`prefer IPv4 on this host (add "precedence ::ffff:0:0/96 100" to /etc/gai.conf) or mount by address (-o mounttargetip=${v4}); or give this host an IPv6 route (a dual-stack subnet)`);
    // With this host's loopback route the same names are fine.
    const routed = await runDoctor(input(['use1-az1']), deps({ nfsPort: v6.port }));
    expect(check(routed, 'address-family')[0].status).toBe('pass');
  });
});

describe('the address-family check (lookups built by hand: no connection leaves loopback)', () => {
  const found = (name: string, type: 'A' | 'AAAA', addresses: string[]): DnsLookup => ({ name, type, addresses });
  const routes = parseIpv6Routes(fs.readFileSync('/proc/net/ipv6_route', 'utf8'));

  test('reads /proc/net/ipv6_route: reject routes do not count; prefixes are matched bit by bit', () => {
    const table = parseIpv6Routes([
      '20010db8000000000000000000000000 20 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0',
      NO_IPV6_ROUTES,
    ].join('\n'));
    expect(table.map((r) => [r.length, r.device])).toEqual([[32, 'eth0'], [128, 'lo']]);
    expect(hasIpv6Route(table, '2001:db8:ffff::1')).toBe(true);
    expect(hasIpv6Route(table, '2001:db9::1')).toBe(false);
    expect(hasIpv6Route(table, '::1')).toBe(true);
    expect(hasIpv6Route(routes, '::1')).toBe(true); // this machine's own table
  });

  test('DNS64: an AAAA in 64:ff9b::/96 (embedded IPv4 spelled either way) is a warning naming efs-utils #356 and the fixes', () => {
    expect(isNat64('64:ff9b::10.0.1.25')).toBe(true);
    expect(isNat64('64:ff9b::a00:119')).toBe(true);
    expect(isNat64('2600:1f18::9')).toBe(false);
    const result = addressFamilyCheck([found('use1-az1.x', 'A', ['10.0.1.25']), found('use1-az1.x', 'AAAA', ['64:ff9b::a00:119'])], routes);
    expect(result.status).toBe('warn');
    expect(result.detail).toContain('use1-az1.x resolves (AAAA) to 64:ff9b::a00:119, an address DNS64 made up (64:ff9b::/96)');
    expect(result.detail).toContain('aws/efs-utils #356');
    expect(result.fix).toBe('prefer IPv4 on this host (add "precedence ::ffff:0:0/96 100" to /etc/gai.conf) or mount by address (-o mounttargetip=10.0.1.25); or make the mount target dual-stack, so the name has an IPv6 address of its own');
  });

  test('an IPv6-only name on a host without an IPv6 route fails: nothing to fall back to', () => {
    const result = addressFamilyCheck([found('use1-az1.x', 'A', []), found('use1-az1.x', 'AAAA', ['2600:1f18::9'])], parseIpv6Routes(NO_IPV6_ROUTES));
    expect(result).toMatchObject({ status: 'fail', fix: 'give this host an IPv6 address and route (a dual-stack subnet), or make the mount target dual-stack' });
    expect(result.detail).toContain('and to no IPv4 address: this host cannot reach the mount target');
  });
});

interface Run { code: number | null; stdout: string; stderr: string }

/** The built command line, as a user runs it, with no AWS settings. */
function cli(args: string[]): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_')));
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...base, HOME: work, AWS_EC2_METADATA_DISABLED: 'true', COLUMNS: '200' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('cdk-efs-kit doctor --kind s3files (the built command line)', () => {
  test('--no-aws with --az-id: the zonal names and TCP checked, the AWS checks skipped saying why', async () => {
    const address = await mountTarget('use1-az1');
    const run = await cli(['doctor', FS, '--kind', 's3files', '--az-id', 'use1-az1', '--region', REGION, '--no-aws', '--dns-server', dns.server]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(new RegExp(`^pass +dns-mount-target +${zonal('use1-az1').replace(/\./g, '\\.')} resolves to ${address.replace(/\./g, '\\.')} \\(A\\)$`, 'm'));
    expect(run.stdout).toMatch(/^pass +tcp-2049 +.*\(mount target in use1-az1\) accepts connections/m);
    expect(run.stdout).toMatch(/^skip +file-system-policy +s3files:ClientMount and ClientWrite for this identity: skipped, as --no-aws asks$/m);
    // amazon-efs-utils is not installed on this machine: the one failure, naming the release to install.
    expect(run.stdout).toMatch(/^FAIL +efs-utils +amazon-efs-utils is not installed: mount -t s3files/m);
    expect(run.code).toBe(1);
  });

  test('refuses an AZ name for --az-id, and --az-id without --kind s3files', async () => {
    const name = await cli(['doctor', FS, '--kind', 's3files', '--az-id', 'us-east-1a', '--no-aws']);
    expect(name.stderr).toContain('--az-id \'us-east-1a\' is not an Availability Zone ID such as use1-az1 (the ID, not the name us-east-1a)');
    expect(name.code).not.toBe(0);
    const efs = await cli(['doctor', FS, '--az-id', 'use1-az1', '--no-aws']);
    expect(efs.stderr).toContain('--az-id applies to S3 Files (--kind s3files)');
  });
});
