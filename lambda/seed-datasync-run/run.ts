import { createHash } from 'crypto';
import {
  CancelTaskExecutionCommand, DataSyncClient, DescribeTaskCommand, DescribeTaskExecutionCommand, DescribeTaskExecutionResponse,
  ListTagsForResourceCommand, ListTaskExecutionsCommand, StartTaskExecutionCommand, TagListEntry,
} from '@aws-sdk/client-datasync';
import { isRunComplete, onRunEvent, PolledRun, RunCompleteResponse, RunResponse, RunService } from '../shared/deploy-time-run';

/**
 * A custom resource (Provider framework) that runs a DataSync task at deploy time. A run belongs to
 * the newest request: onEvent cancels the task's executions that an earlier request started for
 * another source or place (a rollback must not queue behind the copy it rolls back), follows one
 * for the same source and place, or starts one, tagged with both; isComplete, when the deploy
 * waits, polls it until SUCCESS or ERROR, or cancels it when the deploy's time limit runs out.
 * Delete cancels what still runs on the task and always succeeds; it never deletes data. The
 * protocol is lambda/shared/deploy-time-run.ts's; this module is what DataSync does for it.
 */

/** ResourceProperties of the custom resource. */
export interface DataSyncRunProperties {
  readonly TaskArn: string;
  /** Changes whenever the user wants a new execution (the source's fingerprint). */
  readonly Trigger?: string;
  /**
   * Where the copy lands (file system, access point, target path). A new access point or path
   * updates the task's EFS location in place (CloudFormation: only its file system and network
   * settings are create-only), so the task's ARN does not say it.
   */
  readonly Target?: string;
  /** Seconds from onEvent's start until a waited run must be over. */
  readonly TimeLimitSeconds?: string;
  /** 'false' when the deploy only starts the run (the seed's waitForCompletion). */
  readonly WaitForCompletion?: string;
}

/** The slice of the Provider framework's event the handler reads. */
export interface DataSyncRunEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly RequestId?: string;
  readonly ResourceProperties: DataSyncRunProperties;
  readonly OldResourceProperties?: DataSyncRunProperties;
  readonly PhysicalResourceId?: string;
  /** Set by onEvent's response, seen by isComplete. */
  readonly Data?: { TaskExecutionArn?: string; Deadline?: number };
}

export type OnEventResponse = RunResponse;
export type IsCompleteResponse = RunCompleteResponse;

/** The tag an execution carries with the source and place it copies (hashed: tag values allow few characters). */
export const TRIGGER_TAG = 'cdk-efs-kit:seed-trigger';
/** The tag an execution carries with the request that started it, so that a retried onEvent finds it. */
export const REQUEST_TAG = 'cdk-efs-kit:seed-request';
/** Statuses of an execution that will still copy (CANCELLING ones will not). */
const GOING = ['QUEUED', 'LAUNCHING', 'PREPARING', 'TRANSFERRING', 'VERIFYING'];
const TASK_ARN = /^arn:[\w-]+:datasync:[\w-]*:\d{12}:task\/task-[0-9a-f]{17}$/;

const hash = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 32);
const runTag = (p: DataSyncRunProperties) => hash(JSON.stringify([p.Trigger ?? '', p.Target ?? '']));

export function onEvent(event: DataSyncRunEvent, client: DataSyncClient): Promise<OnEventResponse> {
  return onRunEvent(dataSyncRuns(client), event);
}

export function isComplete(event: DataSyncRunEvent, client: DataSyncClient): Promise<IsCompleteResponse> {
  return isRunComplete(dataSyncRuns(client), event);
}

/** A DataSync task's executions, as the deploy-time run protocol sees them. */
function dataSyncRuns(client: DataSyncClient): RunService<DataSyncRunProperties> {
  return {
    name: 'DataSync seed',
    ownerProperty: 'TaskArn',
    ownerArn: TASK_ARN,
    runKey: 'TaskExecutionArn',
    unchanged: { message: 'task, source and place unchanged: nothing to run', logKey: 'taskArn' },
    startOrFollow: (taskArn, event) => startOrFollow(client, taskArn, event),
    runsGoing: (taskArn) => executionsGoing(client, taskArn),
    stopForDelete: (arn) => cancelExecution(client, arn),
    deleteWarnings: {
      listFailed: 'could not list the task\'s executions; any still going run to their end',
      stopFailed: (arn) => `could not cancel it: it runs to its end (aws datasync cancel-task-execution --task-execution-arn ${arn})`,
    },
    poll: (arn) => poll(client, arn),
  };
}

/**
 * Cancels the task's executions that an earlier request started for another source or place,
 * follows one for this source and place (or the one this request already started), or starts one.
 */
async function startOrFollow(client: DataSyncClient, taskArn: string, event: DataSyncRunEvent): Promise<string> {
  const follow = (taskExecutionArn: string, why: string) => {
    console.log(JSON.stringify({ message: `${why}: following it, not starting another`, taskArn, taskExecutionArn }));
    return taskExecutionArn;
  };
  const run = runTag(event.ResourceProperties);
  const going = await seedExecutionsGoing(client, taskArn);
  // Executions started by a deploy are tagged; those of the task's schedule or started by hand are
  // not, and are left to run (the new one queues behind them).
  for (const other of going.filter((e) => e.run !== undefined && e.run !== run)) {
    await cancelExecution(client, other.arn);
  }
  const same = going.find((e) => e.run === run);
  if (same) return follow(same.arn, 'an execution for this source and place is still going');
  const retried = event.RequestId === undefined ? undefined : await latestExecutionOf(client, taskArn, hash(event.RequestId));
  if (retried) return follow(retried, 'this request already started an execution');

  const tags = [{ Key: TRIGGER_TAG, Value: run }, ...(event.RequestId === undefined ? [] : [{ Key: REQUEST_TAG, Value: hash(event.RequestId) }])];
  const started = await client.send(new StartTaskExecutionCommand({ TaskArn: taskArn, Tags: tags }));
  if (!started.TaskExecutionArn) throw new Error(`DataSync seed: StartTaskExecution on ${taskArn} returned no TaskExecutionArn.`);
  console.log(JSON.stringify({ message: 'started DataSync task execution', taskArn, taskExecutionArn: started.TaskExecutionArn }));
  return started.TaskExecutionArn;
}

/** The execution now: over on SUCCESS; ERROR and CANCELLING fail the request. */
async function poll(client: DataSyncClient, executionArn: string): Promise<PolledRun> {
  const execution = await client.send(new DescribeTaskExecutionCommand({ TaskExecutionArn: executionArn }));
  console.log(JSON.stringify({ message: 'DataSync task execution', ...progressOf(execution) }));
  switch (execution.Status) {
    case 'SUCCESS':
      return { over: true, data: { TaskExecutionArn: executionArn, ...countersOf(execution) } };
    case 'ERROR':
      throw new Error(`DataSync seed: execution ${executionArn} failed: ${failureOf(execution)}`);
    case 'CANCELLING':
      // Superseded by a newer request (a rollback, another deploy) or a Delete, or cancelled by hand:
      // whoever cancelled it owns the target now, so end here without touching anything.
      throw new Error(`DataSync seed: execution ${executionArn} is being cancelled: a newer deploy request for this seed or its Delete `
        + `cancels the run it replaces, or someone cancelled it. This request's copy is not complete (${execution.FilesTransferred ?? 0} files transferred).`);
    default:
      return {
        over: false,
        stopAtDeadline: async (limit) => {
          await client.send(new CancelTaskExecutionCommand({ TaskExecutionArn: executionArn }));
          throw new Error(`DataSync seed: execution ${executionArn} did not finish within the deploy's time limit of `
            + `${limit} (CloudFormation waits at most an hour for a custom resource), `
            + `so it was cancelled (${execution.FilesTransferred ?? 0} of about ${execution.EstimatedFilesToTransfer ?? '?'} files transferred; `
            + 'they stay, and a re-run copies only what is missing). For transfers that take longer, set waitForCompletion: false on the seed: '
            + 'the deploy then starts the execution and returns, and the seed\'s alarm reports a failure.');
        },
      };
  }
}

/** The task's executions that will still copy (DataSync runs one at a time; the others queue). */
async function executionsGoing(client: DataSyncClient, taskArn: string): Promise<string[]> {
  const going: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await client.send(new ListTaskExecutionsCommand({ TaskArn: taskArn, NextToken: nextToken }));
    going.push(...(page.TaskExecutions ?? []).filter((e) => GOING.includes(e.Status ?? '') && e.TaskExecutionArn).map((e) => e.TaskExecutionArn!));
    nextToken = page.NextToken;
  } while (nextToken);
  return going;
}

/** The executions still going, each with the source-and-place tag a deploy gave it (none for the schedule's). */
async function seedExecutionsGoing(client: DataSyncClient, taskArn: string): Promise<Array<{ arn: string; run?: string }>> {
  const going = await executionsGoing(client, taskArn);
  return Promise.all(going.map(async (arn) => ({ arn, run: tagOf(await tagsOf(client, arn), TRIGGER_TAG) })));
}

/**
 * The task's latest execution (DescribeTask's CurrentTaskExecutionArn), if `request` started it,
 * whatever its status: a retried onEvent whose execution already ended follows it rather than run
 * the copy again.
 */
async function latestExecutionOf(client: DataSyncClient, taskArn: string, request: string): Promise<string | undefined> {
  const latest = (await client.send(new DescribeTaskCommand({ TaskArn: taskArn }))).CurrentTaskExecutionArn;
  if (!latest) return undefined;
  return tagOf(await tagsOf(client, latest), REQUEST_TAG) === request ? latest : undefined;
}

async function tagsOf(client: DataSyncClient, arn: string): Promise<TagListEntry[]> {
  return (await client.send(new ListTagsForResourceCommand({ ResourceArn: arn }))).Tags ?? [];
}

const tagOf = (tags: TagListEntry[], key: string) => tags.find((t) => t.Key === key)?.Value;

/** Cancels an execution this request supersedes; one that has ended meanwhile cannot be, and needs nothing. */
async function cancelExecution(client: DataSyncClient, arn: string): Promise<void> {
  try {
    await client.send(new CancelTaskExecutionCommand({ TaskExecutionArn: arn }));
    console.log(JSON.stringify({ message: 'cancelled a DataSync task execution', taskExecutionArn: arn }));
  } catch (error) {
    // InvalidRequestException: "cannot be cancelled in its current status" (it ended between the listing and now).
    if ((error as Error).name !== 'InvalidRequestException') throw error;
    const now = await client.send(new DescribeTaskExecutionCommand({ TaskExecutionArn: arn }));
    if (GOING.includes(now.Status ?? '')) throw error;
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
