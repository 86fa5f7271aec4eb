import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';

/**
 * A custom resource (Provider framework) that runs the Distributed Map seed state machine at deploy
 * time: onEvent starts an execution on Create and Update, isComplete polls it until it succeeds or
 * fails. Delete leaves the data.
 */

export interface StateMachineRunProperties {
  readonly StateMachineArn: string;
  /** Changes whenever the source changes; part of the execution name so re-runs are distinct. */
  readonly Trigger?: string;
}

export interface StateMachineRunEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly RequestId?: string;
  readonly ResourceProperties: StateMachineRunProperties;
  readonly PhysicalResourceId?: string;
  readonly Data?: { ExecutionArn?: string };
}

export async function onEvent(event: StateMachineRunEvent, client: SFNClient) {
  const stateMachineArn = event.ResourceProperties.StateMachineArn;
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId ?? stateMachineArn };
  if (!stateMachineArn) throw new Error('Distributed Map seed: ResourceProperties.StateMachineArn is missing.');
  const started = await client.send(new StartExecutionCommand({
    stateMachineArn,
    // The request id makes a retried onEvent start the same execution, not a second one.
    name: event.RequestId ? `seed-${event.RequestId}`.slice(0, 80) : undefined,
    input: JSON.stringify({ trigger: event.ResourceProperties.Trigger ?? '' }),
  }));
  console.log(JSON.stringify({ message: 'started seed state machine', executionArn: started.executionArn }));
  return { PhysicalResourceId: stateMachineArn, Data: { ExecutionArn: started.executionArn! } };
}

export async function isComplete(event: StateMachineRunEvent, client: SFNClient) {
  if (event.RequestType === 'Delete') return { IsComplete: true };
  const executionArn = event.Data?.ExecutionArn;
  if (!executionArn) throw new Error('Distributed Map seed: no ExecutionArn from onEvent; cannot follow the execution.');
  const execution = await client.send(new DescribeExecutionCommand({ executionArn }));
  console.log(JSON.stringify({ message: 'seed state machine execution', executionArn, status: execution.status }));
  switch (execution.status) {
    case 'SUCCEEDED':
      return { IsComplete: true, Data: { ExecutionArn: executionArn } };
    case 'FAILED':
    case 'TIMED_OUT':
    case 'ABORTED':
      throw new Error(`Distributed Map seed: execution ${executionArn} ${execution.status}: ${execution.error ?? 'no error name'}: ${execution.cause ?? 'no cause given'}`);
    default:
      return { IsComplete: false };
  }
}
