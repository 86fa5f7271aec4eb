/**
 * Deadlines for the handlers' AWS API calls. The SDK sets no request timeout by default, so a
 * stalled endpoint holds a call until Lambda kills the invocation, and CloudFormation then hears
 * only "Task timed out". Every client here ends each request, and every invocation answers with its
 * own message before its time runs out.
 */

/** One request (connection, answer, idle socket) waits at most this long; the SDK retries it. */
export const REQUEST_TIMEOUT_MS = 10_000;

/** The `requestHandler` options of a client whose requests end. */
export function boundedRequests(timeoutMs: number = REQUEST_TIMEOUT_MS) {
  // Without throwOnRequestTimeout the SDK only logs a warning and waits on.
  return { connectionTimeout: timeoutMs, requestTimeout: timeoutMs, socketTimeout: timeoutMs, throwOnRequestTimeout: true };
}

/** Thrown when an AWS call is still unanswered at its deadline. */
export class AwsCallDeadlineError extends Error {}

/**
 * Runs `call` (which passes the signal to `client.send(command, { abortSignal })`), aborting it at
 * `deadline` (ms since the epoch) and rejecting with a message naming `what`.
 */
export async function callBefore<T>(deadline: number, what: string, call: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new AwsCallDeadlineError(`${what} did not answer in time`));
    }, Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([call(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** The slice of Lambda's context an invocation's deadline needs. */
export interface InvocationClock {
  getRemainingTimeInMillis(): number;
}

/** Time an invocation keeps after its work gives up: the error's way back through the framework. */
export const ANSWER_MARGIN_MS = 5_000;

/**
 * Runs an invocation's work and, should an AWS call hold it until the invocation's time is nearly
 * out, fails with `what` and the reason instead of letting Lambda kill it silently.
 */
export async function withinInvocation<T>(clock: InvocationClock, what: string, work: () => Promise<T>): Promise<T> {
  const seconds = Math.round((clock.getRemainingTimeInMillis() - ANSWER_MARGIN_MS) / 1000);
  const deadline = Date.now() + clock.getRemainingTimeInMillis() - ANSWER_MARGIN_MS;
  try {
    return await callBefore(deadline, what, () => work());
  } catch (err) {
    if (!(err instanceof AwsCallDeadlineError)) throw err;
    throw new Error(`${what} did not finish within the ${seconds} s this invocation had: an AWS API call was still unanswered (each request waits at most ${REQUEST_TIMEOUT_MS / 1000} s and is retried).`);
  }
}
