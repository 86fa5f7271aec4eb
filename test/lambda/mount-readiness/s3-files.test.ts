import { onEvent, ReadinessEvent, ReadinessHandlerDeps } from '../../../lambda/mount-readiness/custom-resource';
import { checkReadinessProperties } from '../../../lambda/mount-readiness/properties';
import { newResolver } from '../../../lambda/shared/mount-checks/dns-lookup';
import { MountReadinessProperties } from '../../../lib/file-system/contract/mount-readiness-properties';
import { s3FilesAccessPointArn, s3FilesFileSystemArn, s3FilesFileSystemDnsName, s3FilesMountTargetDnsName } from '../../../lib/s3-files/contract/s3-files-names';
import { DnsStub, startDnsStub } from '../../helpers/dns-stub';
import { CfnRequest, ProviderFramework } from '../../helpers/provider-framework';
import { listen, Listener, loopbackAddress } from '../../helpers/nfs-listener';

// The readiness gate for an S3 Files file system (FileSystemKind S3_FILES) against real parts: a DNS
// server on 127.0.0.1 answering for the zonal names `<az-id>.fs-….s3files.<region>.on.aws`, and
// TCP listeners on loopback addresses standing in for mount targets on port 2049. No AWS API at all:
// the gate has no S3 Files client, and must not fall back to EFS's DescribeMountTargets.

const FS = 'fs-0123456789abcdef01';
const REGION = 'us-east-1';
const zonal = (azId: string) => `${azId}.${FS}.s3files.${REGION}.on.aws`;
const BACKOFF = { firstMs: 100, factor: 2, maxMs: 400 };

let dns: DnsStub;
let listeners: Listener[];
beforeEach(async () => {
  dns = await startDnsStub();
  listeners = [];
  jest.spyOn(console, 'log').mockImplementation(() => undefined);
});
afterEach(async () => {
  jest.restoreAllMocks();
  await dns.stop();
  await Promise.all(listeners.map((l) => l.close()));
});

/** A mount target whose zonal name resolves to a loopback address, listening on 2049 unless told not to. */
async function mountTarget(azId: string, options: { listening?: boolean; resolvesAfterMs?: number } = {}): Promise<string> {
  const address = loopbackAddress();
  if (options.listening !== false) listeners.push(await listen(address));
  if (options.resolvesAfterMs !== Infinity) dns.set(zonal(azId), { A: [address] }, options.resolvesAfterMs ?? 0);
  return address;
}

const props = (mountTargets: MountReadinessProperties['MountTargets'], limit = '60'): MountReadinessProperties =>
  ({ FileSystemKind: 'S3_FILES', FileSystemId: FS, Region: REGION, TimeLimitSeconds: limit, MountTargets: mountTargets });

let described = 0;
const deps = (): ReadinessHandlerDeps => ({
  resolver: newResolver({ servers: [dns.server], timeoutMs: 300, tries: 1 }),
  backoff: BACKOFF,
  remainingMs: () => 120_000,
  describeMountTargets: async () => { described++; throw new Error('DescribeMountTargets is EFS\'s: never for S3 Files'); },
});

describe('S3 Files names (amazon-efs-utils 3.2.0: man/mount.s3files.8, dist/s3files-utils.conf)', () => {
  test('zonal names start with the zone ID; the suffix is on.aws, and on.amazonwebservices.com.cn in China', () => {
    expect(s3FilesMountTargetDnsName('use1-az1', 'fs-abcd1234', 'us-east-1')).toBe('use1-az1.fs-abcd1234.s3files.us-east-1.on.aws');
    expect(s3FilesFileSystemDnsName('fs-abcd1234', 'us-east-1')).toBe('fs-abcd1234.s3files.us-east-1.on.aws');
    expect(s3FilesMountTargetDnsName('cnn1-az1', 'fs-abcd1234', 'cn-north-1')).toBe('cnn1-az1.fs-abcd1234.s3files.cn-north-1.on.amazonwebservices.com.cn');
  });

  test('ARNs of the file system and its access points', () => {
    const arn = s3FilesFileSystemArn('aws', REGION, '123456789012', FS);
    expect(arn).toBe(`arn:aws:s3files:us-east-1:123456789012:file-system/${FS}`);
    expect(s3FilesAccessPointArn(arn, 'fsap-0123456789abcdef01')).toBe(`${arn}/access-point/fsap-0123456789abcdef01`);
  });
});

describe('checkReadinessProperties with FileSystemKind', () => {
  test('S3_FILES: mount targets by zone ID, addresses optional; absent FileSystemKind is EFS', () => {
    const checked = checkReadinessProperties(props([{ MountTargetId: 'fsmt-0123456789abcdef01', AvailabilityZoneId: 'use1-az1' }]));
    expect(checked).toMatchObject({ kind: 'S3_FILES', mountTargets: [{ id: 'fsmt-0123456789abcdef01', availabilityZoneId: 'use1-az1', ipAddressType: 'IPV4_ONLY' }] });
    expect(checkReadinessProperties({ FileSystemId: FS, Region: REGION }).kind).toBe('EFS');
  });

  test.each([
    [{ ...props(undefined) }, 'MountTargets must list the mount targets of an S3 Files file system (the gate has no S3 Files API client to list them), got undefined'],
    [props([{ MountTargetId: 'fsmt-0000000a' }]), 'MountTargets[0].AvailabilityZoneId must be an Availability Zone ID such as use1-az1'],
    [props([{ MountTargetId: 'fsmt-0000000a', AvailabilityZoneId: 'us-east-1a' }]), 'AvailabilityZoneId must be an Availability Zone ID such as use1-az1 (an S3 Files mount target\'s names start with it), got "us-east-1a"'],
    [props([{ MountTargetId: 'fsmt-0000000a', AvailabilityZoneId: 'use1-az1', AvailabilityZone: 'us-east-1a' }]), 'MountTargets[0].AvailabilityZone does not apply to S3 Files, whose names carry the zone ID: give AvailabilityZoneId'],
    [{ FileSystemId: FS, Region: REGION, MountTargets: [{ MountTargetId: 'fsmt-0000000a', AvailabilityZoneId: 'use1-az1' }] }, 'MountTargets[0].AvailabilityZoneId applies to S3 Files only (FileSystemKind S3_FILES)'],
    [{ FileSystemId: FS, Region: REGION, FileSystemKind: 's3files' }, 'FileSystemKind must be one of EFS, S3_FILES, or absent (EFS), got "s3files"'],
  ])('fails when a property is wrong (%#)', (p, message) => {
    expect(() => checkReadinessProperties(p as MountReadinessProperties)).toThrow(message);
  });
});

describe('the gate for S3 Files (onEvent)', () => {
  beforeEach(() => { described = 0; });

  test('mount targets without addresses: each zonal name resolves and TCP 2049 answers where it points; nothing else is asked', async () => {
    await mountTarget('use1-az1');
    await mountTarget('use1-az2');
    const event: ReadinessEvent = { RequestType: 'Create', ResourceProperties: props([
      { MountTargetId: 'fsmt-0000000000000000a', AvailabilityZoneId: 'use1-az1' },
      { MountTargetId: 'fsmt-0000000000000000b', AvailabilityZoneId: 'use1-az2' },
    ]) };
    expect(await onEvent(event, deps())).toEqual({ PhysicalResourceId: `mount-targets-ready:${FS}` });
    expect(listeners.map((l) => l.accepted())).toEqual([1, 1]);
    // Only the zonal names, as mount.s3files resolves them: no EFS name, no file system name.
    expect(new Set(dns.queries.map((q) => `${q.type} ${q.name}`))).toEqual(new Set([`A ${zonal('use1-az1')}`, `A ${zonal('use1-az2')}`]));
    expect(described).toBe(0);
  });

  test('a zonal name that starts resolving after 1.5 s: the gate waits, then connects there', async () => {
    await mountTarget('use1-az1', { resolvesAfterMs: 1500 });
    await onEvent({ RequestType: 'Create', ResourceProperties: props([{ MountTargetId: 'fsmt-0000000000000000a', AvailabilityZoneId: 'use1-az1' }]) }, deps());
    const asked = dns.queries.map((q) => q.answered);
    expect(asked[0]).toBe('nxdomain');
    expect(asked[asked.length - 1]).toBe('records');
    expect(listeners[0].accepted()).toBe(1);
  });

  test('fails naming the mount target, its zone ID and the step: a port that never answers where the name points', async () => {
    const address = await mountTarget('use1-az3', { listening: false });
    const event: ReadinessEvent = { RequestType: 'Create', ResourceProperties: props([{ MountTargetId: 'fsmt-0000000000000000c', AvailabilityZoneId: 'use1-az3' }], '1') };
    const failure = onEvent(event, deps());
    await expect(failure).rejects.toThrow(`mount readiness: ${FS} was not ready within 1 second: mount target fsmt-0000000000000000c (use1-az3): `
      + `"TCP 2049 accepts connections at the IPv4 address ${zonal('use1-az3')} resolves to" never succeeded`);
    await expect(failure).rejects.toThrow(`last: ${address}:2049: connection refused`);
    await expect(failure).rejects.toThrow('TCP 2049 must be open from the gate\'s security group');
  });

  test('fails when a zonal name never resolves, with the S3 Files DNS hint and no EFS propagation figure', async () => {
    await mountTarget('use1-az1', { resolvesAfterMs: Infinity });
    const event: ReadinessEvent = { RequestType: 'Create', ResourceProperties: props([{ MountTargetId: 'fsmt-0000000000000000a', AvailabilityZoneId: 'use1-az1' }], '1') };
    const failure = onEvent(event, deps());
    await expect(failure).rejects.toThrow(`"${zonal('use1-az1')} resolves (A)" never succeeded`);
    await expect(failure).rejects.toThrow('S3 Files mount target names (<az-id>.fs-….s3files.<region>.on.aws) resolve only through the VPC\'s resolver');
    await expect(failure).rejects.not.toThrow('60-90 seconds');
  });

  test('an address the properties give must be the one the zonal name resolves to', async () => {
    await mountTarget('use1-az1');
    const event: ReadinessEvent = { RequestType: 'Create', ResourceProperties: props([{ MountTargetId: 'fsmt-0000000000000000a', AvailabilityZoneId: 'use1-az1', IpAddress: '127.0.0.99' }], '1') };
    await expect(onEvent(event, deps())).rejects.toThrow(`"${zonal('use1-az1')} resolves (A) to 127.0.0.99" never succeeded (`);
  });

  test('a DUAL_STACK mount target without addresses: A and AAAA of its zonal name, TCP at both', async () => {
    // ::1 is this machine's only IPv6 loopback address: a port of its own instead of 2049.
    const v6 = await listen('::1', 0);
    const address = loopbackAddress();
    listeners.push(v6, await listen(address, v6.port));
    dns.set(zonal('use1-az1'), { A: [address], AAAA: ['::1'] });
    const event: ReadinessEvent = { RequestType: 'Create', ResourceProperties: props([{ MountTargetId: 'fsmt-0000000000000000a', AvailabilityZoneId: 'use1-az1', IpAddressType: 'DUAL_STACK' }]) };
    await onEvent(event, { ...deps(), nfsPort: v6.port });
    expect(listeners.map((l) => l.accepted())).toEqual([1, 1]);
    expect(new Set(dns.queries.map((q) => q.type))).toEqual(new Set(['A', 'AAAA']));
  });

  test('behind the Provider framework: Create waits; an Update with the same S3 Files properties asks nothing', async () => {
    await mountTarget('use1-az1');
    const provider = new ProviderFramework({ onEvent: (event) => onEvent(event, deps()) }, 'MountTargetsReady');
    const s3 = props([{ MountTargetId: 'fsmt-0000000000000000a', AvailabilityZoneId: 'use1-az1' }]);
    const create: CfnRequest = { RequestType: 'Create', RequestId: 'c', ResourceProperties: { ...s3 } };
    expect((await provider.send(create)).response).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: `mount-targets-ready:${FS}` });
    const asked = dns.queries.length;
    const update: CfnRequest = { RequestType: 'Update', RequestId: 'u', PhysicalResourceId: `mount-targets-ready:${FS}`, ResourceProperties: { ...s3 }, OldResourceProperties: { ...s3 } };
    expect((await provider.send(update)).response).toMatchObject({ Status: 'SUCCESS' });
    expect(dns.queries.length).toBe(asked);
  });
});
