import * as http from 'http';
import type { AddressInfo } from 'net';

/**
 * A stand-in for AWS Lambda's Invoke API on 127.0.0.1, because no Lambda can run here (moto's
 * Lambda needs Docker). It follows the API reference's shape: `POST
 * /2015-03-31/functions/{FunctionName}/invocations` (a name or an ARN, URL-encoded) with a Signature
 * Version 4 `Authorization` for the `lambda` service; the payload is the event, the response body
 * the handler's return value. Like Lambda, it loads the function's handler module when invoked and
 * calls its `handler(event, context)` in this process, with the function's environment set; a handler
 * that throws, or a module that cannot be loaded, is a function error: HTTP 200 with
 * `X-Amz-Function-Error: Unhandled` and `{ errorType, errorMessage, trace }`. An unknown function is
 * Lambda's 404 `ResourceNotFoundException` (`X-Amzn-ErrorType`), a request without a signature its
 * 403 `MissingAuthenticationTokenException`.
 */
export interface StandInFunction {
  /** The bundled handler module, e.g. dist/handlers/probe/index.js. */
  readonly handlerModule: string;
  readonly environment: Record<string, string>;
  readonly timeoutSeconds: number;
}

export interface LambdaStandIn {
  readonly endpoint: string;
  readonly region: string;
  /** The events the functions were invoked with, in order. */
  readonly events: unknown[];
  /** What the handlers logged (Lambda sends it to CloudWatch Logs), line by line. */
  readonly logs: string[];
  stop(): Promise<void>;
}

export const STAND_IN_ACCOUNT = '123456789012';

export async function startLambdaStandIn(region: string, functions: Record<string, StandInFunction>): Promise<LambdaStandIn> {
  const events: unknown[] = [];
  const logs: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      answer(req, Buffer.concat(chunks).toString('utf8')).then(({ status, headers, body }) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(body);
      }, (err: Error) => {
        res.writeHead(500, { 'x-amzn-errortype': 'ServiceException' });
        res.end(JSON.stringify({ Type: 'Service', message: err.message }));
      });
    });
  });

  async function answer(req: http.IncomingMessage, payload: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    const refuse = (status: number, type: string, message: string) => ({
      status, headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazonaws.awslambda/` }, body: JSON.stringify({ Type: 'User', message }),
    });
    const route = /^\/2015-03-31\/functions\/([^/?]+)\/invocations(\?.*)?$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !route) return refuse(404, 'UnknownOperationException', `no such operation: ${req.method} ${req.url}`);
    const scope = new RegExp(`^AWS4-HMAC-SHA256 Credential=[^/]+/\\d{8}/${region}/lambda/aws4_request, SignedHeaders=\\S+, Signature=[0-9a-f]{64}$`);
    if (!scope.test(String(req.headers.authorization ?? ''))) return refuse(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
    const requested = decodeURIComponent(route[1]);
    const name = /^arn:aws:lambda:[^:]+:\d{12}:function:([^:]+)(:.+)?$/.exec(requested)?.[1] ?? requested;
    const fn = functions[name];
    if (!fn) return refuse(404, 'ResourceNotFoundException', `Function not found: arn:aws:lambda:${region}:${STAND_IN_ACCOUNT}:function:${name}`);
    const event = JSON.parse(payload || '{}');
    events.push(event);
    try {
      return { status: 200, headers: { 'x-amz-executed-version': '$LATEST' }, body: JSON.stringify(await run(fn, event, logs)) };
    } catch (err) {
      const e = err as Error & { errorType?: string };
      return {
        status: 200,
        headers: { 'x-amz-function-error': 'Unhandled', 'x-amz-executed-version': '$LATEST' },
        body: JSON.stringify({ errorType: e.errorType ?? e.name, errorMessage: e.message, trace: (e.stack ?? '').split('\n') }),
      };
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    region,
    events,
    logs,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** One invocation, as Lambda's Node.js runtime makes it: load the module, set the environment, call `handler`. */
async function run(fn: StandInFunction, event: unknown, logs: string[]): Promise<unknown> {
  let handler: (event: unknown, context: unknown) => Promise<unknown>;
  try {
    handler = require(fn.handlerModule).handler;
  } catch (err) {
    // The runtime's report of a module it cannot load.
    throw Object.assign(new Error(`Error: ${(err as Error).message}`), { errorType: 'Runtime.ImportModuleError' });
  }
  const saved = { ...process.env };
  Object.assign(process.env, fn.environment);
  const [log, write] = [console.log, process.stdout.write];
  console.log = (...args: unknown[]) => { logs.push(args.map(String).join(' ')); };
  process.stdout.write = ((chunk: string | Uint8Array) => logs.push(String(chunk).trimEnd()) > 0) as typeof process.stdout.write;
  const deadline = Date.now() + fn.timeoutSeconds * 1000;
  try {
    return await handler(event, { getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) });
  } finally {
    [console.log, process.stdout.write] = [log, write];
    for (const key of Object.keys(fn.environment)) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  }
}
