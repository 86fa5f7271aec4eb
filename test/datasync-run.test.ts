import { DataSyncClient, DescribeTaskExecutionCommand, StartTaskExecutionCommand } from '@aws-sdk/client-datasync';
import { mockClient } from 'aws-sdk-client-mock';
import { DataSyncRunEvent, isComplete, onEvent } from '../lambda/datasync-run/run';

// moto has no DataSync EFS locations and moves no data, so these tests stub the DataSync client with
// aws-sdk-client-mock. Every response below is shaped after the DataSync API reference
// (StartTaskExecution, DescribeTaskExecution), including the Result fields of a failed execution.
const TASK = 'arn:aws:datasync:us-east-1:123456789012:task/task-0123456789abcdef0';
const EXECUTION = `${TASK}/execution/exec-0123456789abcdef0`;

const client = new DataSyncClient({ region: 'us-east-1' });
const datasync = mockClient(client);
beforeEach(() => datasync.reset());

const event = (RequestType: DataSyncRunEvent['RequestType'], extra: Partial<DataSyncRunEvent> = {}): DataSyncRunEvent =>
  ({ RequestType, ResourceProperties: { TaskArn: TASK, Trigger: 'abc' }, ...extra });

describe('onEvent', () => {
  test.each(['Create', 'Update'] as const)('%s starts one task execution and hands its ARN to isComplete', async (type) => {
    datasync.on(StartTaskExecutionCommand).resolves({ TaskExecutionArn: EXECUTION });
    const response = await onEvent(event(type, { PhysicalResourceId: TASK }), client);
    expect(response).toEqual({ PhysicalResourceId: TASK, Data: { TaskExecutionArn: EXECUTION } });
    expect(datasync.commandCalls(StartTaskExecutionCommand).map((c) => c.args[0].input)).toEqual([{ TaskArn: TASK }]);
  });

  test('Delete starts nothing and deletes nothing', async () => {
    const response = await onEvent(event('Delete', { PhysicalResourceId: TASK }), client);
    expect(response).toEqual({ PhysicalResourceId: TASK });
    expect(datasync.calls()).toHaveLength(0);
  });

  test('fails with the reason when DataSync refuses to start', async () => {
    datasync.on(StartTaskExecutionCommand).rejects(Object.assign(new Error('Task is not available'), { name: 'InvalidRequestException' }));
    await expect(onEvent(event('Create'), client)).rejects.toThrow('Task is not available');
  });
});

describe('isComplete', () => {
  const started = (type: DataSyncRunEvent['RequestType'] = 'Create') => event(type, { PhysicalResourceId: TASK, Data: { TaskExecutionArn: EXECUTION } });

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

  test('Delete is complete at once', async () => {
    expect(await isComplete(event('Delete', { PhysicalResourceId: TASK }), client)).toEqual({ IsComplete: true });
    expect(datasync.calls()).toHaveLength(0);
  });

  test('fails clearly without an execution to follow', async () => {
    await expect(isComplete(event('Create'), client)).rejects.toThrow('no TaskExecutionArn from onEvent');
  });
});
