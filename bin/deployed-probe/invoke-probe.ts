import type { ProbeRequest } from '../../lib/probe/probe-request';
import type { ProbeRejection, ProbeResult } from '../../lambda/probe/result';

type ProbeOutcome = ProbeResult | ProbeRejection;

/** A deployed BenchmarkProbe, reached with Lambda's Invoke (RequestResponse). */
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
  // Loaded here: every other command would pay for the SDK.
  const { InvokeCommand, LambdaClient } = await import('@aws-sdk/client-lambda');
  // A probe runs up to its function's timeout (15 minutes at most) before it answers: no request
  // timeout, and no retry that would run the probe twice.
  const client = new LambdaClient({ region: probe.region, profile: probe.profile, endpoint: probe.endpoint, maxAttempts: 1 });
  try {
    await client.config.region().catch(() => {
      throw new InvokeError('no Region: give --region, or set AWS_REGION or the profile\'s region');
    });
    const response = await client.send(new InvokeCommand({
      FunctionName: probe.functionName, InvocationType: 'RequestResponse', Payload: Buffer.from(JSON.stringify(request)),
    })).catch((err: Error) => {
      throw new InvokeError(`Lambda refused to invoke ${probe.functionName}: ${err.name}: ${firstLine(err.message)}`);
    });
    const body = Buffer.from(response.Payload ?? new Uint8Array()).toString('utf8');
    return outcomeOf(probe.functionName, body, response.FunctionError);
  } finally {
    client.destroy();
  }
}

/** The payload as a probe outcome; the function's error as one InvokeError line. */
function outcomeOf(functionName: string, body: string, functionError: string | undefined): ProbeOutcome {
  const payload = parseJson(body);
  if (functionError) {
    // The function's error: { errorType, errorMessage, trace }; the trace stays in its logs.
    const type = field(payload, 'errorType') ?? functionError;
    const message = field(payload, 'errorMessage') ?? body.trim();
    throw new InvokeError(`${functionName} failed: ${type}: ${firstLine(message)} (its CloudWatch logs have the details)`);
  }
  if (!isOutcome(payload)) throw new InvokeError(`${functionName} returned something other than a probe result: ${firstLine(body).slice(0, 200)}`);
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
