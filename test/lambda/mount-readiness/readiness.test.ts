import { isComplete, onEvent, ReadinessEvent, ReadinessHandlerDeps } from '../../../lambda/mount-readiness/custom-resource';
import { describeMountTargets } from '../../../lambda/mount-readiness/describe-mount-targets';
import { MountReadinessProperties } from '../../../lib/file-system/contract/mount-readiness-properties';
import { checkReadinessProperties } from '../../../lambda/mount-readiness/properties';
import { MountTargetEndpoints, notReadyMessage, waitUntilReady } from '../../../lambda/mount-readiness/readiness';
import { newResolver } from '../../../lambda/shared/mount-checks/dns-lookup';
import { DnsStub, startDnsStub } from '../../helpers/dns-stub';
import { createMotoFileSystem } from '../../helpers/moto-efs';
import { startMoto } from '../../helpers/moto';
import { listen, Listener, loopbackAddress } from '../../helpers/nfs-listener';

// The readiness gate against real parts: a DNS server on 127.0.0.1 (test/helpers/dns-stub.ts) that
// answers for the file system's names, at once, after a delay (propagation) or never, and TCP
// listeners on loopback addresses standing in for mount targets on port 2049. Only
// DescribeMountTargets is not real AWS: it is moto's, on 127.0.0.1.

const FS = 'fs-0123456789abcdef0';
const REGION = 'us-east-1';
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
      fileSystemId: FS, region: REGION, timeLimitSeconds: 600,
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
    const outcome = await waitUntilReady(FS, REGION, targets, Date.now() + 30_000, resolverDeps());
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
    const outcome = await waitUntilReady(FS, REGION, targets, Date.now() + 60_000, resolverDeps());
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
    const outcome = await waitUntilReady(FS, REGION, targets, Date.now() + 3000, resolverDeps());
    expect(outcome.ready).toBe(false);
    expect(Date.now() - started).toBeLessThan(3000 + 10_000);
    expect(outcome.rounds).toBeGreaterThan(3);
    const message = notReadyMessage(FS, outcome, 3);
    expect(message).toContain(`mount readiness: ${FS} was not ready within 3 seconds: mount target fsmt-0000000b (us-east-1b): "${azName('us-east-1b')} resolves (A) to ${targets[1].ipv4}" never succeeded (${outcome.rounds} attempts, last: no such name (NXDOMAIN))`);
    expect(message).toContain('A new mount target\'s names resolve within 60-90 seconds');
    expect(message).not.toContain('fsmt-0000000a');
    expect(message).not.toContain('TCP 2049 must be open');
  });

  test('fails when a mount target\'s port never answers, naming the address and the refusal', async () => {
    const targets = [await mountTarget('fsmt-0000000a', 'us-east-1a'), await mountTarget('fsmt-0000000c', 'us-east-1c', { listening: false })];
    dns.set(fsName, { A: [targets[0].ipv4!] });
    const outcome = await waitUntilReady(FS, REGION, targets, Date.now() + 2000, resolverDeps());
    expect(outcome.ready).toBe(false);
    const message = notReadyMessage(FS, outcome, 2);
    expect(message).toContain(`mount target fsmt-0000000c (us-east-1c): "TCP 2049 accepts connections at ${targets[1].ipv4}:2049" never succeeded`);
    expect(message).toContain('last: connection refused (the address answers, but nothing listens on the port)');
    expect(message).toContain('TCP 2049 must be open from the gate\'s security group');
    expect(message).not.toContain('60-90 seconds');
  });

  test('fails when the DNS server never answers, saying so for every name', async () => {
    const targets = [await mountTarget('fsmt-0000000a', 'us-east-1a')];
    dns.silence();
    const outcome = await waitUntilReady(FS, REGION, targets, Date.now() + 1500, resolverDeps());
    expect(outcome.ready).toBe(false);
    const message = notReadyMessage(FS, outcome, 2);
    expect(message).toContain(`"${azName('us-east-1a')} resolves (A) to ${targets[0].ipv4}" never succeeded`);
    expect(message).toContain('last: the DNS server did not answer');
    expect(message).toContain(`the file system name: "${fsName} resolves to a mount target (the one in the caller's zone)" never succeeded`);
    expect(message).toContain('A: the DNS server did not answer');
  });

  test('fails when the file system name resolves to an address that is no mount target of it', async () => {
    const targets = [await mountTarget('fsmt-0000000a', 'us-east-1a')];
    dns.set(fsName, { A: ['127.0.0.99'] });
    const outcome = await waitUntilReady(FS, REGION, targets, Date.now() + 500, resolverDeps());
    expect(notReadyMessage(FS, outcome, 1)).toContain(`last: resolved to 127.0.0.99, which is no mount target of ${FS}`);
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
    const outcome = await waitUntilReady(FS, REGION, [{ ...v4, ipv6: '::1' }], Date.now() + 10_000, { ...resolverDeps(), nfsPort: v6.port });
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

describe('the gate as a custom resource (events shaped as the Provider framework delivers them)', () => {
  const props = (targets: MountTargetEndpoints[], extra: Partial<MountReadinessProperties> = {}): MountReadinessProperties => ({
    FileSystemId: FS, Region: REGION, TimeLimitSeconds: '60',
    MountTargets: targets.map((t) => ({ MountTargetId: t.id, AvailabilityZone: t.availabilityZone, IpAddress: t.ipv4 })),
    ...extra,
  });
  const handlerDeps = (over: Partial<ReadinessHandlerDeps> = {}): ReadinessHandlerDeps => ({
    ...resolverDeps(),
    remainingMs: () => 60_000,
    describeMountTargets: () => { throw new Error('DescribeMountTargets was not expected'); },
    ...over,
  });
  // The handler logs a JSON line per round, as CloudWatch gets it; not wanted in the test's output.
  beforeEach(() => { jest.spyOn(console, 'log').mockImplementation(() => undefined); });
  afterEach(() => { jest.restoreAllMocks(); });
  // The framework hands isComplete the onEvent event merged with what onEvent returned.
  const merged = (event: ReadinessEvent, result: { PhysicalResourceId: string; Data: Record<string, unknown> }): ReadinessEvent => ({ ...event, ...result } as ReadinessEvent);

  test('Create with mount targets that answer at once completes in onEvent; isComplete asks nothing more', async () => {
    const targets = [await mountTarget('fsmt-0000000a', 'us-east-1a')];
    dns.set(fsName, { A: [targets[0].ipv4!] });
    const event: ReadinessEvent = { RequestType: 'Create', ResourceProperties: props(targets) };
    const result = await onEvent(event, handlerDeps());
    expect(result).toEqual({ PhysicalResourceId: `mount-targets-ready:${FS}`, Data: { Ready: 'true', Deadline: expect.any(Number) } });
    const asked = dns.queries.length;
    expect(await isComplete(merged(event, result), handlerDeps())).toEqual({ IsComplete: true });
    expect(dns.queries.length).toBe(asked);
  });

  test('Create while a name propagates: onEvent is not ready, isComplete slices wait until it is', async () => {
    const targets = [await mountTarget('fsmt-0000000a', 'us-east-1a', { resolvesAfterMs: 1500 })];
    dns.set(fsName, { A: [targets[0].ipv4!] });
    const event: ReadinessEvent = { RequestType: 'Create', ResourceProperties: props(targets) };
    const result = await onEvent(event, handlerDeps());
    expect(result.Data.Ready).toBe('false');
    // Invocations with 15.5 s left keep 15 s for themselves: a slice of about half a second each.
    const answers: boolean[] = [];
    for (let i = 0; i < 40 && !answers.includes(true); i++) {
      answers.push((await isComplete(merged(event, result), handlerDeps({ remainingMs: () => 15_500 }))).IsComplete);
    }
    expect(answers[0]).toBe(false);
    expect(answers[answers.length - 1]).toBe(true);
  });

  test('fails when the time limit passes, with the message naming the mount target, zone and step', async () => {
    const targets = [await mountTarget('fsmt-0000000a', 'us-east-1a', { resolvesAfterMs: Infinity })];
    const event: ReadinessEvent = { RequestType: 'Create', ResourceProperties: props(targets, { TimeLimitSeconds: '1' }) };
    const result = await onEvent(event, handlerDeps());
    await new Promise((r) => setTimeout(r, 1100));
    await expect(isComplete(merged(event, result), handlerDeps())).rejects.toThrow(
      `mount readiness: ${FS} was not ready within 1 second: mount target fsmt-0000000a (us-east-1a): "${azName('us-east-1a')} resolves (A) to ${targets[0].ipv4}" never succeeded`);
  });

  test('Update with the same file system and mount targets waits for nothing; a changed one waits', async () => {
    const targets = [await mountTarget('fsmt-0000000a', 'us-east-1a', { resolvesAfterMs: Infinity })];
    const same: ReadinessEvent = { RequestType: 'Update', PhysicalResourceId: `mount-targets-ready:${FS}`, ResourceProperties: props(targets), OldResourceProperties: props(targets) };
    expect((await onEvent(same, handlerDeps())).Data.Ready).toBe('true');
    expect(dns.queries).toEqual([]);
    const added = await mountTarget('fsmt-0000000b', 'us-east-1b');
    const changed: ReadinessEvent = { ...same, ResourceProperties: props([...targets, added]) };
    expect((await onEvent(changed, handlerDeps())).Data.Ready).toBe('false');
    expect(dns.queries.length).toBeGreaterThan(0);
  });

  test('Delete does nothing and reads no properties', async () => {
    const event = { RequestType: 'Delete', PhysicalResourceId: `mount-targets-ready:${FS}`, ResourceProperties: {} } as unknown as ReadinessEvent;
    expect(await onEvent(event, handlerDeps())).toEqual({ PhysicalResourceId: `mount-targets-ready:${FS}`, Data: { Ready: 'true' } });
    expect(await isComplete(event, handlerDeps())).toEqual({ IsComplete: true });
  });

  test('a mount target still being created: not ready, and past the limit a message that says so', async () => {
    const address = loopbackAddress();
    const describe = async () => [{ id: 'fsmt-0000000a', availabilityZone: 'us-east-1a', lifeCycleState: 'creating', ipv4: address }];
    const event: ReadinessEvent = { RequestType: 'Create', ResourceProperties: { FileSystemId: FS, Region: REGION, TimeLimitSeconds: '1' } };
    const result = await onEvent(event, handlerDeps({ describeMountTargets: describe }));
    expect(result.Data.Ready).toBe('false');
    expect(dns.queries).toEqual([]);
    await new Promise((r) => setTimeout(r, 1100));
    await expect(isComplete(merged(event, result), handlerDeps({ describeMountTargets: describe })))
      .rejects.toThrow(`mount readiness: ${FS} was not ready within the time limit: mount target fsmt-0000000a (us-east-1a) is creating.`);
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
      const result = await onEvent(event, {
        ...resolverDeps(),
        remainingMs: () => 60_000,
        describeMountTargets: (id, region) => describeMountTargets(id, region, moto.endpoint),
      });
      expect(result.Data.Ready).toBe('true');
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
