import * as os from 'os';
import { onEvent, ReadinessEvent, ReadinessHandlerDeps } from '../../../lambda/mount-readiness/custom-resource';
import { describeMountTargets } from '../../../lambda/mount-readiness/describe-mount-targets';
import { MountReadinessProperties } from '../../../lib/file-system/contract/mount-readiness-properties';
import { checkReadinessProperties } from '../../../lambda/mount-readiness/properties';
import { MountTargetEndpoints, notReadyMessage, waitUntilReady } from '../../../lambda/mount-readiness/readiness';
import { newResolver } from '../../../lambda/shared/mount-checks/dns-lookup';
import { DnsStub, startDnsStub } from '../../helpers/dns-stub';
import { CfnRequest, CREATE_FAILED_PHYSICAL_ID_MARKER, ProviderFramework } from '../../helpers/provider-framework';
import { createMotoFileSystem } from '../../helpers/moto-efs';
import { startMoto } from '../../helpers/moto';
import { listen, Listener, loopbackAddress } from '../../helpers/nfs-listener';

// The readiness gate against real parts: a DNS server on 127.0.0.1 (test/helpers/dns-stub.ts) that
// answers for the file system's names, at once, after a delay (propagation) or never, and TCP
// listeners on loopback addresses standing in for mount targets on port 2049. Only
// DescribeMountTargets is not real AWS: it is moto's, on 127.0.0.1.

const FS = 'fs-0123456789abcdef0';
const REGION = 'us-east-1';
const EFS_FS = { id: FS, region: REGION, kind: 'EFS' as const };
const fsName = `${FS}.efs.${REGION}.amazonaws.com`;
const azName = (az: string) => `${az}.${fsName}`;
// Small pauses and a resolver that gives up fast: the tests wait seconds, not minutes.
const BACKOFF = { firstMs: 100, factor: 2, maxMs: 400 };

let dns: DnsStub;
let listeners: Listener[];

beforeEach(async () => {
  dns = await startDnsStub();
  listeners = [];
});
afterEach(async () => {
  await dns.stop();
  await Promise.all(listeners.map((l) => l.close()));
});

async function mountTarget(id: string, az: string, options: { listening?: boolean; resolvesAfterMs?: number } = {}): Promise<MountTargetEndpoints> {
  const address = loopbackAddress();
  if (options.listening !== false) listeners.push(await listen(address));
  if (options.resolvesAfterMs !== Infinity) dns.set(azName(az), { A: [address] }, options.resolvesAfterMs ?? 0);
  return { id, availabilityZone: az, ipv4: address };
}

const resolverDeps = () => ({ resolver: newResolver({ servers: [dns.server], timeoutMs: 300, tries: 1 }), backoff: BACKOFF });

describe('checkReadinessProperties', () => {
  const valid: MountReadinessProperties = {
    FileSystemId: FS, Region: REGION, TimeLimitSeconds: '600',
    MountTargets: [{ MountTargetId: 'fsmt-0123456789abcdef0', AvailabilityZone: 'us-east-1a', IpAddress: '10.0.1.25' }],
  };

  test('reads the properties the construct writes, IPV4_ONLY and a 600 s limit by default', () => {
    const { TimeLimitSeconds: _, ...noLimit } = valid;
    expect(checkReadinessProperties(noLimit)).toEqual({
      kind: 'EFS', fileSystemId: FS, region: REGION, timeLimitSeconds: 600,
      mountTargets: [{ id: 'fsmt-0123456789abcdef0', availabilityZone: 'us-east-1a', ipAddressType: 'IPV4_ONLY', ipv4: '10.0.1.25', ipv6: undefined }],
    });
  });

  test('takes dual-stack and IPv6-only mount targets, and no MountTargets at all', () => {
    const checked = checkReadinessProperties({
      FileSystemId: FS, Region: REGION,
      MountTargets: [
        { MountTargetId: 'fsmt-0000000a', AvailabilityZone: 'us-east-1a', IpAddressType: 'DUAL_STACK', IpAddress: '10.0.1.5', Ipv6Address: '2600:1f18::5' },
        { MountTargetId: 'fsmt-0000000b', IpAddressType: 'IPV6_ONLY' },
      ],
    });
    expect(checked.mountTargets!.map((t) => t.ipAddressType)).toEqual(['DUAL_STACK', 'IPV6_ONLY']);
    expect(checkReadinessProperties({ FileSystemId: FS, Region: REGION }).mountTargets).toBeUndefined();
  });

  test.each([
    [{ ...valid, FileSystemId: 'fs-xyz' }, 'FileSystemId must be a file system id (fs- and 8 to 40 hex digits), got "fs-xyz"'],
    [{ ...valid, Region: 'virginia' }, 'Region must be a Region name such as us-east-1, got "virginia"'],
    [{ ...valid, MountTargets: [] }, 'MountTargets must be a non-empty list, or absent, got []'],
    [{ ...valid, MountTargets: [{ MountTargetId: 'mt-1' }] }, 'MountTargets[0].MountTargetId must be a mount target id'],
    [{ ...valid, MountTargets: [{ MountTargetId: 'fsmt-0000000a', AvailabilityZone: 'use1-az1' }] }, 'MountTargets[0].AvailabilityZone must be an Availability Zone name such as us-east-1a, got "use1-az1"'],
    [{ ...valid, MountTargets: [{ MountTargetId: 'fsmt-0000000a', IpAddressType: 'IPV6' }] }, 'IpAddressType must be one of IPV4_ONLY, DUAL_STACK, IPV6_ONLY, got "IPV6"'],
    [{ ...valid, MountTargets: [{ MountTargetId: 'fsmt-0000000a', IpAddressType: 'IPV6_ONLY', IpAddress: '10.0.0.1' }] }, 'IpAddress does not apply to an IPV6_ONLY mount target'],
    [{ ...valid, MountTargets: [{ MountTargetId: 'fsmt-0000000a', IpAddress: '2600::1' }] }, 'IpAddress must be an IPv4 address, got "2600::1"'],
    [{ ...valid, MountTargets: [{ MountTargetId: 'fsmt-0000000a' }, { MountTargetId: 'fsmt-0000000a' }] }, 'must list each mount target once, got "fsmt-0000000a"'],
    [{ ...valid, TimeLimitSeconds: '7200' }, 'TimeLimitSeconds must be a whole number of seconds from 1 to 3600, got "7200"'],
  ])('fails when a property is wrong (%#)', (props, message) => {
    expect(() => checkReadinessProperties(props as MountReadinessProperties)).toThrow(message);
  });
});

describe('waitUntilReady', () => {
  test('names that resolve at once and ports that answer: ready after one round, each step tried once', async () => {
    const targets = [await mountTarget('fsmt-0000000a', 'us-east-1a'), await mountTarget('fsmt-0000000b', 'us-east-1b')];
    dns.set(fsName, { A: [targets[0].ipv4!] });
    const outcome = await waitUntilReady(EFS_FS, targets, Date.now() + 30_000, resolverDeps());
    console.log(`gate, everything answering at once: ${outcome.elapsedMs} ms for ${outcome.steps.length} steps in ${outcome.rounds} round`);
    expect(outcome.ready).toBe(true);
    expect(outcome.rounds).toBe(1);
    expect(outcome.steps.map((s) => [s.description, s.attempts])).toEqual([
      [`${azName('us-east-1a')} resolves (A) to ${targets[0].ipv4}`, 1],
      [`TCP 2049 accepts connections at ${targets[0].ipv4}:2049`, 1],
      [`${azName('us-east-1b')} resolves (A) to ${targets[1].ipv4}`, 1],
      [`TCP 2049 accepts connections at ${targets[1].ipv4}:2049`, 1],
      [`${fsName} resolves to a mount target (the one in the caller's zone)`, 1],
    ]);
    expect(listeners.map((l) => l.accepted())).toEqual([1, 1]);
  });

  test('a zone name that starts resolving after 2 s: the gate waits about 2 s, retrying only that name, and succeeds', async () => {
    const late = await mountTarget('fsmt-0000000b', 'us-east-1b', { resolvesAfterMs: 2000 });
    const targets = [await mountTarget('fsmt-0000000a', 'us-east-1a'), late];
    dns.set(fsName, { A: [targets[0].ipv4!] });
    const started = Date.now();
    const outcome = await waitUntilReady(EFS_FS, targets, Date.now() + 60_000, resolverDeps());
    const elapsed = Date.now() - started;
    expect(outcome.ready).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(elapsed).toBeLessThan(20_000); // the name answers at 2 s; pauses are at most 0.4 s (huge headroom for a busy machine)
    const lateStep = outcome.steps.find((s) => s.description.startsWith(azName('us-east-1b')))!;
    expect(lateStep.attempts).toBeGreaterThan(2);
    expect(lateStep.lastProblem).toBe('no such name (NXDOMAIN)');
    // Everything else succeeded in the first round and was not tried again.
    expect(outcome.steps.filter((s) => s !== lateStep).map((s) => s.attempts)).toEqual([1, 1, 1, 1]);
    expect(outcome.steps.filter((s) => s !== lateStep).every((s) => s.succeededAfterMs! < lateStep.succeededAfterMs!)).toBe(true);
    // The DNS server saw NXDOMAIN answers for the name, then the record, then no more queries for it.
    const asked = dns.queries.filter((q) => q.name === azName('us-east-1b')).map((q) => q.answered);
    expect(asked.slice(0, -1).every((a) => a === 'nxdomain')).toBe(true);
    expect(asked[asked.length - 1]).toBe('records');
    expect(asked.length).toBe(lateStep.attempts);
  });

  test('fails when a zone name never resolves: stops at the bound, naming the mount target, its zone and the step', async () => {
    const targets = [await mountTarget('fsmt-0000000a', 'us-east-1a'), await mountTarget('fsmt-0000000b', 'us-east-1b', { resolvesAfterMs: Infinity })];
    dns.set(fsName, { A: [targets[0].ipv4!] });
    const started = Date.now();
    const outcome = await waitUntilReady(EFS_FS, targets, Date.now() + 3000, resolverDeps());
    expect(outcome.ready).toBe(false);
    expect(Date.now() - started).toBeLessThan(3000 + 10_000);
    expect(outcome.rounds).toBeGreaterThan(3);
    const message = notReadyMessage(EFS_FS, outcome, 3);
    expect(message).toContain(`mount readiness: ${FS} was not ready within 3 seconds: mount target fsmt-0000000b (us-east-1b): "${azName('us-east-1b')} resolves (A) to ${targets[1].ipv4}" never succeeded (${outcome.rounds} attempts, last: no such name (NXDOMAIN))`);
    expect(message).toContain('A new mount target\'s names resolve within 60-90 seconds');
    expect(message).not.toContain('fsmt-0000000a');
    expect(message).not.toContain('TCP 2049 must be open');
  });

  test('fails when a mount target\'s port never answers, naming the address and the refusal', async () => {
    const targets = [await mountTarget('fsmt-0000000a', 'us-east-1a'), await mountTarget('fsmt-0000000c', 'us-east-1c', { listening: false })];
    dns.set(fsName, { A: [targets[0].ipv4!] });
    const outcome = await waitUntilReady(EFS_FS, targets, Date.now() + 2000, resolverDeps());
    expect(outcome.ready).toBe(false);
    const message = notReadyMessage(EFS_FS, outcome, 2);
    expect(message).toContain(`mount target fsmt-0000000c (us-east-1c): "TCP 2049 accepts connections at ${targets[1].ipv4}:2049" never succeeded`);
    expect(message).toContain('last: connection refused (the address answers, but nothing listens on the port)');
    expect(message).toContain('TCP 2049 must be open from the gate\'s security group');
    expect(message).not.toContain('60-90 seconds');
  });

  test('fails when the DNS server never answers, saying so for every name', async () => {
    const targets = [await mountTarget('fsmt-0000000a', 'us-east-1a')];
    dns.silence();
    const outcome = await waitUntilReady(EFS_FS, targets, Date.now() + 1500, resolverDeps());
    expect(outcome.ready).toBe(false);
    const message = notReadyMessage(EFS_FS, outcome, 2);
    expect(message).toContain(`"${azName('us-east-1a')} resolves (A) to ${targets[0].ipv4}" never succeeded`);
    expect(message).toContain('last: the DNS server did not answer');
    expect(message).toContain(`the file system name: "${fsName} resolves to a mount target (the one in the caller's zone)" never succeeded`);
    expect(message).toContain('A: the DNS server did not answer');
  });

  test('fails when the file system name resolves to an address that is no mount target of it', async () => {
    const targets = [await mountTarget('fsmt-0000000a', 'us-east-1a')];
    dns.set(fsName, { A: ['127.0.0.99'] });
    const outcome = await waitUntilReady(EFS_FS, targets, Date.now() + 500, resolverDeps());
    expect(notReadyMessage(EFS_FS, outcome, 1)).toContain(`last: resolved to 127.0.0.99, which is no mount target of ${FS}`);
  });

  test('a dual-stack mount target: A and AAAA of its zone name, and TCP at both addresses', async () => {
    const v4 = await mountTarget('fsmt-0000000a', 'us-east-1a');
    // ::1 is this machine's only IPv6 loopback address: a port of its own instead of 2049.
    const v6 = await listen('::1', 0);
    listeners.push(v6);
    const v4OnPort = await listen(v4.ipv4!, v6.port);
    listeners.push(v4OnPort);
    dns.set(azName('us-east-1a'), { A: [v4.ipv4!], AAAA: ['0:0:0:0:0:0:0:1'] });
    dns.set(fsName, { AAAA: ['::1'] });
    const outcome = await waitUntilReady(EFS_FS, [{ ...v4, ipv6: '::1' }], Date.now() + 10_000, { ...resolverDeps(), nfsPort: v6.port });
    expect(outcome.ready).toBe(true);
    expect(outcome.steps.map((s) => s.description)).toEqual([
      `${azName('us-east-1a')} resolves (A) to ${v4.ipv4}`,
      `${azName('us-east-1a')} resolves (AAAA) to ::1`,
      `TCP ${v6.port} accepts connections at ${v4.ipv4}:${v6.port}`,
      `TCP ${v6.port} accepts connections at [::1]:${v6.port}`,
      `${fsName} resolves to a mount target (the one in the caller's zone)`,
    ]);
    expect(dns.queries.filter((q) => q.type === 'AAAA').map((q) => q.answered)).toEqual(['records', 'records']);
    expect(v6.accepted()).toBe(1);
  });
});

describe('the gate as a custom resource (onEvent only: it waits within its invocation)', () => {
  const props = (targets: MountTargetEndpoints[], extra: Partial<MountReadinessProperties> = {}): MountReadinessProperties => ({
    FileSystemId: FS, Region: REGION, TimeLimitSeconds: '60',
    MountTargets: targets.map((t) => ({ MountTargetId: t.id, AvailabilityZone: t.availabilityZone, IpAddress: t.ipv4 })),
    ...extra,
  });
  const handlerDeps = (over: Partial<ReadinessHandlerDeps> = {}): ReadinessHandlerDeps => ({
    ...resolverDeps(),
    remainingMs: () => 120_000,
    describeMountTargets: () => { throw new Error('DescribeMountTargets was not expected'); },
    ...over,
  });
  // The handler logs a JSON line per round, as CloudWatch gets it; not wanted in the test's output.
  beforeEach(() => { jest.spyOn(console, 'log').mockImplementation(() => undefined); });
  afterEach(() => { jest.restoreAllMocks(); });

  test('Create with mount targets that answer at once completes after one round', async () => {
    const targets = [await mountTarget('fsmt-0000000a', 'us-east-1a')];
    dns.set(fsName, { A: [targets[0].ipv4!] });
    const event: ReadinessEvent = { RequestType: 'Create', ResourceProperties: props(targets) };
    expect(await onEvent(event, handlerDeps())).toEqual({ PhysicalResourceId: `mount-targets-ready:${FS}` });
    expect(dns.queries.map((q) => q.name)).toEqual([azName('us-east-1a'), fsName]);
  });

  test('Create while a name propagates: onEvent waits until it resolves, then completes', async () => {
    const targets = [await mountTarget('fsmt-0000000a', 'us-east-1a', { resolvesAfterMs: 1500 })];
    dns.set(fsName, { A: [targets[0].ipv4!] });
    const started = Date.now();
    await onEvent({ RequestType: 'Create', ResourceProperties: props(targets) }, handlerDeps());
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    const asked = dns.queries.filter((q) => q.name === azName('us-east-1a')).map((q) => q.answered);
    expect(asked[0]).toBe('nxdomain');
    expect(asked[asked.length - 1]).toBe('records');
  });

  test('fails when the time limit passes, with the message naming the mount target, zone and step', async () => {
    const targets = [await mountTarget('fsmt-0000000a', 'us-east-1a', { resolvesAfterMs: Infinity })];
    const event: ReadinessEvent = { RequestType: 'Create', ResourceProperties: props(targets, { TimeLimitSeconds: '1' }) };
    await expect(onEvent(event, handlerDeps())).rejects.toThrow(
      `mount readiness: ${FS} was not ready within 1 second: mount target fsmt-0000000a (us-east-1a): "${azName('us-east-1a')} resolves (A) to ${targets[0].ipv4}" never succeeded`);
  });

  test('an invocation with less time left than the limit ends the wait 15 s before its own end, with the message', async () => {
    const targets = [await mountTarget('fsmt-0000000a', 'us-east-1a', { resolvesAfterMs: Infinity })];
    const started = Date.now();
    await expect(onEvent({ RequestType: 'Create', ResourceProperties: props(targets) }, handlerDeps({ remainingMs: () => 16_000 })))
      .rejects.toThrow(`mount readiness: ${FS} was not ready within 1 minute`);
    expect(Date.now() - started).toBeLessThan(30_000); // about 1 s; not the 60 s limit
  });

  test('Update with the same file system and mount targets waits for nothing; a changed one waits', async () => {
    const targets = [await mountTarget('fsmt-0000000a', 'us-east-1a', { resolvesAfterMs: Infinity })];
    const same: ReadinessEvent = { RequestType: 'Update', PhysicalResourceId: `mount-targets-ready:${FS}`, ResourceProperties: props(targets), OldResourceProperties: props(targets) };
    expect(await onEvent(same, handlerDeps())).toEqual({ PhysicalResourceId: `mount-targets-ready:${FS}` });
    expect(dns.queries).toEqual([]);
    const added = await mountTarget('fsmt-0000000b', 'us-east-1b');
    const changed: ReadinessEvent = { ...same, ResourceProperties: props([...targets, added], { TimeLimitSeconds: '1' }) };
    await expect(onEvent(changed, handlerDeps())).rejects.toThrow('mount target fsmt-0000000a (us-east-1a)');
    expect(dns.queries.length).toBeGreaterThan(0);
  });

  test('Delete does nothing and reads no properties', async () => {
    const event = { RequestType: 'Delete', PhysicalResourceId: `mount-targets-ready:${FS}`, ResourceProperties: {} } as unknown as ReadinessEvent;
    expect(await onEvent(event, handlerDeps())).toEqual({ PhysicalResourceId: `mount-targets-ready:${FS}` });
    expect(dns.queries).toEqual([]);
  });

  test('a mount target still being created: described again until it is available, then waited for', async () => {
    const target = await mountTarget('fsmt-0000000a', 'us-east-1a');
    dns.set(fsName, { A: [target.ipv4!] });
    let calls = 0;
    let availableAt = Infinity;
    const describe = async () => {
      if (++calls === 3) availableAt = Date.now();
      return [{ id: 'fsmt-0000000a', availabilityZone: 'us-east-1a', lifeCycleState: calls < 3 ? 'creating' : 'available', ipv4: target.ipv4 }];
    };
    await onEvent({ RequestType: 'Create', ResourceProperties: { FileSystemId: FS, Region: REGION, TimeLimitSeconds: '60' } }, handlerDeps({ describeMountTargets: describe }));
    expect(calls).toBe(3);
    expect(dns.queries[0].at).toBeGreaterThanOrEqual(availableAt); // no lookup before the mount target was available
    expect(listeners[0].accepted()).toBe(1);
  });

  test('fails when a mount target is still being created at the limit, saying so', async () => {
    const describe = async () => [{ id: 'fsmt-0000000a', availabilityZone: 'us-east-1a', lifeCycleState: 'creating', ipv4: loopbackAddress() }];
    const event: ReadinessEvent = { RequestType: 'Create', ResourceProperties: { FileSystemId: FS, Region: REGION, TimeLimitSeconds: '1' } };
    await expect(onEvent(event, handlerDeps({ describeMountTargets: describe })))
      .rejects.toThrow(`mount readiness: ${FS} was not ready within the time limit: mount target fsmt-0000000a (us-east-1a) is creating.`);
    expect(dns.queries).toEqual([]);
  });

  test('fails at once when a listed mount target is not the file system\'s, or it has none', async () => {
    const describe = async () => [{ id: 'fsmt-0000000b', availabilityZone: 'us-east-1b', lifeCycleState: 'available', ipv4: '127.0.0.1' }];
    const event: ReadinessEvent = { RequestType: 'Create', ResourceProperties: { FileSystemId: FS, Region: REGION, MountTargets: [{ MountTargetId: 'fsmt-0000000a', IpAddressType: 'IPV6_ONLY' }] } };
    await expect(onEvent(event, handlerDeps({ describeMountTargets: describe }))).rejects.toThrow(`mount readiness: fsmt-0000000a is not a mount target of ${FS} (DescribeMountTargets lists fsmt-0000000b).`);
    const none: ReadinessEvent = { RequestType: 'Create', ResourceProperties: { FileSystemId: FS, Region: REGION } };
    await expect(onEvent(none, handlerDeps({ describeMountTargets: async () => [] }))).rejects.toThrow(`mount readiness: ${FS} has no mount targets: no client can mount it.`);
  });

  test('fails naming the permission when DescribeMountTargets is refused', async () => {
    const event: ReadinessEvent = { RequestType: 'Create', ResourceProperties: { FileSystemId: FS, Region: REGION } };
    const refused = async () => { throw new Error('User is not authorized to perform: elasticfilesystem:DescribeMountTargets'); };
    await expect(onEvent(event, handlerDeps({ describeMountTargets: refused }))).rejects.toThrow('its role needs elasticfilesystem:DescribeMountTargets');
  });

  test('fails when the time limit is longer than one invocation can wait', async () => {
    const event: ReadinessEvent = { RequestType: 'Create', ResourceProperties: { FileSystemId: FS, Region: REGION, TimeLimitSeconds: '900' } };
    await expect(onEvent(event, handlerDeps())).rejects.toThrow('mount readiness: TimeLimitSeconds must be at most 780 (the gate waits within one Lambda invocation), got "900"');
  });

  // ::1 on this machine's loopback (`ip -6 addr show lo`) stands in for an IPv6-only mount target.
  const hasIpv6Loopback = Object.values(os.networkInterfaces()).flat().some((a) => a?.address === '::1');
  (hasIpv6Loopback ? test : test.skip)('an IPV6_ONLY mount target: its IPv6 address from DescribeMountTargets, AAAA lookups only, TCP at [::1]', async () => {
    const v6 = await listen('::1', 0); // a port of its own: ::1 is the only IPv6 loopback address
    listeners.push(v6);
    dns.set(azName('us-east-1a'), { AAAA: ['::1'] });
    dns.set(fsName, { AAAA: ['::1'] });
    const describe = async () => [{ id: 'fsmt-0000000a', availabilityZone: 'us-east-1a', lifeCycleState: 'available', ipv6: '::1' }];
    const event: ReadinessEvent = {
      RequestType: 'Create',
      ResourceProperties: { FileSystemId: FS, Region: REGION, MountTargets: [{ MountTargetId: 'fsmt-0000000a', AvailabilityZone: 'us-east-1a', IpAddressType: 'IPV6_ONLY' }] },
    };
    const rounds: string[][] = [];
    await onEvent(event, handlerDeps({ describeMountTargets: describe, nfsPort: v6.port, onRound: (r) => rounds.push(r.waitingFor) }));
    expect(rounds).toEqual([[]]);
    expect(dns.queries.map((q) => [q.name, q.type, q.answered])).toEqual([
      [azName('us-east-1a'), 'AAAA', 'records'],
      [fsName, 'AAAA', 'records'],
    ]);
    expect(v6.accepted()).toBe(1);
  });
});

describe('the gate behind aws-cdk\'s Provider framework (its own runtime code, test/helpers/provider-framework.ts)', () => {
  beforeEach(() => { jest.spyOn(console, 'log').mockImplementation(() => undefined); });
  afterEach(() => { jest.restoreAllMocks(); });
  const framework = () => new ProviderFramework({
    onEvent: (event) => onEvent(event, { ...resolverDeps(), remainingMs: () => 120_000, describeMountTargets: async () => { throw new Error('not expected'); } }),
  }, 'MountTargetsReady');
  const request = (RequestType: CfnRequest['RequestType'], ResourceProperties: MountReadinessProperties, extra: Partial<CfnRequest> = {}): CfnRequest =>
    ({ RequestType, RequestId: `${RequestType}-${Math.random()}`, ResourceProperties: { ...ResourceProperties }, ...extra });
  const propsOf = (targets: MountTargetEndpoints[], limit = '60'): MountReadinessProperties => ({
    FileSystemId: FS, Region: REGION, TimeLimitSeconds: limit,
    MountTargets: targets.map((t) => ({ MountTargetId: t.id, AvailabilityZone: t.availabilityZone, IpAddress: t.ipv4 })),
  });
  const physicalId = `mount-targets-ready:${FS}`;

  test('Create, Update, a rollback Update and Delete are each answered once, by the first invocation, with no waiter', async () => {
    const a = await mountTarget('fsmt-0000000a', 'us-east-1a');
    const b = await mountTarget('fsmt-0000000b', 'us-east-1b');
    dns.set(fsName, { A: [a.ipv4!] });
    const provider = framework();
    const v1 = propsOf([a]);
    const v2 = propsOf([a, b]);
    expect((await provider.send(request('Create', v1))).response).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: physicalId });
    expect((await provider.send(request('Update', v2, { PhysicalResourceId: physicalId, OldResourceProperties: { ...v1 } }))).response).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: physicalId });
    const asked = dns.queries.length;
    // Rolled back to v1: every mount target of v1 is waited for again (here they answer at once).
    expect((await provider.send(request('Update', v1, { PhysicalResourceId: physicalId, OldResourceProperties: { ...v2 } }))).response).toMatchObject({ Status: 'SUCCESS' });
    expect(dns.queries.length).toBeGreaterThan(asked);
    expect((await provider.send(request('Delete', v1, { PhysicalResourceId: physicalId }))).response).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: physicalId });
    expect(provider.invocations).toEqual({ onEvent: 4, isComplete: 0 });
  });

  test('a Create that times out fails with the message; its clean-up Delete does not reach the handler', async () => {
    const never = await mountTarget('fsmt-0000000a', 'us-east-1a', { resolvesAfterMs: Infinity });
    const provider = framework();
    const props = propsOf([never], '1');
    const { response } = await provider.send(request('Create', props));
    expect(response).toMatchObject({ Status: 'FAILED', PhysicalResourceId: CREATE_FAILED_PHYSICAL_ID_MARKER });
    expect(response!.Reason).toContain(`mount readiness: ${FS} was not ready within 1 second: mount target fsmt-0000000a (us-east-1a)`);
    expect((await provider.send(request('Delete', props, { PhysicalResourceId: CREATE_FAILED_PHYSICAL_ID_MARKER }))).response).toMatchObject({ Status: 'SUCCESS' });
    expect(provider.invocations.onEvent).toBe(1);
  });
});

describe('an imported file system: the gate reads its mount targets from DescribeMountTargets (moto on 127.0.0.1)', () => {
  let moto: Awaited<ReturnType<typeof startMoto>>;
  beforeAll(async () => {
    // The lockfile pins SDK releases that run on this machine's Node 20; Lambda runs Node 22.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
    moto = await startMoto();
  }, 60_000);
  beforeEach(() => { jest.spyOn(console, 'log').mockImplementation(() => undefined); });
  afterEach(() => { jest.restoreAllMocks(); });
  afterAll(async () => {
    await moto?.stop();
  });

  test('MountTargets absent: every mount target moto lists is waited for, then ready', async () => {
    const fs = await createMotoFileSystem(moto, ['us-east-1a', 'us-east-1b']);
    for (const t of fs.mountTargets) {
      listeners.push(await listen(t.ipAddress));
      dns.set(`${t.availabilityZone}.${fs.fileSystemId}.efs.${REGION}.amazonaws.com`, { A: [t.ipAddress] });
    }
    dns.set(`${fs.fileSystemId}.efs.${REGION}.amazonaws.com`, { A: [fs.mountTargets[1].ipAddress] });
    const previous = { ...process.env };
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' });
    try {
      const event: ReadinessEvent = { RequestType: 'Create', ResourceProperties: { FileSystemId: fs.fileSystemId, Region: REGION } };
      await onEvent(event, {
        ...resolverDeps(),
        remainingMs: () => 60_000,
        describeMountTargets: (id, region, deadline) => describeMountTargets(id, region, deadline, moto.endpoint),
      });
      expect(listeners.map((l) => l.accepted())).toEqual([1, 1]);
      expect(new Set(dns.queries.map((q) => q.name))).toEqual(new Set([
        ...fs.mountTargets.map((t) => `${t.availabilityZone}.${fs.fileSystemId}.efs.${REGION}.amazonaws.com`),
        `${fs.fileSystemId}.efs.${REGION}.amazonaws.com`,
      ]));
    } finally {
      process.env = previous;
    }
  });
});
