import type { Context } from 'aws-lambda';
import { newResolver } from '../shared/mount-checks/dns-lookup';
import { onEvent as wait, ReadinessEvent } from './custom-resource';
import { describeMountTargets } from './describe-mount-targets';

/**
 * The readiness gate's entry point (Provider framework, onEvent only: it waits within the
 * invocation). DNS goes to the system's resolver, the VPC's, as the clients' lookups will.
 */
const resolver = newResolver();

export const onEvent = (event: ReadinessEvent, context: Context) => wait(event, {
  resolver,
  remainingMs: () => context.getRemainingTimeInMillis(),
  describeMountTargets: (fileSystemId, region, deadline) => describeMountTargets(fileSystemId, region, deadline),
});
