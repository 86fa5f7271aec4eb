import * as net from 'net';
import type { Context } from 'aws-lambda';
import { onEvent as gateOnEvent } from '../../../lambda/mount-readiness/custom-resource';
import { describeMountTargets } from '../../../lambda/mount-readiness/describe-mount-targets';
import { newResolver } from '../../../lambda/shared/mount-checks/dns-lookup';

// A stalled AWS endpoint: a loopback server that accepts every connection, reads the request and
// never answers, as an API endpoint behind a black-holed route does. Nothing here is AWS; the SDK
// clients are the handlers' own, pointed at it.
interface StalledEndpoint {
  readonly url: string;
  /** Connections the client gave up and closed. */
  closedByClient(): number;
  stop(): Promise<void>;
}

async function stalledEndpoint(): Promise<StalledEndpoint> {
  const sockets = new Set<net.Socket>();
  let closed = 0;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('data', () => undefined);
    socket.on('close', () => { closed++; sockets.delete(socket); });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    closedByClient: () => closed,
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const contextWith = (remainingMs: number): Context => {
  const end = Date.now() + remainingMs;
  return { getRemainingTimeInMillis: () => end - Date.now() } as Context;
};

let endpoint: StalledEndpoint;
const previousEnv = { ...process.env };
beforeEach(async () => {
  endpoint = await stalledEndpoint();
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1',
    AWS_ENDPOINT_URL: endpoint.url, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
  jest.spyOn(console, 'log').mockImplementation(() => undefined);
});
afterEach(async () => {
  process.env = { ...previousEnv };
  jest.restoreAllMocks();
  await endpoint.stop();
});

test('the readiness gate fails with its own message within its time limit when DescribeMountTargets never answers', async () => {
  const started = Date.now();
  const outcome = gateOnEvent(
    { RequestType: 'Create', ResourceProperties: { FileSystemId: 'fs-0123456789abcdef0', Region: 'us-east-1', TimeLimitSeconds: '1' } },
    {
      resolver: newResolver({ servers: ['127.0.0.1:9'], timeoutMs: 100, tries: 1 }),
      remainingMs: () => 600_000,
      describeMountTargets: (id, region, deadline) => describeMountTargets(id, region, deadline, endpoint.url),
    },
  );
  await expect(outcome).rejects.toThrow('mount readiness: fs-0123456789abcdef0 was not ready within the time limit (1 second): DescribeMountTargets did not answer');
  // The SDK's own request timeout is 10 s: ending sooner shows the gate's deadline cut the call.
  expect(Date.now() - started).toBeLessThan(9_000);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(endpoint.closedByClient()).toBeGreaterThanOrEqual(1);
});

test.each([
  ['seed-datasync-run', "The DataSync seed's Create", { TaskArn: 'arn:aws:datasync:us-east-1:123456789012:task/task-0123456789abcdef0', Trigger: 't' }],
  ['seed-distributed-map-run', "The Distributed Map seed's Create", { StateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:seed', Trigger: 't' }],
])('%s answers with its own message before Lambda would kill it when its API never answers', async (handler, what, properties) => {
  let module: { onEvent(event: unknown, context: Context): Promise<unknown> } | undefined;
  // The handler makes its client at module scope, from the environment set above.
  jest.isolateModules(() => { module = require(`../../../lambda/${handler}/index`); });
  const started = Date.now();
  // 7 s left, of which the handler keeps 5 s to answer: its calls are cut after about 2 s.
  await expect(module!.onEvent({ RequestType: 'Create', RequestId: 'r-1', ResourceProperties: properties }, contextWith(7_000)))
    .rejects.toThrow(`${what} did not finish within the 2 s this invocation had: an AWS API call was still unanswered`);
  expect(Date.now() - started).toBeLessThan(7_000);
});
