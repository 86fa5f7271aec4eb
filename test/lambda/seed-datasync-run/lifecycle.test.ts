import { randomUUID } from 'crypto';
import { DataSyncRunEvent, isComplete, onEvent, REQUEST_TAG, TRIGGER_TAG } from '../../../lambda/seed-datasync-run/run';
import { cfnLintErrors, nagErrors } from '../../helpers/checks';
import { DataSyncStandIn } from '../../helpers/datasync-stand-in';
import { decide, Request, statementsOf } from '../../helpers/iam-policy';
import { CfnRequest, CREATE_FAILED_PHYSICAL_ID_MARKER, ProviderFramework } from '../../helpers/provider-framework';
import { resolvedProperties, SeedRunVariant, synthSeedRun } from '../../helpers/seed-run-template';

// The DataSync seed's run resource under CloudFormation: event sequences as CloudFormation sends
// them, through aws-cdk-lib's own Provider framework code (test/helpers/provider-framework.ts), with
// ResourceProperties from FileSystemSeed's synthesized template. DataSync itself is a stand-in shaped
// from the API reference (test/helpers/datasync-stand-in.ts says why moto's DataSync cannot serve):
// executions move on only when a test advances time, so "still running" is whatever has not been
// advanced.
const FILE_SYSTEM = 'fs-0123456789abcdef0';
let dataSync: DataSyncStandIn;

beforeAll(() => {
  jest.spyOn(console, 'log').mockImplementation(() => undefined);
});
beforeEach(() => {
  dataSync = new DataSyncStandIn();
});

/** A seed as deployed: its task, and the framework in front of its handlers. */
function deployedSeed(waitForCompletion: boolean) {
  const task = dataSync.createTask();
  const onEventClient = dataSync.client('onEvent');
  const isCompleteClient = dataSync.client('isComplete');
  const framework = new ProviderFramework({
    onEvent: (event) => onEvent(event, onEventClient),
    // Always there: whether a request waits is its own (WaitForCompletion), answered by isComplete.
    isComplete: (event) => isComplete(event, isCompleteClient),
  });
  return {
    task,
    framework,
    /** The run resource's properties for a seed of `variant`, from its synthesized template (`taskArn`: the task CloudFormation made). */
    properties: (variant: Partial<SeedRunVariant> = {}, fileSystem = FILE_SYSTEM, taskArn = task) => resolvedProperties(
      synthSeedRun({ engine: 'dataSync', waitForCompletion, ...variant }),
      { 'AWS::DataSync::Task': taskArn, 'AWS::EFS::FileSystem': fileSystem },
    ),
    executions: (taskArn = task) => dataSync.executionsOf(taskArn),
    statuses: (taskArn = task) => dataSync.executionsOf(taskArn).map((e) => e.status),
  };
}
type Seed = ReturnType<typeof deployedSeed>;

const create = (ResourceProperties: Record<string, any>): CfnRequest => ({ RequestType: 'Create', RequestId: randomUUID(), ResourceProperties });
const update = (physicalId: string, ResourceProperties: Record<string, any>, OldResourceProperties: Record<string, any>): CfnRequest =>
  ({ RequestType: 'Update', RequestId: randomUUID(), ResourceProperties, OldResourceProperties, PhysicalResourceId: physicalId });
const remove = (PhysicalResourceId: string, ResourceProperties: Record<string, any>): CfnRequest =>
  ({ RequestType: 'Delete', RequestId: randomUUID(), ResourceProperties, PhysicalResourceId });
/** The waiter's interval: DataSync's time moves on one step. */
const aWhile = () => dataSync.advance();
const runTagOf = (e: { tags: Array<{ Key?: string; Value?: string }> }) => e.tags.find((t) => t.Key === TRIGGER_TAG)?.Value;

describe('finding 1: the place is part of the run\'s identity', () => {
  test.each([
    ['another access point', { accessPoint: 'Admin' }],
    ['another target path', { targetPath: '/www/next' }],
  ])('%s updates the task\'s location in place (same task ARN), and still starts a new run, cancelling the one into the old place', async (_, moved) => {
    const seed = deployedSeed(false);
    const before = seed.properties();
    const after = seed.properties(moved);
    // CloudFormation updates an AWS::DataSync::LocationEFS's AccessPointArn and Subdirectory in place
    // (its schema makes only EfsFilesystemArn and Ec2Config create-only): the same task, the same ARN.
    const locations = (v: Partial<SeedRunVariant>) => synthSeedRun({ engine: 'dataSync', waitForCompletion: false, ...v }).template.findResources('AWS::DataSync::LocationEFS');
    const [[id, old], [movedId, changed]] = [Object.entries<any>(locations({}))[0], Object.entries<any>(locations(moved))[0]];
    expect(movedId).toBe(id);
    const differs = Object.keys(old.Properties).filter((k) => JSON.stringify(old.Properties[k]) !== JSON.stringify(changed.Properties[k]));
    expect(differs.length).toBeGreaterThan(0);
    expect(['AccessPointArn', 'Subdirectory']).toEqual(expect.arrayContaining(differs));
    expect([after.TaskArn, after.Trigger]).toEqual([before.TaskArn, before.Trigger]);
    expect(after.Target).not.toEqual(before.Target);

    expect(await seed.framework.deliver(create(before))).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: seed.task });
    expect(await seed.framework.deliver(update(seed.task, after, before))).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: seed.task });
    const [old2, now] = seed.executions();
    // DataSync runs one execution of a task at a time: the new one queues behind the cancelling one.
    expect([old2.status, now.status]).toEqual(['CANCELLING', 'QUEUED']);
    expect(runTagOf(now)).not.toEqual(runTagOf(old2));
    dataSync.advance(); // the cancel ends the old one
    dataSync.advance(); // the queued one starts
    expect(seed.statuses()).toEqual(['ERROR', 'LAUNCHING']);
  });

  test('a replaced file system replaces the task: the Update runs the new task, and the old id\'s Delete cancels the old task\'s run', async () => {
    const seed = deployedSeed(false);
    const before = seed.properties();
    const newTask = dataSync.createTask();
    const after = seed.properties({}, 'fs-0fedcba9876543210', newTask);
    expect(after.Target).not.toEqual(before.Target);
    await seed.framework.deliver(create(before));
    expect(await seed.framework.deliver(update(seed.task, after, before))).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: newTask });
    expect(seed.statuses(newTask)).toEqual(['LAUNCHING']);
    // UPDATE_COMPLETE_CLEANUP_IN_PROGRESS: CloudFormation deletes the old physical id, with the old properties.
    expect(await seed.framework.deliver(remove(seed.task, before))).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: seed.task });
    expect(seed.statuses()).toEqual(['CANCELLING']);
    expect(seed.statuses(newTask)).toEqual(['LAUNCHING']);
  });
});

test('a replaced task, rolled back: the rollback Update goes back to the old task, following its run, and the new id\'s Delete cancels the new task\'s run', async () => {
  const seed = deployedSeed(false);
  const before = seed.properties();
  const newTask = dataSync.createTask();
  const after = seed.properties({}, 'fs-0fedcba9876543210', newTask);
  const created = await seed.framework.deliver(create(before));
  await seed.framework.deliver(update(seed.task, after, before));
  // Another resource fails: the rollback Update carries the old properties to the new physical id.
  const rollback = await seed.framework.deliver(update(newTask, before, after));
  expect(rollback).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: seed.task, Data: { TaskExecutionArn: created.Data!.TaskExecutionArn } });
  expect(await seed.framework.deliver(remove(newTask, after))).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: newTask });
  expect([seed.statuses(), seed.statuses(newTask)]).toEqual([['LAUNCHING'], ['CANCELLING']]);
});

/** A forward Update to another source whose deploy then fails elsewhere: CloudFormation rolls the seed back while the copy runs. */
async function rollBackDuringRun(seed: Seed) {
  const v1 = seed.properties({ version: 'v1' });
  const v2 = seed.properties({ version: 'v2' });
  expect(await seed.framework.deliver(create(v1), aWhile)).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: seed.task });
  dataSync.settle();
  const forward = await seed.framework.send(update(seed.task, v2, v1));
  // Waited, it is still copying; not waited, the waiter's first poll answers at once.
  if (v2.WaitForCompletion === 'true') expect(await forward.waiter!.poll()).toBeUndefined();
  else expect(await forward.waiter!.poll()).toMatchObject({ Status: 'SUCCESS' });
  dataSync.advance();
  // Another resource fails: CloudFormation stops waiting for this one and sends the rollback Update.
  const rollback = await seed.framework.send(update(seed.task, v1, v2));
  return { forward, rollback };
}

describe('rollback during a running execution: cancels it, runs the old source again, succeeds', () => {
  test.each([[true], [false]])('waitForCompletion %s', async (wait) => {
    const seed = deployedSeed(wait);
    const { rollback } = await rollBackDuringRun(seed);
    const answer = rollback.response ?? await rollback.waiter!.answer(50, aWhile);
    expect(answer).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: seed.task });
    dataSync.settle();
    const [first, forward, restored] = seed.executions();
    expect([first.status, forward.status, restored.status]).toEqual(['SUCCESS', 'ERROR', 'SUCCESS']);
    expect(runTagOf(restored)).toBe(runTagOf(first));
  });

  test('the superseded request\'s waiter ends at its next poll, without cancelling anything or polling on', async () => {
    const seed = deployedSeed(true);
    const { forward, rollback } = await rollBackDuringRun(seed);
    const before = dataSync.requests.length;
    const answer = await forward.waiter!.poll();
    expect(answer).toMatchObject({ Status: 'FAILED' });
    expect(answer!.Reason).toContain('is being cancelled: a newer deploy request for this seed or its Delete cancels the run it replaces');
    expect(dataSync.requests.slice(before).map((r) => r.command)).toEqual(['DescribeTaskExecution']);
    expect(await rollback.waiter!.answer(50, aWhile)).toMatchObject({ Status: 'SUCCESS' });
  });

  test('after the cancel has ended the execution (ERROR), the superseded waiter ends too', async () => {
    const seed = deployedSeed(true);
    const { forward } = await rollBackDuringRun(seed);
    dataSync.advance();
    const answer = await forward.waiter!.poll();
    expect(answer).toMatchObject({ Status: 'FAILED' });
    expect(answer!.Reason).toContain('failed');
  });
});

describe('Delete', () => {
  test('waitForCompletion false: a stack delete while the execution runs cancels it (and the schedule\'s), and succeeds', async () => {
    const seed = deployedSeed(false);
    const v1 = seed.properties();
    await seed.framework.deliver(create(v1));
    dataSync.startUntagged(seed.task);
    expect(seed.statuses()).toEqual(['LAUNCHING', 'QUEUED']);
    expect(await seed.framework.deliver(remove(seed.task, v1))).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: seed.task });
    // The task goes away with the resource: nothing may run on it.
    expect(seed.statuses()).toEqual(['CANCELLING', 'ERROR']);
  });

  test('waitForCompletion true: a rollback Delete while the Create still waits cancels the run; the abandoned waiter then ends', async () => {
    const seed = deployedSeed(true);
    const v1 = seed.properties();
    const { waiter } = await seed.framework.send(create(v1));
    expect(await waiter!.poll()).toBeUndefined();
    expect(await seed.framework.deliver(remove(seed.task, v1))).toMatchObject({ Status: 'SUCCESS' });
    expect(seed.statuses()).toEqual(['CANCELLING']);
    expect(await waiter!.poll()).toMatchObject({ Status: 'FAILED' });
  });

  test('after a Create that failed in onEvent, the framework answers the Delete itself: nothing ran', async () => {
    const seed = deployedSeed(true);
    const unknown = seed.properties({}, FILE_SYSTEM, 'arn:aws:datasync:us-east-1:123456789012:task/task-0fffffffffffffff0');
    expect(await seed.framework.deliver(create(unknown))).toMatchObject({ Status: 'FAILED', PhysicalResourceId: CREATE_FAILED_PHYSICAL_ID_MARKER });
    const calls = seed.framework.invocations.onEvent;
    expect(await seed.framework.deliver(remove(CREATE_FAILED_PHYSICAL_ID_MARKER, unknown))).toMatchObject({ Status: 'SUCCESS' });
    expect(seed.framework.invocations.onEvent).toBe(calls);
  });

  test('after a Create that failed in isComplete (the execution failed), the Delete reaches the handler and succeeds', async () => {
    const seed = deployedSeed(true);
    const v1 = seed.properties();
    const { waiter } = await seed.framework.send(create(v1));
    dataSync.fail(seed.executions()[0].arn, 'Transfer failed: mount target not reachable on 2049');
    const failed = await waiter!.answer();
    expect(failed).toMatchObject({ Status: 'FAILED', PhysicalResourceId: seed.task });
    expect(failed.Reason).toContain('OpNotSupp: Transfer failed: mount target not reachable on 2049 (while transferring');
    const calls = seed.framework.invocations.onEvent;
    expect(await seed.framework.deliver(remove(seed.task, v1))).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: seed.task });
    expect(seed.framework.invocations.onEvent).toBe(calls + 1);
  });

  test.each([
    ['a TimeLimitSeconds it cannot parse', (p: any) => ({ ...p, TimeLimitSeconds: 'soon' })],
    ['no TaskArn', ({ TaskArn, ...p }: any) => p],
    ['no properties but the service token', (p: any) => ({ ServiceToken: p.ServiceToken })],
  ])('never fails on properties it does not need: %s', async (_, mangle) => {
    const seed = deployedSeed(true);
    const v1 = seed.properties();
    await seed.framework.send(create(v1));
    expect(await seed.framework.deliver(remove(seed.task, mangle(v1)))).toMatchObject({ Status: 'SUCCESS' });
    expect(seed.statuses()).toEqual(['CANCELLING']);
  });

  test('succeeds when the task is already gone', async () => {
    const seed = deployedSeed(false);
    const gone = 'arn:aws:datasync:us-east-1:123456789012:task/task-0eeeeeeeeeeeeeee0';
    expect(await seed.framework.deliver(remove(gone, seed.properties({}, FILE_SYSTEM, gone)))).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: gone });
  });
});

describe('retries: the same request delivered again starts no second execution', () => {
  test('while its execution runs', async () => {
    const seed = deployedSeed(false);
    const request = create(seed.properties());
    const first = await seed.framework.deliver(request);
    const again = await seed.framework.deliver(request);
    expect(again).toMatchObject({ Status: 'SUCCESS', Data: { TaskExecutionArn: first.Data!.TaskExecutionArn } });
    expect(seed.statuses()).toEqual(['LAUNCHING']);
  });

  test('after its execution ended', async () => {
    const seed = deployedSeed(true);
    const request = create(seed.properties());
    const first = await seed.framework.deliver(request, aWhile);
    expect(first).toMatchObject({ Status: 'SUCCESS' });
    dataSync.settle();
    const again = await seed.framework.deliver(request, aWhile);
    expect(again).toMatchObject({ Status: 'SUCCESS', Data: { TaskExecutionArn: first.Data!.TaskExecutionArn } });
    expect(seed.statuses()).toEqual(['SUCCESS']);
    expect(seed.executions()[0].tags).toContainEqual({ Key: REQUEST_TAG, Value: expect.stringMatching(/^[0-9a-f]{32}$/) });
  });
});

describe('parallel Creates on one provider: the run handlers a stack\'s DataSync seeds share', () => {
  // CloudFormation creates the seeds of a stack at once (up to three in flight, seed-lanes.ts), all
  // through one Provider and one pair of run functions, waited or not. DataSync is the stand-in shaped
  // after the API reference (see the top of this file), since moto's DataSync cannot serve: each task
  // runs its own executions, one at a time.
  test('6 seeds created at once, half of them waited, each end SUCCESS on their own task with one execution of their own, cancelling nothing', async () => {
    const waits = [true, false, true, false, true, false];
    const seeds = waits.map((wait) => deployedSeed(wait));
    const provider = seeds[0].framework;
    const requests = seeds.map((seed, i) => create(seed.properties({ targetPath: `/site${i}`, version: `v${i}` })));
    const answers = await Promise.all(requests.map((request) => provider.deliver(request, aWhile)));
    answers.forEach((answer, i) => {
      expect(answer).toMatchObject({ Status: 'SUCCESS', RequestId: requests[i].RequestId, PhysicalResourceId: seeds[i].task });
      expect(answer.Data!.TaskExecutionArn).toEqual(seeds[i].executions()[0].arn);
    });
    dataSync.settle();
    for (const seed of seeds) expect(seed.statuses()).toEqual(['SUCCESS']);
    // Each execution carries its own seed's source-and-place tag and its own request's tag.
    const tags = seeds.map((seed) => seed.executions()[0].tags);
    expect(new Set(tags.map((t) => t.find((x) => x.Key === TRIGGER_TAG)!.Value)).size).toBe(6);
    expect(new Set(tags.map((t) => t.find((x) => x.Key === REQUEST_TAG)!.Value)).size).toBe(6);
    const commands = dataSync.requests.map((r) => r.command);
    expect(commands.filter((c) => c === 'StartTaskExecution')).toHaveLength(6);
    expect(commands.filter((c) => c === 'CancelTaskExecution')).toHaveLength(0);
    expect(provider.invocations.onEvent).toBe(6);
  });

  test('while the first seed of three is still running, two more created at once start their own runs and leave it running', async () => {
    const seeds = [deployedSeed(true), deployedSeed(true), deployedSeed(true)];
    const provider = seeds[0].framework;
    const first = await provider.send(create(seeds[0].properties({ targetPath: '/a' })));
    expect(await first.waiter!.poll()).toBeUndefined();
    const others = await Promise.all([1, 2].map((i) => provider.deliver(create(seeds[i].properties({ targetPath: `/b${i}` })), aWhile)));
    expect(others.map((a) => a.Status)).toEqual(['SUCCESS', 'SUCCESS']);
    expect(await first.waiter!.answer(50, aWhile)).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: seeds[0].task });
    dataSync.settle();
    expect(seeds.map((seed) => seed.statuses())).toEqual([['SUCCESS'], ['SUCCESS'], ['SUCCESS']]);
  });
});

describe('what a newer request leaves alone', () => {
  test('an execution of the task\'s schedule (untagged) runs on; the deploy\'s queues behind it', async () => {
    const seed = deployedSeed(false);
    const scheduled = dataSync.startUntagged(seed.task);
    await seed.framework.deliver(create(seed.properties()));
    expect(seed.statuses()).toEqual(['LAUNCHING', 'QUEUED']);
    expect(dataSync.status(scheduled)).toBe('LAUNCHING');
  });

  test('an execution that ends between the listing and the cancel needs nothing: the Update goes on', async () => {
    const seed = deployedSeed(false);
    const v1 = seed.properties({ version: 'v1' });
    const v2 = seed.properties({ version: 'v2' });
    await seed.framework.deliver(create(v1));
    dataSync.onNextCancel(() => dataSync.settle());
    expect(await seed.framework.deliver(update(seed.task, v2, v1))).toMatchObject({ Status: 'SUCCESS' });
    expect(seed.statuses()).toEqual(['SUCCESS', 'LAUNCHING']);
  });
});

describe('grants: the synthesized policies allow what the handlers send, and no more', () => {
  /** The IAM requests behind a DataSync call (tagging at start is TagResource on the new execution, DataSync's tag-on-create rule). */
  function iamRequests({ command, input, output }: { command: string; input: any; output?: any }): Request[] {
    const request = (action: string, resource: string): Request => ({ action: `datasync:${action}`, resource, context: {} });
    switch (command) {
      case 'StartTaskExecution':
        return [request(command, input.TaskArn), ...(input.Tags?.length ? [request('TagResource', output.TaskExecutionArn)] : [])];
      case 'DescribeTask': return [request(command, input.TaskArn)];
      case 'ListTaskExecutions': return [request(command, '*')]; // no resource-level permissions
      case 'ListTagsForResource': return [request(command, input.ResourceArn)];
      default: return [request(command, input.TaskExecutionArn)];
    }
  }
  function policyOf(waitForCompletion: boolean, role: 'onEvent' | 'isComplete', task: string) {
    const run = synthSeedRun({ engine: 'dataSync', waitForCompletion });
    const [id] = Object.keys(run.template.findResources('AWS::DataSync::Task'));
    return statementsOf(run.template, role === 'onEvent' ? run.onEventRole : run.isCompleteRole!, { [id]: task });
  }

  test('every request a whole lifecycle sends, the deadline\'s cancel included', async () => {
    const seed = deployedSeed(true);
    await rollBackDuringRun(seed);
    dataSync.onNextCancel(() => dataSync.settle());
    const v3 = seed.properties({ version: 'v3' });
    await seed.framework.deliver(update(seed.task, v3, seed.properties({ version: 'v1' })), aWhile);
    await seed.framework.send(update(seed.task, seed.properties({ version: 'v4' }), v3));
    await seed.framework.deliver(remove(seed.task, v3));
    // isComplete's cancel at the deadline.
    const late: DataSyncRunEvent = { RequestType: 'Create', ResourceProperties: v3 as any, Data: { TaskExecutionArn: dataSync.startUntagged(seed.task), Deadline: Date.now() - 1 } };
    await expect(isComplete(late, dataSync.client('isComplete'))).rejects.toThrow('did not finish within the deploy\'s time limit');

    const seen = new Set(dataSync.requests.flatMap((r) => iamRequests(r).map((q) => `${r.client} ${q.action}`)));
    expect([...seen].sort()).toEqual([
      'isComplete datasync:CancelTaskExecution', 'isComplete datasync:DescribeTaskExecution',
      'onEvent datasync:CancelTaskExecution', 'onEvent datasync:DescribeTask', 'onEvent datasync:DescribeTaskExecution',
      'onEvent datasync:ListTagsForResource', 'onEvent datasync:ListTaskExecutions', 'onEvent datasync:StartTaskExecution', 'onEvent datasync:TagResource',
    ]);
    for (const r of dataSync.requests) {
      for (const request of iamRequests(r)) {
        const role = r.client as 'onEvent' | 'isComplete';
        for (const wait of role === 'isComplete' ? [true] : [true, false]) {
          expect([role, request, decide(policyOf(wait, role, seed.task), request)]).toEqual([role, request, 'allowed']);
        }
      }
    }
  });

  test('neither function may touch another task or its executions', () => {
    const other = 'arn:aws:datasync:us-east-1:123456789012:task/task-0aaaaaaaaaaaaaaa0';
    const requests: Request[] = [
      ...['StartTaskExecution', 'DescribeTask'].map((a) => ({ action: `datasync:${a}`, resource: other, context: {} })),
      ...['CancelTaskExecution', 'DescribeTaskExecution', 'TagResource', 'ListTagsForResource'].map((a) => ({ action: `datasync:${a}`, resource: `${other}/execution/exec-0aaaaaaaaaaaaaaa1`, context: {} })),
    ];
    for (const role of ['onEvent', 'isComplete'] as const) {
      const policy = policyOf(true, role, 'arn:aws:datasync:us-east-1:123456789012:task/task-0123456789abcdef0');
      for (const request of requests) expect([role, request, decide(policy, request)]).toEqual([role, request, 'not allowed']);
    }
  });

  test.each([[true], [false]])('waitForCompletion %s: no unacknowledged cdk-nag findings, no cfn-lint errors', (wait) => {
    const run = synthSeedRun({ engine: 'dataSync', waitForCompletion: wait });
    expect(nagErrors(run.stack).filter((f) => f.includes('/Content/'))).toEqual([]);
    expect(cfnLintErrors(run.template.toJSON())).toEqual([]);
  });
});
