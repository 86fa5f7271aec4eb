import * as net from 'node:net';
import type { Resolver } from 'node:dns/promises';
import { describeSeconds } from '../../lib/core/contract/deploy-time-limit';
import { lookup, RecordType } from '../shared/mount-checks/dns-lookup';
import { fileSystemDnsName, mountTargetDnsName, NFS_PORT } from '../../lib/file-system/contract/efs-names';
import type { FileSystemKind, IpAddressType } from '../../lib/file-system/contract/mount-readiness-properties';
import { s3FilesMountTargetDnsName } from '../../lib/s3-files/contract/s3-files-names';
import { connectTcp, endpointOf } from '../shared/mount-checks/tcp-connect';

/**
 * Waiting until a file system's mount targets answer, the way a first mount needs them to: each
 * mount target's zone name (`<az>.fs-….efs.<region>.amazonaws.com`) resolves to its address (A for
 * IPv4, AAAA for IPv6), TCP 2049 accepts a connection at each address, and the file system name
 * (`fs-….efs.<region>.amazonaws.com`, which answers with the mount target of the caller's own
 * zone) resolves to one of them. Every step is retried in rounds with exponential backoff until it
 * succeeds or the deadline passes; a step that succeeded is not repeated. No SDK: the handler,
 * the tests and the doctor run this as is.
 *
 * An S3 Files file system is waited for by its zonal names only (`<az-id>.fs-….s3files.<region>.on.aws`,
 * the one name mount.s3files resolves); a mount target whose address is not known (S3 Files has no
 * GetAtt for it, and the gate no S3 Files API client) counts as answering once its name resolves
 * and TCP 2049 accepts at the address it resolves to.
 */

/** The file system the gate waits for. */
export interface GatedFileSystem {
  readonly id: string;
  readonly region: string;
  readonly kind: FileSystemKind;
}

/** A mount target with everything the steps need. */
export interface MountTargetEndpoints {
  readonly id: string;
  /** The zone's name (EFS, whose names start with it). */
  readonly availabilityZone?: string;
  /** The zone's ID (S3 Files, whose names start with it). */
  readonly availabilityZoneId?: string;
  /** Which addresses it has, where they are not given: the gate then connects to those its name resolves to. */
  readonly ipAddressType?: IpAddressType;
  readonly ipv4?: string;
  readonly ipv6?: string;
}

/** The zone a mount target is in, as messages name it. */
const zoneOf = (t: MountTargetEndpoints) => t.availabilityZone ?? t.availabilityZoneId ?? 'unknown zone';

/** The name a client in any zone resolves to reach this mount target. */
function zonalDnsName(fileSystem: GatedFileSystem, t: MountTargetEndpoints): string {
  return fileSystem.kind === 'S3_FILES'
    ? s3FilesMountTargetDnsName(t.availabilityZoneId!, fileSystem.id, fileSystem.region)
    : mountTargetDnsName(t.availabilityZone!, fileSystem.id, fileSystem.region);
}

/** The pause after the first round is `firstMs`; each later one is the one before times `factor`, at most `maxMs`. */
export interface Backoff {
  readonly firstMs: number;
  readonly factor: number;
  readonly maxMs: number;
}

/** Pauses of 1, 2 and 4 s, then every 5 s: a name that starts resolving (60-90 s after its mount target is created) is seen within 5 s. */
export const DEFAULT_BACKOFF: Backoff = { firstMs: 1000, factor: 2, maxMs: 5000 };
/** A connection that takes longer is dropped: inside a VPC, a mount target accepts in about a millisecond. */
export const CONNECT_TIMEOUT_MS = 3000;

export interface ReadinessDeps {
  readonly resolver: Resolver;
  /** The NFS port; tests give another where 2049 is taken. */
  readonly nfsPort?: number;
  readonly connectTimeoutMs?: number;
  readonly backoff?: Backoff;
  /** Called after every round, e.g. to log what still waits. */
  readonly onRound?: (round: RoundReport) => void;
}

/** One step of one mount target (or of the file system name), and how it went so far. */
export interface StepState {
  /** The mount target, or undefined for the file system name. */
  readonly mountTarget?: MountTargetEndpoints;
  /** 'resolve' or 'connect'. */
  readonly kind: 'resolve' | 'connect';
  /** What the step proves, in words: `us-east-1a.fs-1.efs.us-east-1.amazonaws.com resolves (A) to 10.0.1.25`. */
  readonly description: string;
  ok: boolean;
  attempts: number;
  /** Milliseconds from the start of the wait to the attempt that succeeded. */
  succeededAfterMs?: number;
  lastProblem?: string;
}

export interface RoundReport {
  readonly round: number;
  readonly elapsedMs: number;
  readonly waitingFor: string[];
}

export interface ReadinessOutcome {
  readonly ready: boolean;
  readonly rounds: number;
  readonly elapsedMs: number;
  readonly steps: StepState[];
}

/** Runs rounds of the steps until all have succeeded or `deadline` (ms since the epoch) has passed. */
export async function waitUntilReady(fileSystem: GatedFileSystem, targets: MountTargetEndpoints[], deadline: number, deps: ReadinessDeps): Promise<ReadinessOutcome> {
  const started = Date.now();
  const steps = stepsFor(fileSystem, targets, deps);
  const backoff = deps.backoff ?? DEFAULT_BACKOFF;
  let pause = backoff.firstMs;
  for (let round = 1; ; round++) {
    const pending = steps.filter((s) => !s.state.ok);
    await Promise.all(pending.map(async (step) => {
      const problem = await step.attempt();
      step.state.attempts++;
      if (problem === undefined) {
        step.state.ok = true;
        step.state.succeededAfterMs = Date.now() - started;
      } else {
        step.state.lastProblem = problem;
      }
    }));
    const waitingFor = steps.filter((s) => !s.state.ok).map((s) => s.state.description);
    deps.onRound?.({ round, elapsedMs: Date.now() - started, waitingFor });
    const now = Date.now();
    if (waitingFor.length === 0 || now >= deadline) {
      return { ready: waitingFor.length === 0, rounds: round, elapsedMs: now - started, steps: steps.map((s) => s.state) };
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, deadline - now)));
    pause = Math.min(pause * backoff.factor, backoff.maxMs);
  }
}

interface Step {
  readonly state: StepState;
  /** One try: undefined when it succeeded, else why not. */
  readonly attempt: () => Promise<string | undefined>;
}

function stepsFor(fileSystem: GatedFileSystem, targets: MountTargetEndpoints[], deps: ReadinessDeps): Step[] {
  const port = deps.nfsPort ?? NFS_PORT;
  const timeoutMs = deps.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const step = (mountTarget: MountTargetEndpoints | undefined, kind: StepState['kind'], description: string, attempt: Step['attempt']): Step =>
    ({ state: { mountTarget, kind, description, ok: false, attempts: 0 }, attempt });
  const resolvesTo = (name: string, type: RecordType, address: string) => async () => {
    const found = await lookup(deps.resolver, name, type);
    if (found.problem) return found.problem;
    return found.addresses.some((a) => sameAddress(a, address)) ? undefined : `resolved to ${found.addresses.join(', ')}, not ${address}`;
  };
  const resolves = (name: string, type: RecordType) => async () => (await lookup(deps.resolver, name, type)).problem;
  const connects = (address: string) => async () => (await connectTcp(address, port, timeoutMs)).problem;
  // An address not known in advance: each attempt connects to every address the name resolves to now.
  const connectsWhereResolved = (name: string, type: RecordType) => async () => {
    const found = await lookup(deps.resolver, name, type);
    if (found.problem) return `no address to connect to yet: ${name} (${type}): ${found.problem}`;
    const probes = await Promise.all(found.addresses.map((a) => connectTcp(a, port, timeoutMs)));
    const failed = probes.filter((p) => !p.connected);
    return failed.length ? failed.map((p) => `${endpointOf(p.host, port)}: ${p.problem}`).join('; ') : undefined;
  };

  const steps: Step[] = [];
  for (const t of targets) {
    const name = zonalDnsName(fileSystem, t);
    const families = familiesOf(t);
    for (const { type, address } of families) {
      steps.push(address
        ? step(t, 'resolve', `${name} resolves (${type}) to ${address}`, resolvesTo(name, type, address))
        : step(t, 'resolve', `${name} resolves (${type})`, resolves(name, type)));
    }
    for (const { type, address } of families) {
      steps.push(address
        ? step(t, 'connect', `TCP ${port} accepts connections at ${endpointOf(address, port)}`, connects(address))
        : step(t, 'connect', `TCP ${port} accepts connections at the ${type === 'A' ? 'IPv4' : 'IPv6'} address ${name} resolves to`, connectsWhereResolved(name, type)));
    }
  }
  // mount.s3files resolves only the zonal names (see s3-files-names.ts): nothing waits for the other.
  if (fileSystem.kind === 'S3_FILES') return steps;
  const fsName = fileSystemDnsName(fileSystem.id, fileSystem.region);
  const addresses = targets.flatMap((t) => [t.ipv4, t.ipv6]).filter((a): a is string => !!a);
  const types: RecordType[] = [...(targets.some((t) => t.ipv4) ? ['A' as const] : []), ...(targets.some((t) => t.ipv6) ? ['AAAA' as const] : [])];
  steps.push(step(undefined, 'resolve', `${fsName} resolves to a mount target (the one in the caller's zone)`, async () => {
    const found = await Promise.all(types.map((type) => lookup(deps.resolver, fsName, type)));
    const all = found.flatMap((f) => f.addresses);
    if (all.some((a) => addresses.some((b) => sameAddress(a, b)))) return undefined;
    if (all.length) return `resolved to ${all.join(', ')}, which is no mount target of ${fileSystem.id}`;
    return found.map((f) => `${f.type}: ${f.problem}`).join('; ');
  }));
  return steps;
}

/** The address families a mount target has: each with its address when known. */
function familiesOf(t: MountTargetEndpoints): Array<{ type: RecordType; address?: string }> {
  const families: Array<{ type: RecordType; address?: string }> = [];
  if (t.ipv4 || (t.ipAddressType !== undefined && t.ipAddressType !== 'IPV6_ONLY')) families.push({ type: 'A', address: t.ipv4 });
  if (t.ipv6 || (t.ipAddressType !== undefined && t.ipAddressType !== 'IPV4_ONLY')) families.push({ type: 'AAAA', address: t.ipv6 });
  return families;
}

/** Two spellings of one address are one address (2600:1f18:0::9 and 2600:1f18::9). */
function sameAddress(a: string, b: string): boolean {
  if (net.isIPv6(a) && net.isIPv6(b)) return canonicalIpv6(a) === canonicalIpv6(b);
  return a === b;
}

const canonicalIpv6 = (address: string) => new URL(`http://[${address}]/`).hostname;

/** Why the gate gives up: each step that never succeeded, with its mount target, zone and last problem, and what to check. */
export function notReadyMessage(fileSystem: GatedFileSystem, outcome: ReadinessOutcome, limitSeconds: number): string {
  const failed = outcome.steps.filter((s) => !s.ok);
  const lines = failed.map((s) => {
    const where = s.mountTarget ? `mount target ${s.mountTarget.id} (${zoneOf(s.mountTarget)})` : 'the file system name';
    return `${where}: "${s.description}" never succeeded (${s.attempts} attempt${s.attempts === 1 ? '' : 's'}, last: ${s.lastProblem})`;
  });
  const hints = [
    failed.some((s) => s.kind === 'resolve') && fileSystem.kind === 'EFS'
      ? 'A new mount target\'s names resolve within 60-90 seconds; longer means the VPC lacks DNS support or DNS hostnames (enableDnsSupport, enableDnsHostnames), or its resolver is not the one asked.'
      : '',
    failed.some((s) => s.kind === 'resolve') && fileSystem.kind === 'S3_FILES'
      ? 'S3 Files mount target names (<az-id>.fs-….s3files.<region>.on.aws) resolve only through the VPC\'s resolver, with DNS support and DNS hostnames on (enableDnsSupport, enableDnsHostnames); how long a new one takes is not documented.'
      : '',
    failed.some((s) => s.kind === 'connect')
      ? 'TCP 2049 must be open from the gate\'s security group to the mount targets\' (inbound on theirs, outbound on its), and network ACLs must let it through; IPv6 addresses need dual-stack subnets.'
      : '',
  ].filter(Boolean);
  const text = `mount readiness: ${fileSystem.id} was not ready within ${describeSeconds(limitSeconds)}: ${lines.join('; ')}. ${hints.join(' ')}`;
  // CloudFormation shows at most a few KB of a failure reason.
  return text.length > 3500 ? `${text.slice(0, 3497)}...` : text;
}
