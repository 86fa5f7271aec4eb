import { CreateStateMachineCommand, DescribeExecutionCommand, ListExecutionsCommand, SFNClient } from '@aws-sdk/client-sfn';
import { quotaHint } from '../../../lambda/seed-distributed-map-run/failure-hint';
import { isComplete, onEvent } from '../../../lambda/seed-distributed-map-run/run';
import { Moto, startMoto } from '../../helpers/moto';
import { settledStatus, untilMotoRuns } from '../../helpers/moto-sfn';

// The Distributed Map seed's deploy-time runner against moto's Step Functions on 127.0.0.1, which
// really executes simple state machines (Pass, Fail) once told to. moto applies StopExecution in a
// worker thread where AWS applies it at once: the tests wait for it (test/helpers/moto-sfn.ts).
let moto: Moto;
let client: SFNClient;

beforeAll(async () => {
  moto = await startMoto();
  await fetch(`${moto.endpoint}/moto-api/config`, { method: 'POST', body: JSON.stringify({ stepfunctions: { execute_state_machine: true } }) });
  client = new SFNClient(moto.clientConfig);
});
afterAll(() => moto.stop());

async function stateMachine(name: string, definition: object): Promise<string> {
  const created = await client.send(new CreateStateMachineCommand({
    name, definition: JSON.stringify(definition), roleArn: 'arn:aws:iam::123456789012:role/sfn',
  }));
  return created.stateMachineArn!;
}

const waited = (arn: string, Trigger = 'v1') => ({ StateMachineArn: arn, Trigger, TimeLimitSeconds: '3000' });
const WAIT_A_MINUTE = { StartAt: 'Copy', States: { Copy: { Type: 'Wait', Seconds: 60, End: true } } };

async function runToEnd(arn: string, requestId: string) {
  const started = await onEvent({ RequestType: 'Create', RequestId: requestId, ResourceProperties: waited(arn) }, client);
  const event = { RequestType: 'Create' as const, ResourceProperties: waited(arn), ...started };
  // A Pass state ends at once; a minute only guards against a hang (moto's first execution loads its interpreter).
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    const done = await isComplete(event, client);
    if (done.IsComplete) return done;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('never completed');
}

test('starts the state machine and completes when the execution succeeds', async () => {
  const arn = await stateMachine('ok', { StartAt: 'Done', States: { Done: { Type: 'Pass', End: true } } });
  const done = await runToEnd(arn, 'req-1');
  expect(done.IsComplete).toBe(true);
  expect(done.Data?.ExecutionArn).toMatch(/:execution:ok:seed-[0-9a-f]{16}-req-1$/);
});

test('fails with the execution\'s error and cause', async () => {
  const arn = await stateMachine('broken', { StartAt: 'Boom', States: { Boom: { Type: 'Fail', Error: 'SeedBatchFailed', Cause: '3 of 40 batches failed' } } });
  await expect(runToEnd(arn, 'req-2')).rejects.toThrow(/FAILED: SeedBatchFailed: 3 of 40 batches failed/);
});

test('when a worker stays throttled, the reason says the account\'s Lambda concurrency quota is the cause, and how to raise it', async () => {
  const arn = await stateMachine('throttled', { StartAt: 'Boom', States: { Boom: { Type: 'Fail', Error: 'Lambda.TooManyRequestsException', Cause: 'Rate Exceeded.' } } });
  const failure = await runToEnd(arn, 'req-throttled').then(() => undefined, (e: Error) => e.message);
  expect(failure).toContain('FAILED: Lambda.TooManyRequestsException: Rate Exceeded. The workers were throttled by the account\'s Lambda concurrency quota, even after the map\'s retries: '
    + 'lower the engine\'s maxConcurrency, or raise the account\'s "Concurrent executions" quota (Service Quotas, AWS Lambda).');
});

test('when the map\'s tolerated failures are exceeded, the reason says the quota can be the cause, where to look, and how to raise it', () => {
  // Step Functions names this error itself: a Fail state may not use a States. name, so moto cannot raise it here.
  expect(quotaHint('States.ExceedToleratedFailureThreshold', 'The specified tolerated failure threshold was exceeded')).toEqual(
    'Batches fail after their retries when keys cannot be copied (S3 or EFS errors) or when the workers stay throttled; the failed items '
    + 'and their errors are in the seed\'s results bucket (seed-results/). If the failed items show Lambda.TooManyRequestsException, '
    + 'the workers were throttled by the account\'s Lambda concurrency quota: lower the engine\'s maxConcurrency, or raise the account\'s '
    + '"Concurrent executions" quota (Service Quotas, AWS Lambda).');
  expect(quotaHint('SeedBatchFailed', '3 of 40 batches failed')).toBeUndefined();
});

test('Delete starts nothing, and answers with its physical id whatever the properties', async () => {
  const response = await onEvent({ RequestType: 'Delete', PhysicalResourceId: 'arn:x', ResourceProperties: { StateMachineArn: 'arn:x' } }, client);
  expect(response).toEqual({ PhysicalResourceId: 'arn:x' });
});

test('an execution for the same source that is still running is followed, not started again', async () => {
  const arn = await stateMachine('slow-same', WAIT_A_MINUTE);
  const first = await onEvent({ RequestType: 'Create', RequestId: 'req-3', ResourceProperties: waited(arn) }, client);
  // The stack rolled back and is deployed again with the same source while the copy still runs.
  const again = await onEvent({ RequestType: 'Create', RequestId: 'req-4', ResourceProperties: waited(arn) }, client);
  expect(again.Data?.ExecutionArn).toBe(first.Data?.ExecutionArn);
  const running = await client.send(new ListExecutionsCommand({ stateMachineArn: arn, statusFilter: 'RUNNING' }));
  expect(running.executions).toHaveLength(1);
});

test('an execution still running for another source is stopped, and this request\'s starts: two copies into one target would race', async () => {
  const arn = await stateMachine('slow-other', WAIT_A_MINUTE);
  const first = await onEvent({ RequestType: 'Create', RequestId: 'req-5', ResourceProperties: waited(arn, 'v1') }, client);
  await untilMotoRuns(client, first.Data!.ExecutionArn!);
  const second = await onEvent({ RequestType: 'Update', RequestId: 'req-6', ResourceProperties: waited(arn, 'v2'), OldResourceProperties: waited(arn, 'v1') }, client);
  expect(second.Data?.ExecutionArn).toMatch(/:execution:slow-other:seed-[0-9a-f]{16}-req-6$/);
  expect(await settledStatus(client, first.Data!.ExecutionArn!, 'ABORTED')).toBe('ABORTED');
  expect((await client.send(new DescribeExecutionCommand({ executionArn: second.Data!.ExecutionArn! }))).status).toBe('RUNNING');
});

test('an execution still running for another place is stopped too: the place is part of what a run copies', async () => {
  const arn = await stateMachine('slow-moved', WAIT_A_MINUTE);
  const here = { ...waited(arn), Target: 'fs-0123456789abcdef0:fsap-0123456789abcdef0:/www' };
  const there = { ...here, Target: 'fs-0123456789abcdef0:fsap-0123456789abcdef0:/www/next' };
  const first = await onEvent({ RequestType: 'Create', RequestId: 'req-10', ResourceProperties: here }, client);
  await untilMotoRuns(client, first.Data!.ExecutionArn!);
  const second = await onEvent({ RequestType: 'Update', RequestId: 'req-11', ResourceProperties: there, OldResourceProperties: here }, client);
  expect(second.Data?.ExecutionArn).not.toBe(first.Data?.ExecutionArn);
  expect(await settledStatus(client, first.Data!.ExecutionArn!, 'ABORTED')).toBe('ABORTED');
});

test('an Update of neither the state machine nor the source starts nothing', async () => {
  const arn = await stateMachine('unchanged', WAIT_A_MINUTE);
  const response = await onEvent({ RequestType: 'Update', RequestId: 'req-7', ResourceProperties: waited(arn), OldResourceProperties: { StateMachineArn: arn, Trigger: 'v1' } }, client);
  expect(response).toEqual({ PhysicalResourceId: arn, Data: {} });
  expect((await client.send(new ListExecutionsCommand({ stateMachineArn: arn }))).executions).toEqual([]);
});

test('past the time limit, stops the execution and fails the deploy, saying why and what to do', async () => {
  const arn = await stateMachine('too-slow', WAIT_A_MINUTE);
  const started = await onEvent({ RequestType: 'Create', RequestId: 'req-8', ResourceProperties: waited(arn) }, client);
  await untilMotoRuns(client, started.Data!.ExecutionArn!);
  const late = { RequestType: 'Create' as const, ResourceProperties: waited(arn), ...started, Data: { ...started.Data, Deadline: Date.now() - 1 } };
  await expect(isComplete(late, client)).rejects.toThrow(/did not finish within the deploy's time limit of 50 minutes .*so it was stopped.*waitForCompletion: false/);
  expect(await settledStatus(client, started.Data!.ExecutionArn!, 'ABORTED')).toBe('ABORTED');
});

test('without a time limit (the deploy does not wait) it only starts the execution', async () => {
  const arn = await stateMachine('detached', WAIT_A_MINUTE);
  const response = await onEvent({ RequestType: 'Create', RequestId: 'req-9', ResourceProperties: { StateMachineArn: arn, Trigger: 'v1' } }, client);
  expect(response.Data).toEqual({ ExecutionArn: expect.stringContaining(':execution:detached:seed-') });
});
