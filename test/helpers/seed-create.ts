/**
 * A seed's Create as aws-cdk's Provider framework drives it: onEvent claims the place (and copies
 * nothing), then isComplete copies a slice per call, at most `calls` times, until complete. A
 * failure comes from isComplete. Returns the physical id and the Data of the call that completed
 * (onEvent's when none did).
 */
export async function seedCreate(handler: any, event: object, context: object, calls = 1): Promise<{ PhysicalResourceId: string; Data: Record<string, any> }> {
  const claimed = await handler.onEvent(event, context);
  for (let call = 1; call <= calls; call++) {
    const answer = await handler.isComplete({ ...event, ...claimed }, context);
    if (answer.IsComplete) return { PhysicalResourceId: claimed.PhysicalResourceId, Data: answer.Data ?? claimed.Data };
  }
  return claimed;
}
