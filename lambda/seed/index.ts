import type { Context } from 'aws-lambda';
import { copyBatch as copy, BatchEvent } from './batch-worker';
import { isComplete as resume, onEvent as start } from './custom-resource';
import { countingFailedRuns } from './metrics';
import type { SeedEvent } from './seed-event';
import { s3Client } from './sources/s3-client';

/** The seed Lambda's entry points: the custom resource (onEvent, isComplete) and the batch worker. */
const s3 = s3Client();

const deps = (context: Context) => ({ s3, remainingMs: () => context.getRemainingTimeInMillis() });

export const onEvent = (event: SeedEvent, context: Context) => countingFailedRuns(event, () => start(event, deps(context)));
export const isComplete = (event: SeedEvent, context: Context) => countingFailedRuns(event, () => resume(event, deps(context)));
export const copyBatch = (event: BatchEvent, context: Context) => copy(event, deps(context));
