import { createHash } from 'crypto';
import {
  CancelTaskExecutionCommand, DataSyncClient, DescribeTaskCommand, DescribeTaskExecutionCommand, DescribeTaskExecutionResponse,
  ListTagsForResourceCommand, StartTaskExecutionCommand,
} from '@aws-sdk/client-datasync';
import { describeSeconds, timeLimitSeconds } from '../shared/deploy-time-limit';

/**
 * A custom resource (Provider framework) that runs a DataSync task at deploy time: onEvent starts an
 * execution on Create, and on Update when the task or the source changed; isComplete, when the
 * deploy waits, polls it until SUCCESS or ERROR, or cancels it when the deploy's time limit runs
 * out. An execution started for the same source and still going is followed, not started again.
 * Delete leaves the data.
 */

/** ResourceProperties of the custom resource. */
export interface DataSyncRunProperties {
  readonly TaskArn: string;
  /** Changes whenever the user wants a new execution (the source's fingerprint). */
  readonly Trigger?: string;
  /** Set when the deploy waits: seconds from onEvent's start until the run must be over. */
  readonly TimeLimitSeconds?: string;
}

/** The slice of the Provider framework's event the handler reads. */
export interface DataSyncRunEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly ResourceProperties: DataSyncRunProperties;
  readonly OldResourceProperties?: DataSyncRunProperties;
  readonly PhysicalResourceId?: string;
  /** Set by onEvent's response, seen by isComplete. */
  readonly Data?: { TaskExecutionArn?: string; Deadline?: number };
}

export interface OnEventResponse {
  readonly PhysicalResourceId: string;
  readonly Data?: Record<string, string | number>;
}

export interface IsCompleteResponse {
  readonly IsComplete: boolean;
  readonly Data?: Record<string, string | number>;
}

/** The tag an execution carries with the trigger it was started for (hashed: tag values allow few characters). */
export const TRIGGER_TAG = 'cdk-efs-kit:seed-trigger';
const RUNNING = ['QUEUED', 'LAUNCHING', 'PREPARING', 'TRANSFERRING', 'VERIFYING'];

export async function onEvent(event: DataSyncRunEvent, client: DataSyncClient): Promise<OnEventResponse> {
  const startedAt = Date.now();
  const taskArn = event.ResourceProperties.TaskArn;
  if (event.RequestType === 'Delete') {
    // The files DataSync wrote belong to the file system's users now: never delete them here.
    return { PhysicalResourceId: event.PhysicalResourceId ?? taskArn };
  }
  if (!taskArn) throw new Error('DataSync seed: ResourceProperties.TaskArn is missing.');
  const old = event.OldResourceProperties;
  if (event.RequestType === 'Update' && old?.TaskArn === taskArn && old?.Trigger === event.ResourceProperties.Trigger) {
    console.log(JSON.stringify({ message: 'task and source unchanged: nothing to run', taskArn }));
    return { PhysicalResourceId: taskArn, Data: {} };
  }
  const limit = timeLimitSeconds(event.ResourceProperties);
  const deadline: Record<string, number> = limit === undefined ? {} : { Deadline: startedAt + limit * 1000 };
  const trigger = triggerTag(event.ResourceProperties.Trigger);
  const running = await runningExecutionFor(client, taskArn, trigger);
  if (running) {
    console.log(JSON.stringify({ message: 'an execution for this source is still going: following it, not starting another', taskArn, taskExecutionArn: running }));
    return { PhysicalResourceId: taskArn, Data: { TaskExecutionArn: running, ...deadline } };
  }
  const started = await client.send(new StartTaskExecutionCommand({ TaskArn: taskArn, Tags: [{ Key: TRIGGER_TAG, Value: trigger }] }));
  if (!started.TaskExecutionArn) throw new Error(`DataSync seed: StartTaskExecution on ${taskArn} returned no TaskExecutionArn.`);
  console.log(JSON.stringify({ message: 'started DataSync task execution', taskArn, taskExecutionArn: started.TaskExecutionArn }));
  return { PhysicalResourceId: taskArn, Data: { TaskExecutionArn: started.TaskExecutionArn, ...deadline } };
}

export async function isComplete(event: DataSyncRunEvent, client: DataSyncClient): Promise<IsCompleteResponse> {
  if (event.RequestType === 'Delete') return { IsComplete: true };
  const executionArn = event.Data?.TaskExecutionArn;
  if (!executionArn) return { IsComplete: true }; // onEvent had nothing to run
  const deadline = event.Data?.Deadline;
  if (typeof deadline !== 'number') throw new Error('DataSync seed: no Deadline from onEvent (is TimeLimitSeconds set?); cannot bound the wait.');

  const execution = await client.send(new DescribeTaskExecutionCommand({ TaskExecutionArn: executionArn }));
  console.log(JSON.stringify({ message: 'DataSync task execution', ...progressOf(execution) }));
  switch (execution.Status) {
    case 'SUCCESS':
      return { IsComplete: true, Data: { TaskExecutionArn: executionArn, ...countersOf(execution) } };
    case 'ERROR':
      throw new Error(`DataSync seed: execution ${executionArn} failed: ${failureOf(execution)}`);
    default:
      if (Date.now() < deadline) return { IsComplete: false };
      // Past the limit the deploy fails: stop the copy too, rather than leave it running unobserved.
      await client.send(new CancelTaskExecutionCommand({ TaskExecutionArn: executionArn }));
      throw new Error(`DataSync seed: execution ${executionArn} did not finish within the deploy's time limit of `
        + `${describeSeconds(timeLimitSeconds(event.ResourceProperties)!)} (CloudFormation waits at most an hour for a custom resource), `
        + `so it was cancelled (${execution.FilesTransferred ?? 0} of about ${execution.EstimatedFilesToTransfer ?? '?'} files transferred; `
        + 'they stay, and a re-run copies only what is missing). For transfers that take longer, set waitForCompletion: false on the seed: '
        + 'the deploy then starts the execution and returns, and the seed\'s alarm reports a failure.');
  }
}

/** The trigger as a tag value: a hash, since tag values allow only some characters. */
function triggerTag(trigger: string | undefined): string {
  return createHash('sha256').update(trigger ?? '').digest('hex').slice(0, 32);
}

/**
 * The task's latest execution, if it is still going and was started for `trigger`. DescribeTask
 * names only the latest one; an older one still queued behind it is not found, and then the copy
 * runs once more, which with TransferMode CHANGED rewrites nothing.
 */
async function runningExecutionFor(client: DataSyncClient, taskArn: string, trigger: string): Promise<string | undefined> {
  const task = await client.send(new DescribeTaskCommand({ TaskArn: taskArn }));
  const latest = task.CurrentTaskExecutionArn;
  if (!latest) return undefined;
  const execution = await client.send(new DescribeTaskExecutionCommand({ TaskExecutionArn: latest }));
  if (!RUNNING.includes(execution.Status ?? '')) return undefined;
  const tags = await client.send(new ListTagsForResourceCommand({ ResourceArn: latest }));
  return tags.Tags?.some((t) => t.Key === TRIGGER_TAG && t.Value === trigger) ? latest : undefined;
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
