import { describeSeconds, timeLimitSeconds } from '../../lib/core/contract/deploy-time-limit';

/**
 * The deploy-time run protocol of a custom resource (Provider framework) that runs a copy in another
 * service (a DataSync task, a Step Functions state machine). onEvent starts a run or follows one
 * (what to stop, follow or start is the service's), answers an Update that changes nothing with no
 * run, and hands isComplete the deadline; isComplete polls the run until it is over, and stops it
 * once the deadline has passed; Delete stops what still runs and always succeeds, deleting no data.
 */

/** What the protocol reads of the ResourceProperties: what to copy, where, and the time limit. */
export interface RunProperties {
  /** Changes whenever the user wants a new run (the source's fingerprint). */
  readonly Trigger?: string;
  /** Where the copy lands (file system, access point, target path). */
  readonly Target?: string;
  /** Seconds from onEvent's start until a waited run must be over. */
  readonly TimeLimitSeconds?: string;
  /**
   * 'false' when the deploy only starts the run: isComplete then answers at once. The seed's own
   * setting, per request, so that changing it needs no other handlers. Absent (resources of earlier
   * versions): the deploy waits when it has a time limit.
   */
  readonly WaitForCompletion?: string;
}

/** The slice of the Provider framework's event the protocol reads. */
export interface RunEvent<P extends RunProperties> {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly RequestId?: string;
  readonly ResourceProperties: P;
  readonly OldResourceProperties?: P;
  readonly PhysicalResourceId?: string;
  /** Set by onEvent's response (the run under the service's key, the Deadline), seen by isComplete. */
  readonly Data?: { readonly Deadline?: number } & Partial<Record<string, string | number>>;
}

export interface RunResponse {
  readonly PhysicalResourceId: string;
  readonly Data?: Record<string, string | number>;
}

export interface RunCompleteResponse {
  readonly IsComplete: boolean;
  readonly Data?: Record<string, string | number>;
}

/** A polled run: over with its Data, or still going, with how to stop it when time is up. */
export type PolledRun =
  | { readonly over: true; readonly data: Record<string, string | number> }
  | { readonly over: false; readonly stopAtDeadline: (limit: string) => Promise<never> };

/** What one service does for the protocol. */
export interface RunService<P extends RunProperties> {
  /** How its messages start, e.g. 'DataSync seed'. */
  readonly name: string;
  /** The property naming what runs (a task, a state machine), which is also the physical id. */
  readonly ownerProperty: keyof P & string;
  /** The shape of an owner's ARN: a Delete trusts no other value. */
  readonly ownerArn: RegExp;
  /** The key of the run's ARN in Data, e.g. 'TaskExecutionArn'. */
  readonly runKey: string;
  /** Logged, with the owner under `logKey`, when an Update changes nothing a run depends on. */
  readonly unchanged: { readonly message: string; readonly logKey: string };
  /** Stops the runs this request supersedes and follows or starts its own: the run's ARN. */
  startOrFollow(owner: string, event: RunEvent<P>, startedAt: number): Promise<string>;
  /** The owner's runs that still go on, for a Delete. */
  runsGoing(owner: string): Promise<string[]>;
  /** Whether failing to list them needs no warning (the owner is gone, say). */
  listErrorIsExpected?(error: unknown): boolean;
  /** Stops one of them for a Delete. */
  stopForDelete(run: string): Promise<void>;
  /** The Delete warnings: listing failed; stopping `run` failed (and what to run by hand). */
  readonly deleteWarnings: { readonly listFailed: string; readonly stopFailed: (run: string) => string };
  /** The run now; throws when it failed or was stopped. */
  poll(run: string): Promise<PolledRun>;
}

/** A new run is due when the owner, the source or the place changed (a Target missing before counts as changed). */
function needsRun<P extends RunProperties>(service: RunService<P>, old: P | undefined, now: P): boolean {
  return old?.[service.ownerProperty] !== now[service.ownerProperty] || old?.Trigger !== now.Trigger || old?.Target !== now.Target;
}

export async function onRunEvent<P extends RunProperties>(service: RunService<P>, event: RunEvent<P>): Promise<RunResponse> {
  const startedAt = Date.now();
  if (event.RequestType === 'Delete') return onRunDelete(service, event);
  const properties = event.ResourceProperties;
  const owner = properties[service.ownerProperty] as unknown as string | undefined;
  if (!owner) throw new Error(`${service.name}: ResourceProperties.${service.ownerProperty} is missing.`);
  if (event.RequestType === 'Update' && !needsRun(service, event.OldResourceProperties, properties)) {
    console.log(JSON.stringify({ message: service.unchanged.message, [service.unchanged.logKey]: owner }));
    return { PhysicalResourceId: owner, Data: {} };
  }
  waitsFor(service, properties);
  const limit = timeLimitSeconds(properties);
  const deadline: Record<string, number> = limit === undefined ? {} : { Deadline: startedAt + limit * 1000 };
  const run = await service.startOrFollow(owner, event, startedAt);
  return { PhysicalResourceId: owner, Data: { [service.runKey]: run, ...deadline } };
}

/**
 * Stops whatever still runs on the owner (a stack delete, a rolled-back Create, the old owner after
 * a replacement) and succeeds whatever the properties hold: the files stay, and a Delete that
 * fails would hold the stack.
 */
async function onRunDelete<P extends RunProperties>(service: RunService<P>, event: RunEvent<P>): Promise<RunResponse> {
  const owner = [event.PhysicalResourceId, event.ResourceProperties?.[service.ownerProperty]]
    .find((arn): arn is string => typeof arn === 'string' && service.ownerArn.test(arn));
  const physicalResourceId = event.PhysicalResourceId ?? owner ?? '';
  if (!owner) return { PhysicalResourceId: physicalResourceId };
  let going: string[];
  try {
    going = await service.runsGoing(owner);
  } catch (error) {
    if (!service.listErrorIsExpected?.(error)) warn(service.deleteWarnings.listFailed, owner, error);
    return { PhysicalResourceId: physicalResourceId };
  }
  for (const run of going) {
    try {
      await service.stopForDelete(run);
    } catch (error) {
      warn(service.deleteWarnings.stopFailed(run), run, error);
    }
  }
  return { PhysicalResourceId: physicalResourceId };
}

export async function isRunComplete<P extends RunProperties>(service: RunService<P>, event: RunEvent<P>): Promise<RunCompleteResponse> {
  if (event.RequestType === 'Delete') return { IsComplete: true };
  // The deploy only starts the run: onEvent's Data (the run's ARN) is the resource's, and it goes on unobserved by CloudFormation.
  if (!waitsFor(service, event.ResourceProperties)) return { IsComplete: true };
  const run = event.Data?.[service.runKey];
  if (typeof run !== 'string' || !run) return { IsComplete: true }; // onEvent had nothing to run
  const deadline = event.Data?.Deadline;
  if (typeof deadline !== 'number') throw new Error(`${service.name}: no Deadline from onEvent (is TimeLimitSeconds set?); cannot bound the wait.`);
  const polled = await service.poll(run);
  if (polled.over) return { IsComplete: true, Data: polled.data };
  if (Date.now() < deadline) return { IsComplete: false };
  // Past the limit the deploy fails: the service stops the copy too, rather than leave it running unobserved.
  return polled.stopAtDeadline(describeSeconds(timeLimitSeconds(event.ResourceProperties)!));
}

/** Whether the request waits for its run: WaitForCompletion checked (the handler is the trust boundary). */
function waitsFor<P extends RunProperties>(service: RunService<P>, properties: P): boolean {
  const value = properties.WaitForCompletion;
  if (value !== undefined && value !== 'true' && value !== 'false') {
    throw new Error(`${service.name}: WaitForCompletion must be 'true' or 'false', got ${JSON.stringify(value)}.`);
  }
  return value !== 'false';
}

function warn(message: string, arn: string, error: unknown): void {
  console.log(JSON.stringify({ level: 'WARN', message: `Delete: ${message}`, arn, error: `${(error as Error).name}: ${(error as Error).message}` }));
}
