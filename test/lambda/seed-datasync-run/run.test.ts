import {
  CancelTaskExecutionCommand, DataSyncClient, DescribeTaskCommand, DescribeTaskExecutionCommand, ListTagsForResourceCommand, ListTaskExecutionsCommand,
  StartTaskExecutionCommand,
} from '@aws-sdk/client-datasync';
import { mockClient } from 'aws-sdk-client-mock';
import { DataSyncRunEvent, isComplete, onEvent, TRIGGER_TAG } from '../../../lambda/seed-datasync-run/run';

// moto has no DataSync EFS locations and moves no data, so these tests stub the DataSync client with
// aws-sdk-client-mock. Every response below is shaped after the DataSync API reference
// (StartTaskExecution, DescribeTask, DescribeTaskExecution, ListTaskExecutions, ListTagsForResource,
// CancelTaskExecution), including the Result fields of a failed execution. The event sequences
// CloudFormation sends are in test/lambda/seed-datasync-run/lifecycle.test.ts.
const TASK = 'arn:aws:datasync:us-east-1:123456789012:task/task-0123456789abcdef0';
const EXECUTION = `${TASK}/execution/exec-0123456789abcdef0`;
const EARLIER = `${TASK}/execution/exec-0fedcba98765432100`;

const client = new DataSyncClient({ region: 'us-east-1' });
const datasync = mockClient(client);
beforeEach(() => {
  datasync.reset();
  // A task that has never run.
  datasync.on(DescribeTaskCommand).resolves({ TaskArn: TASK, Status: 'AVAILABLE' });
  datasync.on(ListTaskExecutionsCommand).resolves({ TaskExecutions: [] });
});

const WAITED = { TaskArn: TASK, Trigger: 's3-objects:data/:v1', TimeLimitSeconds: '3000' };
const event = (RequestType: DataSyncRunEvent['RequestType'], extra: Partial<DataSyncRunEvent> = {}): DataSyncRunEvent =>
  ({ RequestType, ResourceProperties: WAITED, ...extra });

describe('onEvent', () => {
  test.each(['Create', 'Update'] as const)('%s starts one task execution, tagged with its source, and hands its ARN and deadline to isComplete', async (type) => {
    datasync.on(StartTaskExecutionCommand).resolves({ TaskExecutionArn: EXECUTION });
    const before = Date.now();
    const response = await onEvent(event(type, { PhysicalResourceId: TASK, OldResourceProperties: { ...WAITED, Trigger: 's3-objects:data/:v0' } }), client);
    expect(response).toEqual({ PhysicalResourceId: TASK, Data: { TaskExecutionArn: EXECUTION, Deadline: expect.any(Number) } });
    // The deadline is the time limit from onEvent's start: 3000 s.
    expect((response.Data!.Deadline as number) - before).toBeGreaterThanOrEqual(3_000_000);
    expect((response.Data!.Deadline as number) - Date.now()).toBeLessThanOrEqual(3_000_000);
    const [start] = datasync.commandCalls(StartTaskExecutionCommand).map((c) => c.args[0].input);
    expect(start).toEqual({ TaskArn: TASK, Tags: [{ Key: TRIGGER_TAG, Value: expect.stringMatching(/^[0-9a-f]{32}$/) }] });
  });

  test('an Update of neither the task nor the source starts nothing', async () => {
    const response = await onEvent(event('Update', { PhysicalResourceId: TASK, OldResourceProperties: { ...WAITED, TimeLimitSeconds: '3600' } }), client);
    expect(response).toEqual({ PhysicalResourceId: TASK, Data: {} });
    expect(datasync.calls()).toHaveLength(0);
    expect(await isComplete({ ...event('Update'), ...response }, client)).toEqual({ IsComplete: true });
  });

  test('an execution for the same source that is still going is followed, not started again', async () => {
    datasync.on(StartTaskExecutionCommand).resolves({ TaskExecutionArn: EXECUTION });
    const first = await onEvent(event('Create'), client);
    const tag = datasync.commandCalls(StartTaskExecutionCommand)[0].args[0].input.Tags!;
    // A stack rolled back and deployed again, the same source, while the first execution still transfers.
    datasync.reset();
    datasync.on(ListTaskExecutionsCommand).resolves({ TaskExecutions: [{ TaskExecutionArn: first.Data!.TaskExecutionArn as string, Status: 'TRANSFERRING' }] });
    datasync.on(ListTagsForResourceCommand).resolves({ Tags: tag });
    const again = await onEvent(event('Create'), client);
    expect(again.Data).toMatchObject({ TaskExecutionArn: EXECUTION });
    expect(datasync.commandCalls(StartTaskExecutionCommand)).toHaveLength(0);
    expect(datasync.commandCalls(CancelTaskExecutionCommand)).toHaveLength(0);
  });

  test('an execution a deploy started for another source is cancelled, and this request\'s starts (queued behind it while it ends)', async () => {
    datasync.on(ListTaskExecutionsCommand).resolves({ TaskExecutions: [{ TaskExecutionArn: EARLIER, Status: 'TRANSFERRING' }] });
    datasync.on(ListTagsForResourceCommand).resolves({ Tags: [{ Key: TRIGGER_TAG, Value: '0'.repeat(32) }] });
    datasync.on(CancelTaskExecutionCommand).resolves({});
    datasync.on(StartTaskExecutionCommand).resolves({ TaskExecutionArn: EXECUTION });
    expect((await onEvent(event('Create'), client)).Data).toMatchObject({ TaskExecutionArn: EXECUTION });
    expect(datasync.commandCalls(CancelTaskExecutionCommand).map((c) => c.args[0].input)).toEqual([{ TaskExecutionArn: EARLIER }]);
  });

  test('an execution nobody tagged (the task\'s schedule, or started by hand) is left to run', async () => {
    datasync.on(ListTaskExecutionsCommand).resolves({ TaskExecutions: [{ TaskExecutionArn: EARLIER, Status: 'TRANSFERRING' }] });
    datasync.on(ListTagsForResourceCommand).resolves({ Tags: [] });
    datasync.on(StartTaskExecutionCommand).resolves({ TaskExecutionArn: EXECUTION });
    expect((await onEvent(event('Create'), client)).Data).toMatchObject({ TaskExecutionArn: EXECUTION });
    expect(datasync.commandCalls(CancelTaskExecutionCommand)).toHaveLength(0);
  });

  test('a new place is a new run even with the same task and source', async () => {
    datasync.on(StartTaskExecutionCommand).resolves({ TaskExecutionArn: EXECUTION });
    const old = { ...WAITED, Target: 'fs-0123456789abcdef0:fsap-0123456789abcdef0:/www' };
    const moved = { ...old, Target: 'fs-0123456789abcdef0:fsap-0123456789abcdef0:/www/next' };
    const response = await onEvent(event('Update', { PhysicalResourceId: TASK, ResourceProperties: moved, OldResourceProperties: old }), client);
    expect(response.Data).toMatchObject({ TaskExecutionArn: EXECUTION });
  });

  test('without a time limit (the deploy does not wait) it only starts the execution', async () => {
    datasync.on(StartTaskExecutionCommand).resolves({ TaskExecutionArn: EXECUTION });
    const response = await onEvent({ RequestType: 'Create', ResourceProperties: { TaskArn: TASK, Trigger: 'v1' } }, client);
    expect(response).toEqual({ PhysicalResourceId: TASK, Data: { TaskExecutionArn: EXECUTION } });
  });

  test('Delete starts nothing, deletes nothing, and cancels what still runs on the task', async () => {
    datasync.on(ListTaskExecutionsCommand).resolves({ TaskExecutions: [{ TaskExecutionArn: EXECUTION, Status: 'QUEUED' }, { TaskExecutionArn: EARLIER, Status: 'SUCCESS' }] });
    datasync.on(CancelTaskExecutionCommand).resolves({});
    const response = await onEvent(event('Delete', { PhysicalResourceId: TASK }), client);
    expect(response).toEqual({ PhysicalResourceId: TASK });
    expect(datasync.calls().map((c) => c.args[0].constructor.name)).toEqual(['ListTaskExecutionsCommand', 'CancelTaskExecutionCommand']);
    expect(datasync.commandCalls(CancelTaskExecutionCommand)[0].args[0].input).toEqual({ TaskExecutionArn: EXECUTION });
  });

  test('Delete succeeds when DataSync will not answer: the data stays anyway, and a stuck Delete would hold the stack', async () => {
    datasync.on(ListTaskExecutionsCommand).rejects(Object.assign(new Error('not authorized'), { name: 'AccessDeniedException' }));
    expect(await onEvent(event('Delete', { PhysicalResourceId: TASK }), client)).toEqual({ PhysicalResourceId: TASK });
  });

  test('fails with the reason when DataSync refuses to start', async () => {
    datasync.on(StartTaskExecutionCommand).rejects(Object.assign(new Error('Task is not available'), { name: 'InvalidRequestException' }));
    await expect(onEvent(event('Create'), client)).rejects.toThrow('Task is not available');
  });
});

describe('isComplete', () => {
  const started = (deadline = Date.now() + 60_000) => event('Create', { PhysicalResourceId: TASK, Data: { TaskExecutionArn: EXECUTION, Deadline: deadline } });

  test.each(['QUEUED', 'LAUNCHING', 'PREPARING', 'TRANSFERRING', 'VERIFYING'] as const)('keeps waiting while the execution is %s', async (Status) => {
    datasync.on(DescribeTaskExecutionCommand).resolves({ TaskExecutionArn: EXECUTION, Status, EstimatedFilesToTransfer: 10, FilesTransferred: 3 });
    expect(await isComplete(started(), client)).toEqual({ IsComplete: false });
  });

  test('completes on SUCCESS with the counters as attributes', async () => {
    datasync.on(DescribeTaskExecutionCommand).resolves({
      TaskExecutionArn: EXECUTION, Status: 'SUCCESS', FilesTransferred: 11000, BytesTransferred: 98_000_000, FilesSkipped: 0, FilesVerified: 11000,
      Result: { PrepareStatus: 'SUCCESS', TransferStatus: 'SUCCESS', VerifyStatus: 'SUCCESS' },
    });
    expect(await isComplete(started(), client)).toEqual({
      IsComplete: true,
      Data: { TaskExecutionArn: EXECUTION, FilesTransferred: 11000, BytesTransferred: 98_000_000, FilesSkipped: 0, FilesVerified: 11000 },
    });
    expect(datasync.commandCalls(DescribeTaskExecutionCommand)[0].args[0].input).toEqual({ TaskExecutionArn: EXECUTION });
  });

  test('fails on ERROR with DataSync\'s error code, detail and the failed phase', async () => {
    datasync.on(DescribeTaskExecutionCommand).resolves({
      TaskExecutionArn: EXECUTION, Status: 'ERROR', FilesTransferred: 12,
      Result: {
        PrepareStatus: 'SUCCESS', TransferStatus: 'ERROR', VerifyStatus: 'PENDING',
        ErrorCode: 'OpNotSupp', ErrorDetail: 'Transfer failed: mount target not reachable on 2049',
      },
    });
    await expect(isComplete(started(), client)).rejects.toThrow(
      `DataSync seed: execution ${EXECUTION} failed: OpNotSupp: Transfer failed: mount target not reachable on 2049 (while transferring; 12 files transferred)`);
  });

  test('past the time limit, cancels the execution and fails the deploy, saying why and what to do', async () => {
    datasync.on(DescribeTaskExecutionCommand).resolves({ TaskExecutionArn: EXECUTION, Status: 'TRANSFERRING', EstimatedFilesToTransfer: 2_000_000, FilesTransferred: 1_200_000 });
    datasync.on(CancelTaskExecutionCommand).resolves({});
    await expect(isComplete(started(Date.now() - 1), client)).rejects.toThrow(
      `DataSync seed: execution ${EXECUTION} did not finish within the deploy's time limit of 50 minutes (CloudFormation waits at most an hour for a custom resource), `
      + 'so it was cancelled (1200000 of about 2000000 files transferred;');
    expect(datasync.commandCalls(CancelTaskExecutionCommand).map((c) => c.args[0].input)).toEqual([{ TaskExecutionArn: EXECUTION }]);
  });

  test('an execution that ends right at the limit is not cancelled', async () => {
    datasync.on(DescribeTaskExecutionCommand).resolves({ TaskExecutionArn: EXECUTION, Status: 'SUCCESS' });
    expect(await isComplete(started(Date.now() - 1), client)).toMatchObject({ IsComplete: true });
    expect(datasync.commandCalls(CancelTaskExecutionCommand)).toHaveLength(0);
  });

  test('ends at once, cancelling nothing, when its execution is being cancelled (a newer request superseded it)', async () => {
    datasync.on(DescribeTaskExecutionCommand).resolves({ TaskExecutionArn: EXECUTION, Status: 'CANCELLING', FilesTransferred: 40 });
    await expect(isComplete(started(), client)).rejects.toThrow(`DataSync seed: execution ${EXECUTION} is being cancelled: a newer deploy request`);
    expect(datasync.commandCalls(CancelTaskExecutionCommand)).toHaveLength(0);
  });

  test('Delete is complete at once', async () => {
    expect(await isComplete(event('Delete', { PhysicalResourceId: TASK }), client)).toEqual({ IsComplete: true });
    expect(datasync.calls()).toHaveLength(0);
  });

  test('a request that does not wait (WaitForCompletion false) is complete at once, asking DataSync nothing: the run goes on', async () => {
    const detached = { ...WAITED, WaitForCompletion: 'false' };
    expect(await isComplete({ ...started(), ResourceProperties: detached }, client)).toEqual({ IsComplete: true });
    expect(datasync.calls()).toHaveLength(0);
  });

  test('an Update that only turns waiting off starts nothing and is complete at once: the setting is the request\'s', async () => {
    const detached = { ...WAITED, WaitForCompletion: 'false' };
    const response = await onEvent(event('Update', { PhysicalResourceId: TASK, ResourceProperties: detached, OldResourceProperties: { ...WAITED, WaitForCompletion: 'true' } }), client);
    expect(response).toEqual({ PhysicalResourceId: TASK, Data: {} });
    expect(await isComplete({ ...event('Update', { PhysicalResourceId: TASK, ResourceProperties: detached }), Data: response.Data }, client)).toEqual({ IsComplete: true });
    expect(datasync.commandCalls(StartTaskExecutionCommand)).toHaveLength(0);
  });

  test.each(['no', '', 'FALSE'])('fails, naming the property, when WaitForCompletion is %j: the handler is the trust boundary', async (value) => {
    await expect(onEvent(event('Create', { ResourceProperties: { ...WAITED, WaitForCompletion: value } }), client))
      .rejects.toThrow(`DataSync seed: WaitForCompletion must be 'true' or 'false', got ${JSON.stringify(value)}.`);
    expect(datasync.commandCalls(StartTaskExecutionCommand)).toHaveLength(0);
  });

  test('fails clearly without a deadline to bound the wait', async () => {
    await expect(isComplete(event('Create', { Data: { TaskExecutionArn: EXECUTION } }), client)).rejects.toThrow('no Deadline from onEvent');
  });
});
