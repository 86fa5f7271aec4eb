import { createHash } from 'crypto';
import { DescribeExecutionCommand, ListExecutionsCommand, SFNClient, StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { describeSeconds, timeLimitSeconds } from '../shared/deploy-time-limit';

/**
 * A custom resource (Provider framework) that runs the Distributed Map seed state machine at deploy
 * time: onEvent starts an execution on Create, and on Update when the state machine or the source
 * changed; isComplete, when the deploy waits, polls it until it succeeds or fails, or stops it when
 * the deploy's time limit runs out. An execution for the same source that is still running is
 * followed, not started again; one for another source makes the deploy fail, since two copies into
 * one target would race. Delete leaves the data.
 */

export interface StateMachineRunProperties {
  readonly StateMachineArn: string;
  /** Changes whenever the source changes; its hash starts the execution's name. */
  readonly Trigger?: string;
  /** Set when the deploy waits: seconds from onEvent's start until the run must be over. */
  readonly TimeLimitSeconds?: string;
}

export interface StateMachineRunEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly RequestId?: string;
  readonly ResourceProperties: StateMachineRunProperties;
  readonly OldResourceProperties?: StateMachineRunProperties;
  readonly PhysicalResourceId?: string;
  readonly Data?: { ExecutionArn?: string; Deadline?: number };
}

export interface StateMachineRunResponse {
  readonly PhysicalResourceId: string;
  /** The execution to follow (none when there was nothing to run) and, when the deploy waits, when it must be over. */
  readonly Data?: { readonly ExecutionArn?: string; readonly Deadline?: number };
}

/** Executions of a seed are named `seed-<hash of its trigger>-<request>`: the name says what source an execution copies. */
const namePrefix = (trigger: string | undefined) => `seed-${createHash('sha256').update(trigger ?? '').digest('hex').slice(0, 16)}-`;

export async function onEvent(event: StateMachineRunEvent, client: SFNClient): Promise<StateMachineRunResponse> {
  const startedAt = Date.now();
  const stateMachineArn = event.ResourceProperties.StateMachineArn;
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId ?? stateMachineArn };
  if (!stateMachineArn) throw new Error('Distributed Map seed: ResourceProperties.StateMachineArn is missing.');
  const old = event.OldResourceProperties;
  if (event.RequestType === 'Update' && old?.StateMachineArn === stateMachineArn && old?.Trigger === event.ResourceProperties.Trigger) {
    console.log(JSON.stringify({ message: 'state machine and source unchanged: nothing to run', stateMachineArn }));
    return { PhysicalResourceId: stateMachineArn, Data: {} };
  }
  const limit = timeLimitSeconds(event.ResourceProperties);
  const deadline = limit === undefined ? {} : { Deadline: startedAt + limit * 1000 };
  const prefix = namePrefix(event.ResourceProperties.Trigger);
  const running = await runningExecutions(client, stateMachineArn);
  const same = running.find((e) => e.name?.startsWith(prefix));
  if (same) {
    console.log(JSON.stringify({ message: 'an execution for this source is still running: following it, not starting another', executionArn: same.executionArn }));
    return { PhysicalResourceId: stateMachineArn, Data: { ExecutionArn: same.executionArn!, ...deadline } };
  }
  if (running.length > 0) {
    const other = running[0].executionArn;
    throw new Error(`Distributed Map seed: execution ${other} of an earlier source is still running, and two copies into one target would race. `
      + `Wait for it to end (the seed's dashboard row shows it) or stop it (aws stepfunctions stop-execution --execution-arn ${other}), then deploy again.`);
  }
  const started = await client.send(new StartExecutionCommand({
    stateMachineArn,
    // The request id makes a retried onEvent start the same execution, not a second one.
    name: `${prefix}${event.RequestId ?? startedAt}`.slice(0, 80),
    input: JSON.stringify({ trigger: event.ResourceProperties.Trigger ?? '' }),
  }));
  console.log(JSON.stringify({ message: 'started seed state machine', executionArn: started.executionArn }));
  return { PhysicalResourceId: stateMachineArn, Data: { ExecutionArn: started.executionArn!, ...deadline } };
}

export async function isComplete(event: StateMachineRunEvent, client: SFNClient) {
  if (event.RequestType === 'Delete') return { IsComplete: true };
  const executionArn = event.Data?.ExecutionArn;
  if (!executionArn) return { IsComplete: true }; // onEvent had nothing to run
  const deadline = event.Data?.Deadline;
  if (typeof deadline !== 'number') throw new Error('Distributed Map seed: no Deadline from onEvent (is TimeLimitSeconds set?); cannot bound the wait.');
  const execution = await client.send(new DescribeExecutionCommand({ executionArn }));
  console.log(JSON.stringify({ message: 'seed state machine execution', executionArn, status: execution.status }));
  switch (execution.status) {
    case 'SUCCEEDED':
      return { IsComplete: true, Data: { ExecutionArn: executionArn } };
    case 'FAILED':
    case 'TIMED_OUT':
    case 'ABORTED':
      throw new Error(`Distributed Map seed: execution ${executionArn} ${execution.status}: ${execution.error ?? 'no error name'}: ${execution.cause ?? 'no cause given'}`);
    default: {
      if (Date.now() < deadline) return { IsComplete: false };
      const limit = describeSeconds(timeLimitSeconds(event.ResourceProperties)!);
      // Past the limit the deploy fails: stop the copy too, rather than leave it running unobserved.
      await client.send(new StopExecutionCommand({ executionArn, error: 'SeedDeployTimeLimit', cause: `the deploy waits ${limit} for the seed` }));
      throw new Error(`Distributed Map seed: execution ${executionArn} did not finish within the deploy's time limit of ${limit} `
        + '(CloudFormation waits at most an hour for a custom resource), so it was stopped. What the workers wrote stays, and a re-run '
        + 'skips it. For seeds that take longer, set waitForCompletion: false on the seed: the deploy then starts the execution and '
        + 'returns, and the seed\'s alarm reports a failure.');
    }
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
