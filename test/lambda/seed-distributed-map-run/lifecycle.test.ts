import { randomUUID } from 'crypto';
import * as path from 'path';
import { CreateStateMachineCommand, ExecutionListItem, ListExecutionsCommand, SFNClient } from '@aws-sdk/client-sfn';
import { isComplete, onEvent } from '../../../lambda/seed-distributed-map-run/run';
import { cfnLintErrors, nagErrors } from '../../helpers/checks';
import { decide, Request, statementsOf } from '../../helpers/iam-policy';
import { Moto, startMoto } from '../../helpers/moto';
import { settledStatus, settledStatuses, untilMotoRuns } from '../../helpers/moto-sfn';
import { CfnRequest, CREATE_FAILED_PHYSICAL_ID_MARKER, ProviderFramework } from '../../helpers/provider-framework';
import { resolvedProperties, SeedRunVariant, synthSeedRun } from '../../helpers/seed-run-template';

// The Distributed Map seed's run resource under CloudFormation: event sequences as CloudFormation
// sends them, through aws-cdk-lib's own Provider framework code (test/helpers/provider-framework.ts),
// with ResourceProperties from FileSystemSeed's synthesized template, against moto's Step Functions
// on 127.0.0.1. moto cannot run the synthesized state machine (its workers are Lambda functions,
// and moto invokes Lambda only with Docker), so the template's state machine stands for one moto
// really executes: a Choice on the trigger the handler passes, where version 'slow' waits an hour
// (a copy still running when the next request comes), 'broken' fails, and any other passes at once.
// moto applies a StopExecution in a worker thread where AWS applies it at once: before each request
// that meets a running execution the tests wait until moto runs it, and they read statuses once moto
// has settled (test/helpers/moto-sfn.ts).
let moto: Moto;
/** Every request the handlers sent, with the function that sent it: the grants test evaluates them. */
const sent: Array<{ role: 'onEvent' | 'isComplete'; command: string; input: any }> = [];
const clients = {} as Record<'onEvent' | 'isComplete', SFNClient>;
let admin: SFNClient;

beforeAll(async () => {
  moto = await startMoto();
  await fetch(`${moto.endpoint}/moto-api/config`, { method: 'POST', body: JSON.stringify({ stepfunctions: { execute_state_machine: true } }) });
  admin = new SFNClient(moto.clientConfig);
  for (const role of ['onEvent', 'isComplete'] as const) {
    clients[role] = new SFNClient(moto.clientConfig);
    clients[role].middlewareStack.add((next, context) => async (args) => {
      sent.push({ role, command: context.commandName ?? '', input: args.input });
      return next(args);
    }, { step: 'initialize' });
  }
  jest.spyOn(console, 'log').mockImplementation(() => undefined);
});
afterAll(() => moto.stop());

const FILE_SYSTEM = 'fs-0123456789abcdef0';
const COPY = {
  StartAt: 'Copy',
  States: {
    Copy: {
      Type: 'Choice',
      Choices: [
        { Variable: '$.trigger', StringEquals: 's3-objects:data/:slow', Next: 'CopyForAnHour' },
        { Variable: '$.trigger', StringEquals: 's3-objects:data/:broken', Next: 'BatchesFailed' },
      ],
      Default: 'Copied',
    },
    CopyForAnHour: { Type: 'Wait', Seconds: 3600, End: true },
    BatchesFailed: { Type: 'Fail', Error: 'SeedBatchFailed', Cause: '3 of 40 batches failed' },
    Copied: { Type: 'Pass', End: true },
  },
};

let machines = 0;

/** A seed as deployed: its state machine on moto, and the framework in front of its handlers. */
async function deployedSeed(waitForCompletion: boolean) {
  const { stateMachineArn } = await admin.send(new CreateStateMachineCommand({
    name: `seed-machine-${++machines}`, definition: JSON.stringify(COPY), roleArn: 'arn:aws:iam::123456789012:role/sfn',
  }));
  const machineArn = stateMachineArn!;
  const framework = new ProviderFramework({
    onEvent: (event) => onEvent(event, clients.onEvent),
    // Always there: whether a request waits is its own (WaitForCompletion), answered by isComplete.
    isComplete: (event) => isComplete(event, clients.isComplete),
  });
  return {
    machineArn,
    framework,
    /** The run resource's properties for a seed of `variant`, from its synthesized template. */
    properties: (variant: Partial<SeedRunVariant> = {}, fileSystem = FILE_SYSTEM) => resolvedProperties(
      synthSeedRun({ engine: 'distributedMap', waitForCompletion, ...variant }),
      { 'AWS::StepFunctions::StateMachine': machineArn, 'AWS::EFS::FileSystem': fileSystem },
    ),
    /** The state machine's executions, oldest first. */
    executions: async (): Promise<ExecutionListItem[]> => ((await admin.send(new ListExecutionsCommand({ stateMachineArn: machineArn }))).executions ?? [])
      .sort((a, b) => a.startDate!.getTime() - b.startDate!.getTime()),
  };
}
type Seed = Awaited<ReturnType<typeof deployedSeed>>;

/** Waits until moto runs every execution it lists as RUNNING, as AWS does once StartExecution returns. */
async function running(seed: Seed): Promise<void> {
  for (const e of await seed.executions()) if (e.status === 'RUNNING') await untilMotoRuns(admin, e.executionArn!);
}

const create = (ResourceProperties: Record<string, any>): CfnRequest => ({ RequestType: 'Create', RequestId: randomUUID(), ResourceProperties });
const update = (seed: Seed, ResourceProperties: Record<string, any>, OldResourceProperties: Record<string, any>): CfnRequest =>
  ({ RequestType: 'Update', RequestId: randomUUID(), ResourceProperties, OldResourceProperties, PhysicalResourceId: seed.machineArn });
const remove = (PhysicalResourceId: string, ResourceProperties: Record<string, any>): CfnRequest =>
  ({ RequestType: 'Delete', RequestId: randomUUID(), ResourceProperties, PhysicalResourceId });
/** The executions' statuses, oldest first, once moto shows `expected` (or, past a generous bound, as they are). */
const statuses = (seed: Seed, expected: string[]) => settledStatuses(async () => (await seed.executions()).map((e) => e.status), expected);
const prefixOf = (e: ExecutionListItem) => e.name!.split('-').slice(0, 2).join('-');

describe('finding 1: the place is part of the run\'s identity', () => {
  test.each([
    ['another access point', { accessPoint: 'Admin' }, FILE_SYSTEM],
    ['another target path', { targetPath: '/www/next' }, FILE_SYSTEM],
    ['a replaced file system', {}, 'fs-0fedcba9876543210'],
  ])('%s starts a new run, and the run into the old place is stopped', async (_, moved, fileSystem) => {
    const seed = await deployedSeed(false);
    const before = seed.properties({ version: 'slow' });
    const after = seed.properties({ version: 'slow', ...moved }, fileSystem);
    // Same state machine ARN, same source: only Target says the copy lands elsewhere.
    expect([after.StateMachineArn, after.Trigger]).toEqual([before.StateMachineArn, before.Trigger]);
    expect(after.Target).not.toEqual(before.Target);
    expect(await seed.framework.deliver(create(before))).toMatchObject({ Status: 'SUCCESS' });
    await running(seed);
    expect(await seed.framework.deliver(update(seed, after, before))).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: seed.machineArn });
    expect(await statuses(seed, ['ABORTED', 'RUNNING'])).toEqual(['ABORTED', 'RUNNING']);
    const [old, now] = await seed.executions();
    expect(prefixOf(now)).not.toEqual(prefixOf(old));
  });
});

/** A forward Update to a slow source whose deploy then fails elsewhere: CloudFormation rolls the seed back while the copy runs. */
async function rollBackDuringRun(seed: Seed) {
  const v1 = seed.properties({ version: 'v1' });
  const slow = seed.properties({ version: 'slow' });
  expect(await seed.framework.deliver(create(v1))).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: seed.machineArn });
  const forward = await seed.framework.send(update(seed, slow, v1));
  // Waited, it is still copying; not waited, the waiter's first poll answers at once.
  if (slow.WaitForCompletion === 'true') expect(await forward.waiter!.poll()).toBeUndefined();
  else expect(await forward.waiter!.poll()).toMatchObject({ Status: 'SUCCESS' });
  await running(seed);
  // Another resource fails: CloudFormation stops waiting for this one and sends the rollback Update.
  const rollback = await seed.framework.deliver(update(seed, v1, slow));
  return { forward, rollback };
}

describe('finding 7: a rollback during a running execution stops it and succeeds', () => {
  test.each([[true], [false]])('waitForCompletion %s: the forward run is stopped and the old source runs again', async (wait) => {
    const seed = await deployedSeed(wait);
    const { rollback } = await rollBackDuringRun(seed);
    expect(rollback).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: seed.machineArn });
    const [first, forward, restored] = await seed.executions();
    expect(await settledStatus(admin, forward.executionArn!, 'ABORTED')).toBe('ABORTED');
    // The rollback's run copies the old source again: named for it, as the first run was.
    expect(prefixOf(restored)).toBe(prefixOf(first));
    if (wait) expect(await settledStatus(admin, restored.executionArn!, 'SUCCEEDED')).toBe('SUCCEEDED');
  });

  test('the superseded request\'s waiter ends at its next poll, without stopping anything or polling on', async () => {
    const seed = await deployedSeed(true);
    const { forward } = await rollBackDuringRun(seed);
    expect(await statuses(seed, ['SUCCEEDED', 'ABORTED', 'SUCCEEDED'])).toEqual(['SUCCEEDED', 'ABORTED', 'SUCCEEDED']);
    const before = sent.length;
    const answer = await forward.waiter!.poll();
    expect(answer).toMatchObject({ Status: 'FAILED' });
    expect(answer!.Reason).toContain('was stopped before it finished');
    expect(answer!.Reason).toContain('a newer deploy request for this seed or its Delete stops the run it replaces');
    expect(sent.slice(before).map((r) => r.command)).toEqual(['DescribeExecutionCommand']);
  });
});

describe('Delete', () => {
  test('waitForCompletion false: a stack delete while the execution runs stops it and succeeds', async () => {
    const seed = await deployedSeed(false);
    const slow = seed.properties({ version: 'slow' });
    await seed.framework.deliver(create(slow));
    await running(seed);
    expect(await seed.framework.deliver(remove(seed.machineArn, slow))).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: seed.machineArn });
    expect(await statuses(seed, ['ABORTED'])).toEqual(['ABORTED']);
  });

  test('waitForCompletion true: a rollback Delete while the Create still waits stops the run; the abandoned waiter then ends', async () => {
    const seed = await deployedSeed(true);
    const slow = seed.properties({ version: 'slow' });
    const { waiter } = await seed.framework.send(create(slow));
    expect(await waiter!.poll()).toBeUndefined();
    await running(seed);
    // Another resource's Create fails: CloudFormation deletes this one, whose waiter it no longer hears.
    expect(await seed.framework.deliver(remove(seed.machineArn, slow))).toMatchObject({ Status: 'SUCCESS' });
    expect(await statuses(seed, ['ABORTED'])).toEqual(['ABORTED']);
    expect(await waiter!.poll()).toMatchObject({ Status: 'FAILED' });
  });

  test('after a Create that failed in onEvent, the framework answers the Delete itself: nothing ran', async () => {
    const seed = await deployedSeed(true);
    const gone = { ...seed.properties(), StateMachineArn: seed.machineArn.replace(/seed-machine-\d+$/, 'never-created') };
    const failed = await seed.framework.deliver(create(gone));
    expect(failed).toMatchObject({ Status: 'FAILED', PhysicalResourceId: CREATE_FAILED_PHYSICAL_ID_MARKER });
    const calls = seed.framework.invocations.onEvent;
    expect(await seed.framework.deliver(remove(CREATE_FAILED_PHYSICAL_ID_MARKER, gone))).toMatchObject({ Status: 'SUCCESS' });
    expect(seed.framework.invocations.onEvent).toBe(calls);
  });

  test('after a Create that failed in isComplete (the execution failed), the Delete reaches the handler and succeeds', async () => {
    const seed = await deployedSeed(true);
    const broken = seed.properties({ version: 'broken' });
    const failed = await seed.framework.deliver(create(broken));
    expect(failed).toMatchObject({ Status: 'FAILED', PhysicalResourceId: seed.machineArn });
    expect(failed.Reason).toContain('FAILED: SeedBatchFailed: 3 of 40 batches failed');
    const calls = seed.framework.invocations.onEvent;
    expect(await seed.framework.deliver(remove(seed.machineArn, broken))).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: seed.machineArn });
    expect(seed.framework.invocations.onEvent).toBe(calls + 1);
  });

  test.each([
    ['a TimeLimitSeconds it cannot parse', (p: any) => ({ ...p, TimeLimitSeconds: 'soon' })],
    ['no StateMachineArn', ({ StateMachineArn, ...p }: any) => p],
    ['no properties but the service token', (p: any) => ({ ServiceToken: p.ServiceToken })],
  ])('never fails on properties it does not need: %s', async (_, mangle) => {
    const seed = await deployedSeed(true);
    const slow = seed.properties({ version: 'slow' });
    await seed.framework.send(create(slow));
    await running(seed);
    expect(await seed.framework.deliver(remove(seed.machineArn, mangle(slow)))).toMatchObject({ Status: 'SUCCESS' });
    expect(await statuses(seed, ['ABORTED'])).toEqual(['ABORTED']);
  });

  test('succeeds when the state machine is already gone', async () => {
    const seed = await deployedSeed(false);
    const gone = seed.machineArn.replace(/seed-machine-\d+$/, 'deleted-before');
    expect(await seed.framework.deliver(remove(gone, { ...seed.properties(), StateMachineArn: gone }))).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: gone });
  });
});

describe('retries: the same request delivered again starts no second execution', () => {
  test('while its execution runs', async () => {
    const seed = await deployedSeed(false);
    const request = create(seed.properties({ version: 'slow' }));
    const first = await seed.framework.deliver(request);
    const again = await seed.framework.deliver(request);
    expect(again).toMatchObject({ Status: 'SUCCESS', Data: { ExecutionArn: first.Data!.ExecutionArn } });
    expect(await statuses(seed, ['RUNNING'])).toEqual(['RUNNING']);
  });

  test('after its execution ended', async () => {
    const seed = await deployedSeed(true);
    const request = create(seed.properties({ version: 'v1' }));
    const first = await seed.framework.deliver(request);
    expect(first).toMatchObject({ Status: 'SUCCESS' });
    const again = await seed.framework.deliver(request);
    expect(again).toMatchObject({ Status: 'SUCCESS', Data: { ExecutionArn: first.Data!.ExecutionArn } });
    expect(await statuses(seed, ['SUCCEEDED'])).toEqual(['SUCCEEDED']);
  });
});

describe('parallel Creates on one provider: the run handlers a stack\'s Distributed Map seeds share', () => {
  // CloudFormation creates the seeds of a stack at once (up to three in flight, seed-lanes.ts), all
  // through one Provider and one pair of run functions, waited or not, each seed with its own state
  // machine on moto.
  test('4 seeds created at once, half of them waited, each end SUCCESS with one execution of their own state machine', async () => {
    const waits = [true, false, true, false];
    const seeds = await Promise.all(waits.map((wait) => deployedSeed(wait)));
    const provider = seeds[0].framework;
    const requests = seeds.map((seed, i) => create(seed.properties({ targetPath: `/site${i}` })));
    const answers = await Promise.all(requests.map((request) => provider.deliver(request)));
    for (const [i, seed] of seeds.entries()) {
      expect(answers[i]).toMatchObject({ Status: 'SUCCESS', RequestId: requests[i].RequestId, PhysicalResourceId: seed.machineArn });
      const [execution] = await seed.executions();
      expect(answers[i].Data!.ExecutionArn).toBe(execution.executionArn);
      expect(await statuses(seed, ['SUCCEEDED'])).toEqual(['SUCCEEDED']);
    }
    expect(provider.invocations.onEvent).toBe(4);
  });

  test('a seed still running when three more are created at once is left running: each request stops only its own state machine\'s runs', async () => {
    const seeds = await Promise.all([false, true, true, true].map((wait) => deployedSeed(wait)));
    const provider = seeds[0].framework;
    expect(await provider.deliver(create(seeds[0].properties({ version: 'slow', targetPath: '/slow' })))).toMatchObject({ Status: 'SUCCESS' });
    await running(seeds[0]);
    const answers = await Promise.all([1, 2, 3].map((i) => provider.deliver(create(seeds[i].properties({ targetPath: `/site${i}` })))));
    expect(answers.map((a) => a.Status)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
    expect(await statuses(seeds[0], ['RUNNING'])).toEqual(['RUNNING']);
    for (const seed of seeds.slice(1)) expect(await statuses(seed, ['SUCCEEDED'])).toEqual(['SUCCEEDED']);
  });
});

test('the bundled handler, as deployed (dist/handlers/seed-distributed-map-run), stops a running execution on Delete', async () => {
  const seed = await deployedSeed(false);
  const slow = seed.properties({ version: 'slow' });
  Object.assign(process.env, { AWS_ENDPOINT_URL: moto.endpoint, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' });
  const bundled = require(path.join(__dirname, '..', '..', '..', 'dist', 'handlers', 'seed-distributed-map-run', 'index.js'));
  const framework = new ProviderFramework({ onEvent: bundled.onEvent });
  expect(await framework.deliver(create(slow))).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: seed.machineArn });
  await running(seed);
  expect(await framework.deliver(remove(seed.machineArn, slow))).toMatchObject({ Status: 'SUCCESS' });
  expect(await statuses(seed, ['ABORTED'])).toEqual(['ABORTED']);
});

describe('grants: the synthesized policies allow what the handlers send, and no more', () => {
  /** The IAM request behind an SDK call, with the state machine it concerns. */
  function iamRequest({ command, input }: { command: string; input: any }): { request: Request; machine: string } {
    const action = `states:${command.replace(/Command$/, '')}`;
    const resource: string = input.stateMachineArn ?? input.executionArn;
    const machine = resource.split(':')[6];
    return { request: { action, resource, context: {} }, machine };
  }
  /** The statements of `role` in a template, its state machine named `machine`. */
  function policyOf(waitForCompletion: boolean, role: 'onEvent' | 'isComplete', machine: string) {
    const run = synthSeedRun({ engine: 'distributedMap', waitForCompletion });
    const [id] = Object.keys(run.template.findResources('AWS::StepFunctions::StateMachine')).filter((k) => !/waiter/i.test(k));
    const names = { [id]: `arn:aws:states:us-east-1:123456789012:stateMachine:${machine}`, [`${id}.Name`]: machine };
    return statementsOf(run.template, role === 'onEvent' ? run.onEventRole : run.isCompleteRole!, names);
  }

  test('every request the handlers sent in this suite, the deadline\'s stop included', async () => {
    // isComplete's stop at the deadline, which the sequences above do not reach.
    const seed = await deployedSeed(true);
    const slow = seed.properties({ version: 'slow' });
    const started = await onEvent({ RequestType: 'Create', RequestId: randomUUID(), ResourceProperties: slow as any }, clients.onEvent);
    await running(seed);
    await expect(isComplete({ RequestType: 'Create', ResourceProperties: slow as any, ...started, Data: { ...started.Data, Deadline: Date.now() - 1 } }, clients.isComplete))
      .rejects.toThrow('did not finish within the deploy\'s time limit');

    const seen = new Set(sent.map((s) => `${s.role} ${s.command}`));
    expect([...seen].sort()).toEqual([
      'isComplete DescribeExecutionCommand', 'isComplete StopExecutionCommand',
      'onEvent ListExecutionsCommand', 'onEvent StartExecutionCommand', 'onEvent StopExecutionCommand',
    ]);
    for (const s of sent) {
      const { request, machine } = iamRequest(s);
      const waits = s.role === 'isComplete' ? [true] : [true, false];
      for (const wait of waits) expect([s.role, request, decide(policyOf(wait, s.role, machine), request)]).toEqual([s.role, request, 'allowed']);
    }
  });

  test('neither function may touch another state machine\'s executions', () => {
    const other: Request[] = [
      { action: 'states:StopExecution', resource: 'arn:aws:states:us-east-1:123456789012:execution:other-machine:x', context: {} },
      { action: 'states:StartExecution', resource: 'arn:aws:states:us-east-1:123456789012:stateMachine:other-machine', context: {} },
      { action: 'states:ListExecutions', resource: 'arn:aws:states:us-east-1:123456789012:stateMachine:other-machine', context: {} },
    ];
    for (const role of ['onEvent', 'isComplete'] as const) {
      for (const request of other) expect([role, request, decide(policyOf(true, role, 'seed-machine'), request)]).toEqual([role, request, 'not allowed']);
    }
  });

  test.each([[true], [false]])('waitForCompletion %s: no unacknowledged cdk-nag findings, no cfn-lint errors', (wait) => {
    const run = synthSeedRun({ engine: 'distributedMap', waitForCompletion: wait });
    expect(nagErrors(run.stack).filter((f) => f.includes('/Content/'))).toEqual([]);
    expect(cfnLintErrors(run.template.toJSON())).toEqual([]);
  });
});
