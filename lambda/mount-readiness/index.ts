import type { Context } from 'aws-lambda';
import { newResolver } from '../shared/mount-checks/dns-lookup';
import { isComplete as poll, onEvent as start, ReadinessEvent, ReadinessHandlerDeps } from './custom-resource';
import { describeMountTargets } from './describe-mount-targets';

/**
 * The readiness gate's entry points (Provider framework: onEvent, isComplete). DNS goes to the
 * system's resolver, the VPC's, as the clients' lookups will.
 */
const resolver = newResolver();

const deps = (context: Context): ReadinessHandlerDeps => ({
  resolver,
  remainingMs: () => context.getRemainingTimeInMillis(),
  describeMountTargets: (fileSystemId, region) => describeMountTargets(fileSystemId, region),
});

export const onEvent = (event: ReadinessEvent, context: Context) => start(event, deps(context));
export const isComplete = (event: ReadinessEvent, context: Context) => poll(event, deps(context));
