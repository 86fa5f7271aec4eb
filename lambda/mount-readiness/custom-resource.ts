import { describeSeconds } from '../../lib/core/contract/deploy-time-limit';
import { MountReadinessProperties } from '../../lib/file-system/contract/mount-readiness-properties';
import { AwsCallDeadlineError } from '../shared/aws-call-deadline';
import { checkReadinessProperties, CheckedMountTarget, CheckedReadinessProperties } from './properties';
import { DEFAULT_BACKOFF, GatedFileSystem, MountTargetEndpoints, notReadyMessage, ReadinessDeps, waitUntilReady } from './readiness';

/**
 * The readiness gate as a Provider-framework custom resource with onEvent only: onEvent checks the
 * properties and waits, in rounds with backoff, until every step has succeeded, then completes the
 * resource; once the time limit (TimeLimitSeconds) has passed it fails the resource, naming each
 * mount target, its zone and the step that never succeeded. The limit fits one invocation (the
 * construct gives the function a minute more, and the framework's own function has 15 minutes), so
 * there is no isComplete, no waiter state machine and nothing left running after the response.
 *
 * | event | what the gate does |
 * |---|---|
 * | Create | waits for every mount target |
 * | Update, same file system and mount targets | nothing: they were ready when the last version was |
 * | Update, anything changed (also a rollback to older properties) | waits for every mount target of the new properties |
 * | Delete | nothing (the gate owns nothing); properties are not even read |
 */
export interface ReadinessEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly ResourceProperties: MountReadinessProperties;
  readonly OldResourceProperties?: MountReadinessProperties;
  readonly PhysicalResourceId?: string;
}

/** A mount target as DescribeMountTargets describes it. */
export interface DescribedMountTarget {
  readonly id: string;
  readonly availabilityZone: string;
  readonly lifeCycleState: string;
  readonly ipv4?: string;
  readonly ipv6?: string;
}

export interface ReadinessHandlerDeps extends ReadinessDeps {
  /** Milliseconds this invocation has left. */
  readonly remainingMs: () => number;
  /** DescribeMountTargets of the file system (every page), given up at `deadline` (ms since the epoch). */
  readonly describeMountTargets: (fileSystemId: string, region: string, deadline: number) => Promise<DescribedMountTarget[]>;
}

/** Time the invocation keeps after the wait: a last round's lookups and connections, the response. */
const INVOCATION_MARGIN_MS = 15_000;

export async function onEvent(event: ReadinessEvent, deps: ReadinessHandlerDeps): Promise<{ PhysicalResourceId: string }> {
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId ?? 'mount-targets-ready' };
  const props = checkReadinessProperties(event.ResourceProperties);
  const physicalId = `mount-targets-ready:${props.fileSystemId}`;
  if (event.RequestType === 'Update' && unchanged(event.OldResourceProperties, props)) {
    console.log(JSON.stringify({ message: 'mount readiness: file system and mount targets unchanged, nothing to wait for' }));
    return { PhysicalResourceId: physicalId };
  }
  // The construct gives the function a minute more than the limit; should it have less, the wait
  // still ends with the message, not with Lambda's timeout.
  const deadline = Math.min(Date.now() + props.timeLimitSeconds * 1000, Date.now() + deps.remainingMs() - INVOCATION_MARGIN_MS);
  await waitForMountTargets(props, deps, deadline);
  return { PhysicalResourceId: physicalId };
}

/** Returns once every mount target answers; throws the message that fails the resource once `deadline` has passed. */
async function waitForMountTargets(props: CheckedReadinessProperties, deps: ReadinessHandlerDeps, deadline: number): Promise<void> {
  let targets = await endpointsOf(props, deps, deadline);
  while ('notAvailable' in targets) {
    if (Date.now() >= deadline) throw new Error(`mount readiness: ${props.fileSystemId} was not ready within the time limit: ${targets.notAvailable}.`);
    console.log(JSON.stringify({ message: 'mount readiness: waiting for mount targets to become available', detail: targets.notAvailable }));
    // A mount target is created in minutes: describe again at the rounds' longest pause.
    const pauseMs = (deps.backoff ?? DEFAULT_BACKOFF).maxMs;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(pauseMs, deadline - Date.now()))));
    targets = await endpointsOf(props, deps, deadline);
  }
  const fileSystem: GatedFileSystem = { id: props.fileSystemId, region: props.region, kind: props.kind };
  const outcome = await waitUntilReady(fileSystem, targets.endpoints, deadline, {
    ...deps,
    onRound: (round) => {
      console.log(JSON.stringify({ message: 'mount readiness round', ...round }));
      deps.onRound?.(round);
    },
  });
  if (!outcome.ready) throw new Error(notReadyMessage(fileSystem, outcome, props.timeLimitSeconds));
  console.log(JSON.stringify({ message: 'mount readiness: every mount target answers', rounds: outcome.rounds, elapsedMs: outcome.elapsedMs }));
}

/**
 * The mount targets with zone and addresses: as the properties give them, with what they leave out
 * read from DescribeMountTargets. A mount target still being created waits for a later round.
 * S3 Files: as the properties give them (the check made sure they are listed, each with its zone
 * ID); an address left out is the one its name resolves to.
 */
async function endpointsOf(props: CheckedReadinessProperties, deps: ReadinessHandlerDeps, deadline: number): Promise<{ endpoints: MountTargetEndpoints[] } | { notAvailable: string }> {
  const listed = props.mountTargets;
  if (props.kind === 'S3_FILES') {
    return { endpoints: listed!.map((t) => ({ id: t.id, availabilityZoneId: t.availabilityZoneId, ipAddressType: t.ipAddressType, ipv4: t.ipv4, ipv6: t.ipv6 })) };
  }
  if (listed && listed.every(complete)) {
    return { endpoints: listed.map((t) => ({ id: t.id, availabilityZone: t.availabilityZone!, ipv4: t.ipv4, ipv6: t.ipv6 })) };
  }
  let described: DescribedMountTarget[];
  try {
    described = await deps.describeMountTargets(props.fileSystemId, props.region, deadline);
  } catch (err) {
    if (err instanceof AwsCallDeadlineError) {
      throw new Error(`mount readiness: ${props.fileSystemId} was not ready within the time limit (${describeSeconds(props.timeLimitSeconds)}): DescribeMountTargets did not answer, so the gate could not read the mount targets, zones or addresses its properties leave out. Check that the gate's subnets reach the EFS API (a NAT gateway or an elasticfilesystem interface endpoint).`);
    }
    throw new Error(`mount readiness: DescribeMountTargets of ${props.fileSystemId} failed (${(err as Error).message}); the gate reads the mount targets, zones or addresses its properties leave out from it, so its role needs elasticfilesystem:DescribeMountTargets.`);
  }
  if (described.length === 0) throw new Error(`mount readiness: ${props.fileSystemId} has no mount targets: no client can mount it.`);
  const byId = new Map(described.map((d) => [d.id, d]));
  const wanted: Array<CheckedMountTarget | DescribedMountTarget> = listed ?? described;
  const missing = wanted.find((t) => !byId.has(t.id));
  if (missing) throw new Error(`mount readiness: ${missing.id} is not a mount target of ${props.fileSystemId} (DescribeMountTargets lists ${described.map((d) => d.id).join(', ')}).`);
  const creating = wanted.map((t) => byId.get(t.id)!).filter((d) => d.lifeCycleState !== 'available');
  if (creating.length) return { notAvailable: creating.map((d) => `mount target ${d.id} (${d.availabilityZone}) is ${d.lifeCycleState}`).join('; ') };
  return {
    endpoints: wanted.map((t) => {
      const d = byId.get(t.id)!;
      const given = 'ipAddressType' in t ? t : undefined;
      // What the properties give wins; the description fills the rest, keeping to the address type given.
      return {
        id: t.id,
        availabilityZone: given?.availabilityZone ?? d.availabilityZone,
        ipv4: given?.ipv4 ?? (given?.ipAddressType === 'IPV6_ONLY' ? undefined : d.ipv4),
        ipv6: given?.ipv6 ?? (given?.ipAddressType === 'IPV4_ONLY' ? undefined : d.ipv6),
      };
    }),
  };
}

/** A listed mount target needs no description: its zone and every address its type has are given. */
function complete(t: CheckedMountTarget): boolean {
  const needsV4 = t.ipAddressType !== 'IPV6_ONLY';
  const needsV6 = t.ipAddressType !== 'IPV4_ONLY';
  return !!t.availabilityZone && (!needsV4 || !!t.ipv4) && (!needsV6 || !!t.ipv6);
}

/** Old properties that fail the check (an older version's, or hand-made) count as changed. */
function unchanged(old: MountReadinessProperties | undefined, now: CheckedReadinessProperties): boolean {
  let before: CheckedReadinessProperties;
  try {
    before = checkReadinessProperties(old);
  } catch {
    return false;
  }
  const key = (p: CheckedReadinessProperties) => JSON.stringify([p.kind, p.fileSystemId, p.region, p.mountTargets ?? null]);
  return key(before) === key(now);
}
