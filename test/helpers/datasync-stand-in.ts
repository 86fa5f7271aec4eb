import {
  CancelTaskExecutionCommand, DataSyncClient, DescribeTaskCommand, DescribeTaskExecutionCommand, InvalidRequestException,
  ListTagsForResourceCommand, ListTaskExecutionsCommand, StartTaskExecutionCommand, TagListEntry, TaskExecutionResultDetail, TaskExecutionStatus,
} from '@aws-sdk/client-datasync';
import { mockClient } from 'aws-sdk-client-mock';

/**
 * DataSync's task executions, in memory, for tests. moto's DataSync cannot stand in here: it has no
 * ListTaskExecutions and no ListTagsForResource (it answers them with an HTML 404), drops the Tags
 * of StartTaskExecution, refuses a second StartTaskExecution while one runs where DataSync queues it
 * (TaskQueueing ENABLED, as the seed's task sets), and reports a status the API does not have
 * (INITIALIZING). So this follows the DataSync API reference instead:
 * - StartTaskExecution starts an execution (LAUNCHING), or queues it (QUEUED) while another of the
 *   task is going, and keeps its Tags; DescribeTask's CurrentTaskExecutionArn is the latest started.
 * - ListTaskExecutions pages ({ TaskExecutionArn, Status }, NextToken); ListTagsForResource answers
 *   an execution's tags.
 * - CancelTaskExecution: a running execution goes CANCELLING, then ERROR; a queued one ERROR at once;
 *   one that has ended is an InvalidRequestException ("cannot be cancelled in its current status",
 *   the message moto gives too).
 * - A failed execution ends in ERROR with Result's phase statuses, ErrorCode and ErrorDetail.
 * Time is the test's: advance() moves each task's running execution one status on (LAUNCHING,
 * PREPARING, TRANSFERRING, VERIFYING, SUCCESS; CANCELLING to ERROR), then starts the next queued one.
 */

interface Execution {
  readonly arn: string;
  readonly task: string;
  status: TaskExecutionStatus;
  readonly tags: TagListEntry[];
  result?: TaskExecutionResultDetail;
}

const ORDER: TaskExecutionStatus[] = ['LAUNCHING', 'PREPARING', 'TRANSFERRING', 'VERIFYING', 'SUCCESS'];
const ENDED: TaskExecutionStatus[] = ['SUCCESS', 'ERROR'];

export class DataSyncStandIn {
  /** Every request, with the label of the client that sent it. */
  public readonly requests: Array<{ client: string; command: string; input: any; output?: any }> = [];
  private readonly tasks = new Map<string, string | undefined>(); // task -> latest execution
  private readonly executions: Execution[] = [];
  private count = 0;
  /** Runs before the next CancelTaskExecution is answered (to end the execution in between, say). */
  private beforeNextCancel?: (arn: string) => void;

  constructor(private readonly pageSize = 2) {}

  /** A task, as CloudFormation's AWS::DataSync::Task creates it. */
  createTask(): string {
    const arn = `arn:aws:datasync:us-east-1:123456789012:task/task-${this.hex()}`;
    this.tasks.set(arn, undefined);
    return arn;
  }

  /** A DataSync client, labelled `label` in `requests`, whose calls this stand-in answers. */
  client(label: string): DataSyncClient {
    const client = new DataSyncClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    const mock = mockClient(client);
    const answer = <I, O>(command: string, respond: (input: I) => O) => (input: I) => {
      const request: { client: string; command: string; input: any; output?: any } = { client: label, command, input };
      this.requests.push(request);
      request.output = respond(input);
      return request.output;
    };
    mock.on(StartTaskExecutionCommand).callsFake(answer('StartTaskExecution', (i: any) => ({ TaskExecutionArn: this.start(i.TaskArn, i.Tags ?? []) })));
    mock.on(DescribeTaskCommand).callsFake(answer('DescribeTask', (i: any) => ({
      TaskArn: this.task(i.TaskArn), Status: this.going(i.TaskArn).length ? 'RUNNING' : 'AVAILABLE', CurrentTaskExecutionArn: this.tasks.get(i.TaskArn),
    })));
    mock.on(ListTaskExecutionsCommand).callsFake(answer('ListTaskExecutions', (i: any) => this.list(i.TaskArn, i.NextToken)));
    mock.on(DescribeTaskExecutionCommand).callsFake(answer('DescribeTaskExecution', (i: any) => {
      const e = this.execution(i.TaskExecutionArn);
      return { TaskExecutionArn: e.arn, Status: e.status, FilesTransferred: 0, Result: e.result };
    }));
    mock.on(ListTagsForResourceCommand).callsFake(answer('ListTagsForResource', (i: any) => ({ ResourceArn: i.ResourceArn, Tags: this.execution(i.ResourceArn).tags })));
    mock.on(CancelTaskExecutionCommand).callsFake(answer('CancelTaskExecution', (i: any) => this.cancel(i.TaskExecutionArn)));
    return client;
  }

  /** An execution started outside the seed's requests (the task's schedule, someone at the console): untagged. */
  startUntagged(task: string): string {
    return this.start(task, []);
  }

  /** One step of time: each task's running execution moves on one status; a task with none starts its next queued one. */
  advance(): void {
    for (const task of this.tasks.keys()) {
      const running = this.executions.find((e) => e.task === task && !ENDED.includes(e.status) && e.status !== 'QUEUED');
      if (running) running.status = running.status === 'CANCELLING' ? 'ERROR' : ORDER[ORDER.indexOf(running.status) + 1];
      else {
        const next = this.executions.find((e) => e.task === task && e.status === 'QUEUED');
        if (next) next.status = 'LAUNCHING';
      }
    }
  }

  /** Advances until every execution has ended. */
  settle(): void {
    for (let i = 0; i < 1000 && this.executions.some((e) => !ENDED.includes(e.status)); i++) this.advance();
  }

  /** Ends a running execution in ERROR, as a failed transfer does. */
  fail(arn: string, detail: string): void {
    const e = this.execution(arn);
    e.status = 'ERROR';
    e.result = { PrepareStatus: 'SUCCESS', TransferStatus: 'ERROR', ErrorCode: 'OpNotSupp', ErrorDetail: detail };
  }

  /** Lets `what` happen between the next CancelTaskExecution's arrival and its answer. */
  onNextCancel(what: (arn: string) => void): void {
    this.beforeNextCancel = what;
  }

  status(arn: string): TaskExecutionStatus {
    return this.execution(arn).status;
  }

  /** The task's executions, oldest first. */
  executionsOf(task: string): Array<{ arn: string; status: TaskExecutionStatus; tags: TagListEntry[] }> {
    return this.executions.filter((e) => e.task === task).map(({ arn, status, tags }) => ({ arn, status, tags }));
  }

  private start(task: string, tags: TagListEntry[]): string {
    this.task(task);
    const arn = `${task}/execution/exec-${this.hex()}`;
    this.executions.push({ arn, task, status: this.going(task).length ? 'QUEUED' : 'LAUNCHING', tags });
    this.tasks.set(task, arn);
    return arn;
  }

  private cancel(arn: string): object {
    const e = this.execution(arn);
    const before = this.beforeNextCancel;
    this.beforeNextCancel = undefined;
    before?.(arn);
    if (ENDED.includes(e.status) || e.status === 'CANCELLING') {
      throw new InvalidRequestException({ message: `Sync task cannot be cancelled in its current status: ${e.status}`, $metadata: {} });
    }
    e.status = e.status === 'QUEUED' ? 'ERROR' : 'CANCELLING';
    return {};
  }

  private list(task: string, nextToken?: string) {
    const all = this.executions.filter((e) => e.task === this.task(task));
    const from = nextToken ? Number(nextToken) : 0;
    const page = all.slice(from, from + this.pageSize).map((e) => ({ TaskExecutionArn: e.arn, Status: e.status }));
    return { TaskExecutions: page, NextToken: from + this.pageSize < all.length ? String(from + this.pageSize) : undefined };
  }

  private going(task: string): Execution[] {
    return this.executions.filter((e) => e.task === task && !ENDED.includes(e.status));
  }

  private task(arn: string): string {
    if (!this.tasks.has(arn)) throw new InvalidRequestException({ message: `Task ${arn} is not found.`, $metadata: {} });
    return arn;
  }

  private execution(arn: string): Execution {
    const e = this.executions.find((x) => x.arn === arn);
    if (!e) throw new InvalidRequestException({ message: `Sync task ${arn} is not found.`, $metadata: {} });
    return e;
  }

  private hex(): string {
    return (++this.count).toString(16).padStart(17, '0');
  }
}
