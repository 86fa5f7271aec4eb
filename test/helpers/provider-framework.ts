import * as path from 'path';

/**
 * aws-cdk's custom resource Provider framework, run from aws-cdk-lib's own runtime code
 * (custom-resources/lib/provider-framework/runtime/framework.js) with its three outbound calls
 * replaced: Lambda Invoke calls our handler in-process (a throw becomes a FunctionError payload, as
 * Lambda returns it), the waiter state machine's StartExecution hands its input to a Waiter the test
 * polls, and the PUT to CloudFormation's response URL is recorded. So the events our handlers see
 * and the answers CloudFormation gets are the framework's own: isComplete receives onEvent's
 * PhysicalResourceId and Data merged into the request, a Create that fails in onEvent answers with
 * the CREATE_FAILED marker and its Delete never reaches the handler, and so on.
 */

export interface CfnRequest {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly RequestId: string;
  readonly ResourceProperties: Record<string, unknown>;
  readonly OldResourceProperties?: Record<string, unknown>;
  readonly PhysicalResourceId?: string;
  /** The resource's logical id, where not the provider's own: resources of one stack sharing a provider, requests sent at once. */
  readonly LogicalResourceId?: string;
}

/** What the framework answered CloudFormation. */
export interface CfnResponse {
  readonly Status: 'SUCCESS' | 'FAILED';
  readonly Reason: string;
  readonly RequestId: string;
  readonly PhysicalResourceId: string;
  readonly Data?: Record<string, unknown>;
}

export interface Handlers {
  onEvent(event: any, context: LambdaContext): Promise<unknown>;
  /** Present when the deploy waits (waitForCompletion true). */
  isComplete?(event: any, context: LambdaContext): Promise<unknown>;
}

/** The slice of Lambda's context the handlers read: each invocation gets a minute, the run functions' timeout. */
export interface LambdaContext {
  getRemainingTimeInMillis(): number;
}
const INVOCATION_MS = 60_000;
const invocationContext = (): LambdaContext => {
  const end = Date.now() + INVOCATION_MS;
  return { getRemainingTimeInMillis: () => end - Date.now() };
};

// outbound.js loads the Lambda client, which the Lambda runtime provides and this package does not
// install; the calls it makes are replaced below, so an empty module stands in for it.
jest.mock('@aws-sdk/client-lambda', () => ({}), { virtual: true });
const runtime = path.join(path.dirname(require.resolve('aws-cdk-lib')), 'custom-resources', 'lib', 'provider-framework', 'runtime');
const outbound = require(path.join(runtime, 'outbound.js'));
const framework = require(path.join(runtime, 'framework.js'));
const { Retry, CREATE_FAILED_PHYSICAL_ID_MARKER } = require(path.join(runtime, 'cfn-response.js'));
export { CREATE_FAILED_PHYSICAL_ID_MARKER };

const ON_EVENT_ARN = 'arn:aws:lambda:us-east-1:123456789012:function:seed-onEvent';
const IS_COMPLETE_ARN = 'arn:aws:lambda:us-east-1:123456789012:function:seed-isComplete';
const STACK_ID = 'arn:aws:cloudformation:us-east-1:123456789012:stack/Test/11111111-2222-3333-4444-555555555555';

const pause = () => new Promise((r) => setTimeout(r, 100));

/** The framework's waiter for one request: each poll invokes isComplete once, as the waiter state machine does. */
export class Waiter {
  constructor(private readonly provider: ProviderFramework, private readonly input: string) {}

  /** One poll: the answer CloudFormation got, or undefined when isComplete said "not yet" (the waiter retries). */
  async poll(): Promise<CfnResponse | undefined> {
    const answered = this.provider.responses.length;
    const input = JSON.parse(this.input);
    try {
      await this.provider.run(() => framework.isComplete(input));
    } catch (error) {
      if (error instanceof Retry) return undefined;
      throw error;
    }
    return this.provider.answerTo(input.RequestId, answered);
  }

  /** Polls until the request is answered, at most `polls` times, with `between` between polls (the waiter's interval). */
  async answer(polls = 50, between: () => unknown = pause): Promise<CfnResponse> {
    for (let i = 0; i < polls; i++) {
      const response = await this.poll();
      if (response) return response;
      await between();
    }
    throw new Error(`the waiter got no answer in ${polls} polls`);
  }
}

export class ProviderFramework {
  /** Every answer sent to CloudFormation, in order. */
  public readonly responses: CfnResponse[] = [];
  /** How often each handler was invoked. */
  public readonly invocations = { onEvent: 0, isComplete: 0 };

  constructor(private readonly handlers: Handlers, private readonly logicalResourceId = 'SeedRun', private readonly stackId = STACK_ID) {}

  /**
   * CloudFormation sends `request` to the framework's onEvent. Without isComplete the answer is sent
   * at once; with it, the framework starts its waiter, returned for the test to poll (and to abandon,
   * as CloudFormation does when another resource fails meanwhile).
   */
  async send(request: CfnRequest): Promise<{ response?: CfnResponse; waiter?: Waiter }> {
    const answered = this.responses.length;
    let waiterInput: string | undefined;
    this.waiterStarts.set(request.RequestId, (input) => { waiterInput = input; });
    try {
      await this.run(() => framework.onEvent({
      ...request,
      StackId: this.stackId,
      LogicalResourceId: request.LogicalResourceId ?? this.logicalResourceId,
      ResourceType: 'Custom::Seed',
      ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:framework-onEvent',
      ResponseURL: 'https://127.0.0.1/cloudformation-response',
      }));
    } finally {
      this.waiterStarts.delete(request.RequestId);
    }
    if (waiterInput !== undefined) return { waiter: new Waiter(this, waiterInput) };
    return { response: this.answerTo(request.RequestId, answered) };
  }

  /**
   * The answer to `requestId` sent since `answered` answers: found by its request, since requests
   * delivered at once (parallel Creates on one provider) are answered in any order.
   */
  answerTo(requestId: string, answered: number): CfnResponse | undefined {
    return this.responses.slice(answered).find((r) => r.RequestId === requestId);
  }

  /** Sends `request` and, when the deploy waits, polls until it is answered (see Waiter.answer). */
  async deliver(request: CfnRequest, between?: () => unknown): Promise<CfnResponse> {
    const { response, waiter } = await this.send(request);
    return response ?? waiter!.answer(undefined, between);
  }

  /**
   * Who hears the waiter start of each request being sent, by its RequestId: requests sent at once
   * (parallel Creates on one provider) share the framework's one outbound startExecution.
   */
  private readonly waiterStarts = new Map<string, (input: string) => void>();

  /** Runs framework code with its outbound calls wired to this provider. */
  async run(block: () => Promise<unknown>): Promise<void> {
    process.env.USER_ON_EVENT_FUNCTION_ARN = ON_EVENT_ARN;
    if (this.handlers.isComplete) process.env.USER_IS_COMPLETE_FUNCTION_ARN = IS_COMPLETE_ARN;
    else delete process.env.USER_IS_COMPLETE_FUNCTION_ARN;
    process.env.WAITER_STATE_MACHINE_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:waiter';
    outbound.invokeFunction = (req: { FunctionName: string; Payload: string }) => this.invoke(req);
    outbound.startExecution = async (req: { input: string }) => {
      const started = this.waiterStarts.get(JSON.parse(req.input).RequestId);
      if (!started) throw new Error('unexpected waiter start');
      started(req.input);
    };
    outbound.httpRequest = async (_options: unknown, body: string) => {
      this.responses.push(JSON.parse(body));
    };
    await block();
  }

  /** Lambda's synchronous Invoke of our handler: its result as the payload, or the error as Lambda reports it. */
  private async invoke(req: { FunctionName: string; Payload: string }) {
    const which = req.FunctionName === IS_COMPLETE_ARN ? 'isComplete' : 'onEvent';
    this.invocations[which]++;
    try {
      const result = await this.handlers[which]!(JSON.parse(req.Payload), invocationContext());
      return { StatusCode: 200, Payload: Buffer.from(JSON.stringify(result ?? null)) };
    } catch (error) {
      const e = error as Error;
      return { StatusCode: 200, FunctionError: 'Unhandled', Payload: Buffer.from(JSON.stringify({ errorType: e.name, errorMessage: e.message, trace: [] })) };
    }
  }
}
