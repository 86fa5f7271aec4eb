import * as http from 'http';
import * as https from 'https';
import type { ProbeRequest } from '../../lib/probe/probe-request';
import type { ProbeRejection, ProbeResult } from '../../lambda/probe/result';

type ProbeOutcome = ProbeResult | ProbeRejection;

/**
 * Runs a request on a deployed BenchmarkProbe: Lambda's Invoke (RequestResponse), as the AWS API
 * reference gives it: `POST /2015-03-31/functions/{FunctionName}/invocations` with the request as
 * the JSON payload, signed with Signature Version 4. The package has no Lambda client
 * (@aws-sdk/client-lambda), so the call is made here with the SDK's own signer and credential
 * chain (through the STS client's configuration: the profile, environment, SSO, instance role).
 */
export interface DeployedProbe {
  /** The function's name, ARN or partial ARN, with an optional `:alias` or `:version`. */
  readonly functionName: string;
  readonly region?: string;
  readonly profile?: string;
  /** Instead of Lambda's Regional endpoint, e.g. a local stand-in. */
  readonly endpoint?: string;
}

/** A failed invocation, in one line: Lambda refused the call, or the function failed. */
export class InvokeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvokeError';
  }
}

/** The probe's result, or its refusal of the request, as the function returned it. */
export async function invokeProbe(probe: DeployedProbe, request: ProbeRequest): Promise<ProbeOutcome> {
  // The lockfile pins SDK releases that run on Node 20; the SDK's warning is about later ones, which a user of this command cannot act on.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { STSClient } = await import('@aws-sdk/client-sts');
  const { SignatureV4 } = await import('@smithy/signature-v4');
  const { Sha256 } = await import('@aws-crypto/sha256-js');
  const config = new STSClient({ region: probe.region, profile: probe.profile }).config;
  const region = await config.region().catch(() => {
    throw new InvokeError('no Region: give --region, or set AWS_REGION or the profile\'s region');
  });
  const url = new URL(endpointOf(probe, region));
  const body = JSON.stringify(request);
  const signer = new SignatureV4({ credentials: config.credentials, region, service: 'lambda', sha256: Sha256 });
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: `${url.pathname.replace(/\/$/, '')}/2015-03-31/functions/${encodeURIComponent(probe.functionName)}/invocations`,
    query: {},
    headers: {
      'host': url.host,
      'content-type': 'application/json',
      'x-amz-invocation-type': 'RequestResponse',
      'x-amz-log-type': 'None',
    },
    body,
  }).catch((err: Error) => {
    throw new InvokeError(`no AWS credentials (${err.message.split('\n')[0]})`);
  });
  const response = await send(url, signed.path, signed.headers as Record<string, string>, body);
  return outcomeOf(probe.functionName, response);
}

function endpointOf(probe: DeployedProbe, region: string): string {
  const given = probe.endpoint ?? process.env.AWS_ENDPOINT_URL_LAMBDA ?? process.env.AWS_ENDPOINT_URL;
  if (given) return given;
  return `https://lambda.${region}.${region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'}`;
}

interface InvokeResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

function send(url: URL, path: string, headers: Record<string, string>, body: string): Promise<InvokeResponse> {
  const transport = url.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    // A probe runs for up to the function's timeout (15 minutes at most) before it answers: no
    // request timeout, and TCP keep-alive so that idle NAT paths do not drop the connection.
    const agent = new transport.Agent({ keepAlive: true, keepAliveMsecs: 30_000 });
    const req = transport.request({ method: 'POST', hostname: url.hostname, port: url.port || undefined, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        agent.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', (err) => {
      agent.destroy();
      reject(new InvokeError(`could not reach Lambda at ${url.origin}: ${err.message}`));
    });
    req.end(body);
  });
}

/** The payload as a probe outcome; Lambda's refusal or the function's error as one InvokeError line. */
function outcomeOf(functionName: string, response: InvokeResponse): ProbeOutcome {
  const payload = parseJson(response.body);
  if (response.status < 200 || response.status >= 300) {
    // Lambda's errors: the type in X-Amzn-ErrorType (after it, a colon and a URL), the message in the body.
    const type = String(response.headers['x-amzn-errortype'] ?? `HTTP ${response.status}`).split(':')[0];
    const message = field(payload, 'message') ?? field(payload, 'Message') ?? response.body.trim();
    throw new InvokeError(`Lambda refused to invoke ${functionName}: ${type}: ${firstLine(message)}`);
  }
  const functionError = response.headers['x-amz-function-error'];
  if (functionError) {
    // The function's error: { errorType, errorMessage, trace }; the trace stays in its logs.
    const type = field(payload, 'errorType') ?? String(functionError);
    const message = field(payload, 'errorMessage') ?? response.body.trim();
    throw new InvokeError(`${functionName} failed: ${type}: ${firstLine(message)} (its CloudWatch logs have the details)`);
  }
  if (!isOutcome(payload)) throw new InvokeError(`${functionName} returned something other than a probe result: ${firstLine(response.body).slice(0, 200)}`);
  return payload;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function field(payload: unknown, name: string): string | undefined {
  const value = (payload as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
}

const firstLine = (text: string) => text.split('\n')[0].trim();

function isOutcome(payload: unknown): payload is ProbeOutcome {
  const status = (payload as { status?: unknown } | null | undefined)?.status;
  return typeof status === 'string' && ['ok', 'failed', 'refused', 'invalid'].includes(status);
}
