import type { Context } from 'aws-lambda';
import { copyBatch as copy, BatchEvent } from './handler/batch-worker';
import { isComplete as resume, onEvent as start } from './handler/custom-resource';
import { invocationClock } from './handler/invocation-time';
import { countingFailedRuns } from './handler/metrics';
import type { SeedEvent } from './handler/seed-event';
import { s3Client } from './sources/s3-client';

/** The seed Lambda's entry points: the custom resource (onEvent, isComplete) and the batch worker. */
const s3 = s3Client();

/** A request's invocation ends at the function's timeout or the seed's own, whichever comes first. */
const requestDeps = (event: SeedEvent, context: Context) => ({ s3, remainingMs: invocationClock(context, event?.ResourceProperties) });

export const onEvent = (event: SeedEvent, context: Context) => countingFailedRuns(event, () => start(event, requestDeps(event, context)));
export const isComplete = (event: SeedEvent, context: Context) => countingFailedRuns(event, () => resume(event, requestDeps(event, context)));
export const copyBatch = (event: BatchEvent, context: Context) => copy(event, { s3, remainingMs: () => context.getRemainingTimeInMillis() });
