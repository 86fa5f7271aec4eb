import { createHash } from 'crypto';
import { DescribeExecutionCommand, ListExecutionsCommand, SFNClient, StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { isRunComplete, onRunEvent, PolledRun, RunCompleteResponse, RunService } from '../shared/deploy-time-run';
import { quotaHint } from './failure-hint';

/**
 * A custom resource (Provider framework) that runs the Distributed Map seed state machine at deploy
 * time. A run belongs to the newest request: onEvent stops the state machine's running executions
 * of another source or place (two copies into one target would race, and a rollback must not wait
 * for the copy it rolls back), follows one of the same source and place, or starts one; isComplete,
 * when the deploy waits, polls it until it succeeds or fails, or stops it when the deploy's time
 * limit runs out. Delete stops what still runs and always succeeds; it never deletes data. The
 * protocol is lambda/shared/deploy-time-run.ts's; this module is what Step Functions does for it.
 */

export interface DistributedMapRunProperties {
  readonly StateMachineArn: string;
  /** Changes whenever the source changes. */
  readonly Trigger?: string;
  /** Where the copy lands (file system, access point, target path): the state machine's definition holds it, its ARN does not. */
  readonly Target?: string;
  /** Seconds from onEvent's start until a waited run must be over. */
  readonly TimeLimitSeconds?: string;
  /** 'false' when the deploy only starts the run (the seed's waitForCompletion). */
  readonly WaitForCompletion?: string;
}

export interface DistributedMapRunEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly RequestId?: string;
  readonly ResourceProperties: DistributedMapRunProperties;
  readonly OldResourceProperties?: DistributedMapRunProperties;
  readonly PhysicalResourceId?: string;
  readonly Data?: { ExecutionArn?: string; Deadline?: number };
}

export interface DistributedMapRunResponse {
  readonly PhysicalResourceId: string;
  /** The execution to follow (none when there was nothing to run) and, when the deploy waits, when it must be over. */
  readonly Data?: { readonly ExecutionArn?: string; readonly Deadline?: number };
}

/** The error name an execution stopped by this handler carries (StopExecution's `error`). */
const SUPERSEDED = 'SeedSuperseded';

/**
 * Executions of a seed are named `seed-<hash of its source and place>-<request>`: the name says what
 * an execution copies where, and the request id makes a retried onEvent find its own execution.
 */
const namePrefix = (p: DistributedMapRunProperties) => `seed-${createHash('sha256').update(JSON.stringify([p.Trigger ?? '', p.Target ?? ''])).digest('hex').slice(0, 16)}-`;

const STATE_MACHINE_ARN = /^arn:[\w-]+:states:[\w-]*:\d{12}:stateMachine:[\w-]+$/;

export function onEvent(event: DistributedMapRunEvent, client: SFNClient): Promise<DistributedMapRunResponse> {
  return onRunEvent(distributedMapRuns(client), event);
}

export function isComplete(event: DistributedMapRunEvent, client: SFNClient): Promise<RunCompleteResponse> {
  return isRunComplete(distributedMapRuns(client), event);
}

/** A state machine's executions, as the deploy-time run protocol sees them. */
function distributedMapRuns(client: SFNClient): RunService<DistributedMapRunProperties> {
  return {
    name: 'Distributed Map seed',
    ownerProperty: 'StateMachineArn',
    ownerArn: STATE_MACHINE_ARN,
    runKey: 'ExecutionArn',
    unchanged: { message: 'state machine, source and place unchanged: nothing to run', logKey: 'stateMachineArn' },
    startOrFollow: (stateMachineArn, event, startedAt) => startOrFollow(client, stateMachineArn, event, startedAt),
    runsGoing: async (stateMachineArn) => (await runningExecutions(client, stateMachineArn)).map((e) => e.executionArn!),
    listErrorIsExpected: (error) => (error as Error).name === 'StateMachineDoesNotExist',
    stopForDelete: (executionArn) => stopExecution(client, executionArn, 'the seed was deleted'),
    deleteWarnings: {
      listFailed: 'could not list the running executions; any still running go on to their end',
      stopFailed: (executionArn) => `could not stop it: it goes on to its end (aws stepfunctions stop-execution --execution-arn ${executionArn})`,
    },
    poll: (executionArn) => poll(client, executionArn),
  };
}

/** Stops the running executions of another source or place, follows one of this source and place, or starts one. */
async function startOrFollow(client: SFNClient, stateMachineArn: string, event: DistributedMapRunEvent, startedAt: number): Promise<string> {
  const properties = event.ResourceProperties;
  const prefix = namePrefix(properties);
  const running = await runningExecutions(client, stateMachineArn);
  for (const other of running.filter((e) => !e.name?.startsWith(prefix))) {
    await stopExecution(client, other.executionArn!, `a newer deploy request (${event.RequestId ?? 'no request id'}) seeds another source or place`);
  }
  const same = running.find((e) => e.name?.startsWith(prefix));
  if (same) {
    console.log(JSON.stringify({ message: 'an execution for this source and place is still running: following it, not starting another', executionArn: same.executionArn }));
    return same.executionArn!;
  }
  const name = `${prefix}${event.RequestId ?? startedAt}`.slice(0, 80);
  try {
    const started = await client.send(new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify({ trigger: properties.Trigger ?? '' }) }));
    console.log(JSON.stringify({ message: 'started seed state machine', executionArn: started.executionArn }));
    return started.executionArn!;
  } catch (error) {
    // A retried request whose execution has already ended: names are unique, so it is that execution.
    if ((error as Error).name !== 'ExecutionAlreadyExists') throw error;
    const executionArn = executionArnOf(stateMachineArn, name);
    console.log(JSON.stringify({ message: 'this request\'s execution already ran: following it', executionArn }));
    return executionArn;
  }
}

/** The execution now: over when it SUCCEEDED; ABORTED, FAILED and TIMED_OUT fail the request. */
async function poll(client: SFNClient, executionArn: string): Promise<PolledRun> {
  const execution = await client.send(new DescribeExecutionCommand({ executionArn }));
  console.log(JSON.stringify({ message: 'seed state machine execution', executionArn, status: execution.status }));
  switch (execution.status) {
    case 'SUCCEEDED':
      return { over: true, data: { ExecutionArn: executionArn } };
    case 'ABORTED':
      // Superseded by a newer request (a rollback, another deploy) or a Delete, or stopped by hand:
      // whoever stopped it owns the target now, so end here without touching anything.
      throw new Error(`Distributed Map seed: execution ${executionArn} was stopped before it finished (${execution.error ?? 'no error name'}: `
        + `${execution.cause ?? 'no cause given'}): a newer deploy request for this seed or its Delete stops the run it replaces, `
        + 'or someone stopped it. This request\'s copy is not complete.');
    case 'FAILED':
    case 'TIMED_OUT':
    {
      const failure = `Distributed Map seed: execution ${executionArn} ${execution.status}: ${execution.error ?? 'no error name'}: ${execution.cause ?? 'no cause given'}`;
      const hint = quotaHint(execution.error, execution.cause);
      throw new Error(hint ? `${failure}${/[.!?]$/.test(failure) ? '' : '.'} ${hint}` : failure);
    }
    default:
      return {
        over: false,
        stopAtDeadline: async (limit) => {
          await client.send(new StopExecutionCommand({ executionArn, error: 'SeedDeployTimeLimit', cause: `the deploy waits ${limit} for the seed` }));
          throw new Error(`Distributed Map seed: execution ${executionArn} did not finish within the deploy's time limit of ${limit} `
            + '(CloudFormation waits at most an hour for a custom resource), so it was stopped. What the workers wrote stays, and a re-run '
            + 'skips it. For seeds that take longer, set waitForCompletion: false on the seed: the deploy then starts the execution and '
            + 'returns, and the seed\'s alarm reports a failure.');
        },
      };
  }
}

/** Stops an execution this request supersedes; one that has ended meanwhile needs nothing. */
async function stopExecution(client: SFNClient, executionArn: string, cause: string): Promise<void> {
  try {
    await client.send(new StopExecutionCommand({ executionArn, error: SUPERSEDED, cause }));
    console.log(JSON.stringify({ message: 'stopped a seed execution', executionArn, cause }));
  } catch (error) {
    if ((error as Error).name !== 'ExecutionDoesNotExist') throw error;
  }
}

/** The state machine's running executions (a seed has at most a few). */
async function runningExecutions(client: SFNClient, stateMachineArn: string) {
  const executions = [];
  let nextToken: string | undefined;
  do {
    const page = await client.send(new ListExecutionsCommand({ stateMachineArn, statusFilter: 'RUNNING', nextToken }));
    executions.push(...(page.executions ?? []));
    nextToken = page.nextToken;
  } while (nextToken);
  return executions;
}

/** `arn:...:stateMachine:<machine>` -> `arn:...:execution:<machine>:<name>`, as Step Functions names executions. */
function executionArnOf(stateMachineArn: string, name: string): string {
  return `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
}
