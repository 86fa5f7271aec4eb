import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CLIENT_MOUNT, CLIENT_ROOT_ACCESS, CLIENT_WRITE, clientAccessCheck, ClientAccessInput, decideClientAccess } from '../../../lambda/shared/mount-checks/efs-client-access';
import { fileSystemDnsName, mountTargetDnsName } from '../../../lib/file-system/contract/efs-names';
import { compareVersions, efsUtilsVersion, processAlive, tunnelStateFor } from '../../../lambda/shared/mount-checks/efs-utils';
import { evaluatePolicies, PolicyDocument, RequestContext } from '../../../lambda/shared/mount-checks/iam-policy';
import { isNfs, MOUNTINFO, mountContaining, nfsServerOf, parseMountInfo } from '../../../lambda/shared/mount-checks/mountinfo';
import { judgeNfsOptions } from '../../../lambda/shared/mount-checks/nfs-mount-options';
import { canWrite, compareWithAccessPoint, judgeRootDirectory } from '../../../lambda/shared/mount-checks/posix-identity';
import { roundTripCheck } from '../../../lambda/shared/mount-checks/round-trip';
import { describeWithFuse, EfsSim, startEfsSim } from '../../helpers/efs-sim';
import { NFS_MOUNTINFO } from '../../helpers/nfs-mountinfo';

// The checks the doctor and the readiness gate share. Mount options come from this machine's real
// /proc/self/mountinfo (its kernel has no NFS client, so an efs-sim FUSE mount stands in) and, for
// NFS, from fixture lines shaped like real EFS mounts' (test/helpers/nfs-mountinfo.ts says where
// each comes from). Policies are evaluated by our own evaluator, on documents shaped as the EFS and
// IAM API references return them.

describe('EFS names', () => {
  test('the file system name and the mount target (zone) name, as the EFS User Guide and efs-utils spell them', () => {
    expect(fileSystemDnsName('fs-12345678', 'eu-west-1')).toBe('fs-12345678.efs.eu-west-1.amazonaws.com');
    expect(mountTargetDnsName('eu-west-1b', 'fs-12345678', 'eu-west-1')).toBe('eu-west-1b.fs-12345678.efs.eu-west-1.amazonaws.com');
    expect(fileSystemDnsName('fs-12345678', 'cn-north-1')).toBe('fs-12345678.efs.cn-north-1.amazonaws.com.cn');
  });
});

describe('mountinfo', () => {
  test('parses this machine\'s real /proc/self/mountinfo: the root file system is there', () => {
    const entries = parseMountInfo(fs.readFileSync(MOUNTINFO, 'utf8'));
    expect(entries.length).toBeGreaterThan(3);
    expect(entries.some((e) => e.mountPoint === '/')).toBe(true);
    expect(mountContaining(entries, os.tmpdir())).toBeDefined();
  });

  test('unescapes paths (\\040 is a space) and finds the mount a path lies in, the latest on a shared mount point', () => {
    const entries = parseMountInfo([
      '22 1 0:20 / / rw,relatime - ext4 /dev/vda rw',
      '40 22 0:40 / /mnt/efs\\040data rw,relatime - tmpfs tmpfs rw',
      '41 40 0:41 / /mnt/efs\\040data rw,relatime - nfs4 fs-12345678.efs.us-east-1.amazonaws.com:/ rw,vers=4.1',
    ].join('\n'));
    expect(entries[1].mountPoint).toBe('/mnt/efs data');
    expect(mountContaining(entries, '/mnt/efs data/app')!.fsType).toBe('nfs4');
    expect(mountContaining(entries, '/mnt/efs')!.mountPoint).toBe('/');
    expect(nfsServerOf(entries[2].source)).toBe('fs-12345678.efs.us-east-1.amazonaws.com');
    expect(nfsServerOf('[2600:1f18:abcd:1201::15]:/')).toBe('2600:1f18:abcd:1201::15');
  });

  describeWithFuse('on an efs-sim FUSE mount', () => {
    let sim: EfsSim;
    beforeAll(async () => { sim = await startEfsSim({ profile: 'efs-gp' }); });
    afterAll(async () => { await sim?.stop(); });

    test('the real mountinfo shows it as FUSE, not NFS', () => {
      const entry = mountContaining(parseMountInfo(fs.readFileSync(MOUNTINFO, 'utf8')), sim.mount)!;
      expect(entry.mountPoint).toBe(sim.mount);
      expect(entry.fsType).toBe('fuse.efs-sim');
      expect(isNfs(entry)).toBe(false);
    });

    test('the round trip writes, reads, renames and unlinks there, timing each, and leaves nothing', async () => {
      const result = await roundTripCheck(sim.mount);
      expect(result.id).toBe('round-trip');
      expect(['pass', 'warn']).toContain(result.status); // warn only if this busy machine made a step exceed 50 ms
      expect(result.detail).toMatch(new RegExp(`4 KiB round trip in ${sim.mount}.*write\\+fsync [\\d.]+ ms, read [\\d.]+ ms, rename [\\d.]+ ms, unlink [\\d.]+ ms`));
      expect(fs.readdirSync(sim.mount)).toEqual([]);
    });
  });
});

describe('NFS mount options against EFS\'s recommendations (fixtures: test/helpers/nfs-mountinfo.ts)', () => {
  const entry = (name: keyof typeof NFS_MOUNTINFO) => parseMountInfo(NFS_MOUNTINFO[name])[0];

  test('an amazon-efs-utils TLS mount through its local proxy has the recommended options', () => {
    const result = judgeNfsOptions(entry('efsUtilsTls'));
    expect(result).toEqual({ id: 'mount-options', status: 'pass', detail: 'nfs4 options are what EFS recommends (vers=4.1,rsize=1048576,wsize=1048576,hard,timeo=600,retrans=2,noresvport)' });
  });

  test('a direct nfs4 mount with the User Guide\'s options passes too, over IPv4 and IPv6', () => {
    expect(judgeNfsOptions(entry('dnsNameRecommended')).status).toBe('pass');
    expect(judgeNfsOptions(entry('ipv6Recommended')).status).toBe('pass');
  });

  test('a mount by IP with the kernel\'s defaults lacks only noresvport', () => {
    const result = judgeNfsOptions(entry('ipDefaults'));
    expect(result.status).toBe('warn');
    expect(result.detail).toBe('1 option differs from EFS\'s recommendations: no noresvport (after a network interruption the client reconnects from a reserved port and may stay disconnected)');
    expect(result.fix).toBe('remount with -o nfsvers=4.1,rsize=1048576,wsize=1048576,hard,timeo=600,retrans=2,noresvport (mount -t efs sets them for you)');
  });

  test('warns on every option EFS advises against, each with what it costs', () => {
    const result = judgeNfsOptions(entry('advisedAgainst'));
    expect(result.status).toBe('warn');
    for (const part of [
      'vers=4.0 (EFS recommends 4.1)',
      'rsize=32768 (smaller I/O than EFS\'s 1048576',
      'wsize=32768',
      'soft (a request that times out fails with an I/O error',
      'timeo=50 (EFS recommends 600)',
      'retrans=5 (EFS recommends 2)',
      'noac (no attribute cache',
      'lookupcache=none (no lookup cache',
    ]) expect(result.detail).toContain(part);
    expect(judgeNfsOptions(entry('actimeoZero')).detail).toContain('actimeo=0 (no attribute cache');
  });
});

describe('amazon-efs-utils', () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'efs-utils-')); });
  afterEach(() => { fs.rmSync(dir, { recursive: true, force: true }); });

  test('reads the state file efs-utils writes for a local port: proxy, TLS, IAM, access point', () => {
    // As efs-utils 3.2.0's write_tunnel_state_file writes it (src/efs_utils_common/proxy.py).
    fs.writeFileSync(path.join(dir, 'fs-0123456789abcdef0.mnt.efs.20049'), JSON.stringify({
      pid: process.pid,
      cmd: ['/usr/bin/efs-proxy', '/var/run/efs/stunnel-config.fs-0123456789abcdef0.mnt.efs.20049', '--tls', '--no-direct-s3-read'],
      files: ['/var/run/efs/stunnel-config.fs-0123456789abcdef0.mnt.efs.20049'],
      mount_time: 1795000000.5, mountpoint: '/mnt/efs', service_type: 'elasticfilesystem',
      awsCredentialsMethod: 'metadata:', accessPoint: 'fsap-0123456789abcdef0', commonName: 'ip-10-0-1-5', region: 'us-east-1',
    }));
    fs.writeFileSync(path.join(dir, '~fs-0123456789abcdef0.mnt.other.20050'), '{}'); // a mount being set up
    expect(tunnelStateFor(20049, dir)).toEqual({
      stateFile: path.join(dir, 'fs-0123456789abcdef0.mnt.efs.20049'), fileSystemId: 'fs-0123456789abcdef0', pid: process.pid,
      command: expect.arrayContaining(['--tls']), proxy: 'efs-proxy', tls: true, iam: true, accessPointId: 'fsap-0123456789abcdef0',
    });
    expect(tunnelStateFor(20050, dir)).toBeUndefined();
    expect(tunnelStateFor(20049, path.join(dir, 'missing'))).toBeUndefined();
  });

  test('a stunnel mount (efs-utils 1.x, or -o stunnel) is TLS; efs-proxy without --tls is not', () => {
    fs.writeFileSync(path.join(dir, 'fs-12345678.mnt.a.20100'), JSON.stringify({ pid: 1, cmd: ['/usr/bin/stunnel5', '/var/run/efs/stunnel-config.fs-12345678.mnt.a.20100'] }));
    fs.writeFileSync(path.join(dir, 'fs-12345678.mnt.b.20101'), JSON.stringify({ pid: 1, cmd: ['/usr/bin/efs-proxy', '/var/run/efs/x', '--no-direct-s3-read'] }));
    expect(tunnelStateFor(20100, dir)).toMatchObject({ proxy: 'stunnel', tls: true, iam: false });
    expect(tunnelStateFor(20101, dir)).toMatchObject({ proxy: 'efs-proxy', tls: false });
  });

  test('reads the version mount.efs prints (a stand-in script that prints what efs-utils prints)', async () => {
    const command = path.join(dir, 'mount.efs');
    fs.writeFileSync(command, '#!/bin/sh\n[ "$1" = --version ] && echo "$0 Version: 2.1.0"\n', { mode: 0o755 });
    expect(await efsUtilsVersion(command)).toEqual({ command, version: '2.1.0' });
    expect(await efsUtilsVersion(path.join(dir, 'missing'))).toBeUndefined();
  });

  test('compares versions numerically, and tells a live pid from a gone one', () => {
    expect(compareVersions('2.10.0', '2.9.1')).toBe(1);
    expect(compareVersions('2.3', '2.3.0')).toBe(0);
    expect(compareVersions('1.34.5', '2.0')).toBe(-1);
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(2 ** 22 + 1)).toBe(false); // above Linux's pid_max
  });
});

describe('POSIX identity', () => {
  const me = { uid: 1000, gid: 1000, secondaryGids: [] };

  test('the client as the access point\'s user passes; another uid warns naming both and the fix', () => {
    expect(compareWithAccessPoint(me, 'fsap-0000000a', { uid: 1000, gid: 1000, secondaryGids: [] }).status).toBe('pass');
    const result = compareWithAccessPoint(me, 'fsap-0000000a', { uid: 1001, gid: 1001, secondaryGids: [] });
    expect(result.status).toBe('warn');
    expect(result.detail).toContain('this client runs as 1000:1000 but fsap-0000000a makes every request 1001:1001');
    expect(result.fix).toContain('run the client as 1001:1001 (ECS: the container\'s user "1001:1001")');
    expect(compareWithAccessPoint(me, 'fsap-0000000a', undefined).status).toBe('pass');
  });

  test('who may write a directory: owner, group (also secondary), others, root', () => {
    expect(canWrite(me, { uid: 1000, gid: 0, mode: 0o700 })).toBe(true);
    expect(canWrite(me, { uid: 0, gid: 1000, mode: 0o770 })).toBe(true);
    expect(canWrite({ ...me, secondaryGids: [50] }, { uid: 0, gid: 50, mode: 0o775 })).toBe(true);
    expect(canWrite(me, { uid: 0, gid: 0, mode: 0o755 })).toBe(false);
    expect(canWrite(me, { uid: 0, gid: 0, mode: 0o757 })).toBe(true);
    expect(canWrite(me, { uid: 1000, gid: 0, mode: 0o500 })).toBe(false);
    expect(canWrite({ uid: 0, gid: 0, secondaryGids: [] }, { uid: 1000, gid: 1000, mode: 0o700 })).toBe(true);
  });

  test('fails when the access point\'s user may not write its root directory', () => {
    const result = judgeRootDirectory('fsap-0000000a', '/app', { uid: 1001, gid: 1001, secondaryGids: [] }, { uid: 0, gid: 0, mode: 0o755 }, 'as created');
    expect(result.status).toBe('fail');
    expect(result.detail).toBe('1001:1001 may not write the root directory of fsap-0000000a, /app (owner 0:0, mode 755, as created): every create there fails with Permission denied');
  });
});

describe('IAM policy evaluation', () => {
  const FS_ARN = 'arn:aws:elasticfilesystem:us-east-1:111122223333:file-system/fs-12345678';
  const ROLE_SESSION = { arn: 'arn:aws:sts::111122223333:assumed-role/app-task/abc123', account: '111122223333' };
  const request = (over: Partial<RequestContext> = {}): RequestContext => ({
    action: CLIENT_MOUNT, resource: FS_ARN, caller: ROLE_SESSION,
    keys: { 'aws:SecureTransport': 'true', 'elasticfilesystem:AccessPointArn': undefined, 'aws:PrincipalAccount': '111122223333' },
    ...over,
  });
  const policy = (...Statement: PolicyDocument['Statement'][]): PolicyDocument => ({ Version: '2012-10-17', Statement: Statement.flat() });

  test('an explicit Deny beats an Allow; a wildcard action matches', () => {
    const doc = policy(
      { Sid: 'All', Effect: 'Allow', Principal: { AWS: '*' }, Action: 'elasticfilesystem:Client*', Resource: FS_ARN },
      { Sid: 'NoPlain', Effect: 'Deny', Principal: { AWS: '*' }, Action: '*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } },
    );
    expect(evaluatePolicies([doc], request(), 'resource')).toMatchObject({ decision: 'allow', statements: ['All'] });
    expect(evaluatePolicies([doc], request({ keys: { 'aws:SecureTransport': 'false' } }), 'resource')).toMatchObject({ decision: 'deny', statements: ['NoPlain'] });
  });

  test('a role principal matches its sessions; an account principal only delegates', () => {
    const byRole = policy({ Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::111122223333:role/service/app-task' }, Action: CLIENT_MOUNT });
    expect(evaluatePolicies([byRole], request(), 'resource')).toMatchObject({ decision: 'allow', accountPrincipalOnly: false });
    expect(evaluatePolicies([byRole], request({ caller: { ...ROLE_SESSION, arn: 'arn:aws:sts::111122223333:assumed-role/other/x' } }), 'resource').decision).toBe('implicit-deny');
    const byAccount = policy({ Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::111122223333:root' }, Action: CLIENT_MOUNT });
    expect(evaluatePolicies([byAccount], request(), 'resource')).toMatchObject({ decision: 'allow', accountPrincipalOnly: true });
    expect(evaluatePolicies([byAccount], request({ caller: undefined }), 'resource').decision).toBe('implicit-deny');
  });

  test('condition operators: StringEquals, ArnLike, Null, IfExists and the negated ones on a missing key', () => {
    const ap = 'arn:aws:elasticfilesystem:us-east-1:111122223333:access-point/fsap-0000000a';
    const onlyThrough = (Condition: Record<string, Record<string, unknown>>) => policy({ Effect: 'Allow', Principal: '*', Action: CLIENT_MOUNT, Condition });
    const withAp = request({ keys: { 'elasticfilesystem:AccessPointArn': ap } });
    const withoutAp = request({ keys: { 'elasticfilesystem:AccessPointArn': undefined } });
    expect(evaluatePolicies([onlyThrough({ StringEquals: { 'elasticfilesystem:AccessPointArn': ap } })], withAp, 'resource').decision).toBe('allow');
    expect(evaluatePolicies([onlyThrough({ StringEquals: { 'elasticfilesystem:AccessPointArn': ap } })], withoutAp, 'resource').decision).toBe('implicit-deny');
    expect(evaluatePolicies([onlyThrough({ ArnLike: { 'elasticfilesystem:AccessPointArn': 'arn:aws:elasticfilesystem:*:*:access-point/*' } })], withAp, 'resource').decision).toBe('allow');
    expect(evaluatePolicies([onlyThrough({ Null: { 'elasticfilesystem:AccessPointArn': 'true' } })], withoutAp, 'resource').decision).toBe('allow');
    expect(evaluatePolicies([onlyThrough({ StringEqualsIfExists: { 'elasticfilesystem:AccessPointArn': ap } })], withoutAp, 'resource').decision).toBe('allow');
    expect(evaluatePolicies([onlyThrough({ StringNotEquals: { 'elasticfilesystem:AccessPointArn': ap } })], withoutAp, 'resource').decision).toBe('allow');
  });

  test('what it cannot evaluate makes the decision unknown, naming the part, never a guess', () => {
    const doc = policy(
      { Sid: 'Vpc', Effect: 'Allow', Principal: '*', Action: CLIENT_MOUNT, Condition: { StringEquals: { 'aws:SourceVpc': 'vpc-1' } } },
      { Sid: 'Ip', Effect: 'Deny', Principal: '*', Action: CLIENT_MOUNT, Condition: { NotIpAddress: { 'aws:SourceIp': '10.0.0.0/8' } } },
    );
    const result = evaluatePolicies([doc], request(), 'resource');
    expect(result.decision).toBe('unknown');
    expect(result.unknown).toEqual([
      'statement Vpc: condition key aws:SourceVpc is not one this check knows the value of',
      'statement Ip: condition key aws:SourceIp is not one this check knows the value of',
    ]);
  });

  test('identity policies ignore Principal; NotAction and NotResource invert', () => {
    const identity = policy({ Effect: 'Allow', NotAction: 'elasticfilesystem:Delete*', NotResource: 'arn:aws:s3:::*' });
    expect(evaluatePolicies([identity], request(), 'identity').decision).toBe('allow');
    expect(evaluatePolicies([identity], request({ action: 'elasticfilesystem:DeleteFileSystem' }), 'identity').decision).toBe('implicit-deny');
  });
});

describe('EFS client access (ClientMount, ClientWrite, ClientRootAccess)', () => {
  const FS_ARN = 'arn:aws:elasticfilesystem:us-east-1:111122223333:file-system/fs-12345678';
  const caller = { arn: 'arn:aws:sts::111122223333:assumed-role/app-task/abc123', account: '111122223333' };
  // The policy the SharedFileSystem writes, in spirit: TLS required, IAM identities of the account.
  const accountOnlyOverTls: PolicyDocument = {
    Version: '2012-10-17',
    Statement: [
      { Sid: 'DenyPlain', Effect: 'Deny', Principal: { AWS: '*' }, Action: '*', Resource: FS_ARN, Condition: { Bool: { 'aws:SecureTransport': 'false' } } },
      { Sid: 'Account', Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::111122223333:root' }, Action: [CLIENT_MOUNT, CLIENT_WRITE], Resource: FS_ARN },
    ],
  };
  const input = (over: Partial<ClientAccessInput> = {}): ClientAccessInput => ({
    fileSystemArn: FS_ARN, fileSystemAccount: '111122223333', fileSystemPolicy: accountOnlyOverTls, identityPolicies: [], caller, tls: true, ...over,
  });
  const identityAllows: PolicyDocument = { Statement: [{ Sid: 'Efs', Effect: 'Allow', Action: ['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite'], Resource: FS_ARN }] };

  test('no file system policy: EFS\'s default allows everyone', () => {
    expect(decideClientAccess(input({ fileSystemPolicy: null, caller: undefined, tls: false }), CLIENT_WRITE).allowed).toBe('yes');
  });

  test('an account principal needs the identity\'s own policy too', () => {
    expect(decideClientAccess(input(), CLIENT_MOUNT)).toEqual({ allowed: 'no', why: 'ClientMount is not allowed: neither the file system policy nor the identity\'s policies allow it' });
    expect(decideClientAccess(input({ identityPolicies: [identityAllows] }), CLIENT_MOUNT)).toEqual({ allowed: 'yes', why: 'ClientMount is allowed by the identity\'s policies (statement Efs)' });
  });

  test('without TLS the Deny wins, whatever else allows', () => {
    expect(decideClientAccess(input({ identityPolicies: [identityAllows], tls: false }), CLIENT_MOUNT)).toEqual({ allowed: 'no', why: 'the file system policy denies ClientMount (statement DenyPlain)' });
  });

  test('a mount without IAM is anonymous: only "*" statements can allow it', () => {
    expect(decideClientAccess(input({ caller: undefined }), CLIENT_MOUNT).why).toBe('the file system policy allows ClientMount only to IAM identities, and a mount without -o iam is anonymous');
  });

  test('across accounts both sides must allow; unreadable identity policies leave it undecided', () => {
    const other = { arn: 'arn:aws:sts::444455556666:assumed-role/reader/s', account: '444455556666' };
    const grantsOther: PolicyDocument = { Statement: [{ Sid: 'Other', Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::444455556666:role/reader' }, Action: CLIENT_MOUNT }] };
    expect(decideClientAccess(input({ caller: other, fileSystemPolicy: grantsOther, identityPolicies: [] }), CLIENT_MOUNT).allowed).toBe('no');
    expect(decideClientAccess(input({ caller: other, fileSystemPolicy: grantsOther, identityPolicies: [identityAllows] }), CLIENT_MOUNT).allowed).toBe('yes');
    expect(decideClientAccess(input({ identityPolicies: undefined }), CLIENT_MOUNT)).toEqual({ allowed: 'unknown', why: 'the identity\'s own policies could not be read' });
  });

  test('as one check: mount denied fails, write denied warns (read-only), root without ClientRootAccess warns', () => {
    expect(clientAccessCheck(input(), 'mounting with TLS, with IAM', false)).toMatchObject({ status: 'fail', detail: expect.stringContaining(`${caller.arn} mounting with TLS, with IAM: ClientMount denied`) });
    const mountOnly: PolicyDocument = { Statement: [{ Sid: 'Mount', Effect: 'Allow', Action: CLIENT_MOUNT, Resource: FS_ARN }] };
    expect(clientAccessCheck(input({ identityPolicies: [mountOnly] }), 'x', false)).toMatchObject({ status: 'warn', detail: expect.stringContaining('mounts read-only, ClientWrite denied') });
    expect(clientAccessCheck(input({ identityPolicies: [identityAllows] }), 'x', false).status).toBe('pass');
    const root = clientAccessCheck(input({ identityPolicies: [identityAllows] }), 'x', true);
    expect(root.status).toBe('warn');
    expect(root.detail).toContain('EFS squashes root to uid 65534');
    expect(root.fix).toContain(CLIENT_ROOT_ACCESS);
  });
});
