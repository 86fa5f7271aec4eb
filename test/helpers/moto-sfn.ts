import { DescribeExecutionCommand, GetExecutionHistoryCommand, SFNClient } from '@aws-sdk/client-sfn';

/**
 * moto's Step Functions, in its executing mode, runs an execution's program in a worker thread that
 * StartExecution only launches. A StopExecution that arrives before that thread has started the
 * program is lost (the execution then runs on), and one that arrives after takes effect when the
 * thread notices; AWS stops an execution before StopExecution returns. These wait for moto, so that
 * a test's next request meets what AWS would show. The bounds are generous: they only guard against
 * a hang.
 */

const BOUND_MS = 30_000;
const pause = () => new Promise((r) => setTimeout(r, 20));

/** Waits until moto's worker runs the execution's program (its history has an event past ExecutionStarted). */
export async function untilMotoRuns(client: SFNClient, executionArn: string): Promise<void> {
  const deadline = Date.now() + BOUND_MS;
  while (Date.now() < deadline) {
    const history = await client.send(new GetExecutionHistoryCommand({ executionArn }));
    if ((history.events ?? []).length > 1) return;
    await pause();
  }
  throw new Error(`moto never ran ${executionArn}`);
}

/** The statuses `read` returns once they equal `expected`, or, past the bound, whatever they are then. */
export async function settledStatuses(read: () => Promise<Array<string | undefined>>, expected: string[]): Promise<Array<string | undefined>> {
  const deadline = Date.now() + BOUND_MS;
  let now = await read();
  while (JSON.stringify(now) !== JSON.stringify(expected) && Date.now() < deadline) {
    await pause();
    now = await read();
  }
  return now;
}

/** An execution's status once it is `expected` (see settledStatuses). */
export async function settledStatus(client: SFNClient, executionArn: string, expected: string): Promise<string | undefined> {
  const [status] = await settledStatuses(async () => [(await client.send(new DescribeExecutionCommand({ executionArn }))).status], [expected]);
  return status;
}
