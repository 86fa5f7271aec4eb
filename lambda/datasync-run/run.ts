import { DataSyncClient, DescribeTaskExecutionCommand, DescribeTaskExecutionResponse, StartTaskExecutionCommand } from '@aws-sdk/client-datasync';

/**
 * A custom resource (Provider framework) that runs a DataSync task at deploy time: onEvent starts an
 * execution on Create and Update, isComplete polls it until SUCCESS or ERROR, so resources that
 * depend on the seed start only after the data is on the file system. Delete leaves the data.
 */

/** ResourceProperties of the custom resource. */
export interface DataSyncRunProperties {
  readonly TaskArn: string;
  /** Changes whenever the user wants a new execution (source, options, or an explicit trigger). */
  readonly Trigger?: string;
}

/** The slice of the Provider framework's event the handler reads. */
export interface DataSyncRunEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly ResourceProperties: DataSyncRunProperties;
  readonly PhysicalResourceId?: string;
  /** Set by onEvent's response, seen by isComplete. */
  readonly Data?: { TaskExecutionArn?: string };
}

export interface OnEventResponse {
  readonly PhysicalResourceId: string;
  readonly Data?: Record<string, string | number>;
}

export interface IsCompleteResponse {
  readonly IsComplete: boolean;
  readonly Data?: Record<string, string | number>;
}

export async function onEvent(event: DataSyncRunEvent, client: DataSyncClient): Promise<OnEventResponse> {
  const taskArn = event.ResourceProperties.TaskArn;
  if (event.RequestType === 'Delete') {
    // The files DataSync wrote belong to the file system's users now: never delete them here.
    return { PhysicalResourceId: event.PhysicalResourceId ?? taskArn };
  }
  if (!taskArn) throw new Error('DataSync seed: ResourceProperties.TaskArn is missing.');
  const started = await client.send(new StartTaskExecutionCommand({ TaskArn: taskArn }));
  if (!started.TaskExecutionArn) throw new Error(`DataSync seed: StartTaskExecution on ${taskArn} returned no TaskExecutionArn.`);
  console.log(JSON.stringify({ message: 'started DataSync task execution', taskArn, taskExecutionArn: started.TaskExecutionArn }));
  return { PhysicalResourceId: taskArn, Data: { TaskExecutionArn: started.TaskExecutionArn } };
}

export async function isComplete(event: DataSyncRunEvent, client: DataSyncClient): Promise<IsCompleteResponse> {
  if (event.RequestType === 'Delete') return { IsComplete: true };
  const executionArn = event.Data?.TaskExecutionArn;
  if (!executionArn) throw new Error('DataSync seed: no TaskExecutionArn from onEvent; cannot follow the execution.');

  const execution = await client.send(new DescribeTaskExecutionCommand({ TaskExecutionArn: executionArn }));
  console.log(JSON.stringify({ message: 'DataSync task execution', ...progressOf(execution) }));
  switch (execution.Status) {
    case 'SUCCESS':
      return { IsComplete: true, Data: { TaskExecutionArn: executionArn, ...countersOf(execution) } };
    case 'ERROR':
      throw new Error(`DataSync seed: execution ${executionArn} failed: ${failureOf(execution)}`);
    default:
      return { IsComplete: false };
  }
}

function countersOf(execution: DescribeTaskExecutionResponse): Record<string, number> {
  return {
    FilesTransferred: execution.FilesTransferred ?? 0,
    BytesTransferred: execution.BytesTransferred ?? 0,
    FilesSkipped: execution.FilesSkipped ?? 0,
    FilesVerified: execution.FilesVerified ?? 0,
  };
}

function progressOf(execution: DescribeTaskExecutionResponse): Record<string, unknown> {
  return {
    taskExecutionArn: execution.TaskExecutionArn,
    status: execution.Status,
    estimatedFilesToTransfer: execution.EstimatedFilesToTransfer,
    estimatedBytesToTransfer: execution.EstimatedBytesToTransfer,
    ...countersOf(execution),
  };
}

/** The most specific reason DataSync gives, with the phase that failed. */
function failureOf(execution: DescribeTaskExecutionResponse): string {
  const r = execution.Result ?? {};
  const phase = r.PrepareStatus === 'ERROR' ? 'preparing' : r.TransferStatus === 'ERROR' ? 'transferring' : r.VerifyStatus === 'ERROR' ? 'verifying' : 'running';
  const code = r.ErrorCode ? `${r.ErrorCode}: ` : '';
  return `${code}${r.ErrorDetail ?? 'no error detail given'} (while ${phase}; ${execution.FilesTransferred ?? 0} files transferred)`;
}
