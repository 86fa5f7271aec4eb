import { CreateStateMachineCommand, SFNClient } from '@aws-sdk/client-sfn';
import { isComplete, onEvent } from '../lambda/sfn-run/run';
import { Moto, startMoto } from './helpers/moto';

// The Distributed Map seed's deploy-time runner against moto's Step Functions on 127.0.0.1, which
// really executes simple state machines (Pass, Fail) once told to.
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

async function runToEnd(arn: string, requestId: string) {
  const started = await onEvent({ RequestType: 'Create', RequestId: requestId, ResourceProperties: { StateMachineArn: arn, Trigger: 'v1' } }, client);
  const event = { RequestType: 'Create' as const, ResourceProperties: { StateMachineArn: arn }, ...started };
  for (let i = 0; i < 50; i++) {
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
  expect(done.Data?.ExecutionArn).toMatch(/:execution:ok:seed-req-1$/);
});

test('fails with the execution\'s error and cause', async () => {
  const arn = await stateMachine('broken', { StartAt: 'Boom', States: { Boom: { Type: 'Fail', Error: 'SeedBatchFailed', Cause: '3 of 40 batches failed' } } });
  await expect(runToEnd(arn, 'req-2')).rejects.toThrow(/FAILED: SeedBatchFailed: 3 of 40 batches failed/);
});

test('Delete starts nothing', async () => {
  const response = await onEvent({ RequestType: 'Delete', PhysicalResourceId: 'arn:x', ResourceProperties: { StateMachineArn: 'arn:x' } }, client);
  expect(response).toEqual({ PhysicalResourceId: 'arn:x' });
});
