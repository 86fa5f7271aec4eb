import { MAX_INVOCATION_TIMEOUT_SECONDS, MIN_INVOCATION_TIMEOUT_SECONDS } from '../../../lib/seed/contract/resource-properties';

/** The slice of Lambda's context the clock reads. */
export interface InvocationContext {
  getRemainingTimeInMillis(): number;
}

/**
 * Milliseconds an invocation of a seed's request has left: the function's own, or less where the
 * seed's InvocationTimeoutSeconds (its `timeout`) ends sooner. Seeds share the function, whose
 * timeout is the largest they ask; each one's own bounds its requests, counted from `startedAt`
 * (the invocation's start). Read leniently, as a Delete reads its properties: a value out of bounds
 * leaves the function's own time (a Create or Update fails on it in the property checks anyway).
 */
export function invocationClock(context: InvocationContext, properties: unknown, startedAt = Date.now()): () => number {
  const value = (properties as { InvocationTimeoutSeconds?: unknown } | undefined)?.InvocationTimeoutSeconds;
  const seconds = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(seconds >= MIN_INVOCATION_TIMEOUT_SECONDS && seconds <= MAX_INVOCATION_TIMEOUT_SECONDS)) return () => context.getRemainingTimeInMillis();
  const end = startedAt + seconds * 1000;
  return () => Math.min(context.getRemainingTimeInMillis(), end - Date.now());
}
