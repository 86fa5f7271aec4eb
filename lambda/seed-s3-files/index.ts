import type { Context } from 'aws-lambda';
import { isComplete as resume, onEvent as start, S3FilesSeedEvent } from './custom-resource';
import { invocationClock } from '../seed/handler/invocation-time';
import { countingFailedRuns } from '../seed/handler/metrics';
import { s3Client } from '../seed/sources/s3-client';

/** The S3FilesSeed Lambda's entry points: its custom resource's onEvent and isComplete. */
const s3 = s3Client();

/** A request's invocation ends at the function's timeout or the seed's own, whichever comes first. */
const requestDeps = (event: S3FilesSeedEvent, context: Context) => ({ s3, remainingMs: invocationClock(context, event?.ResourceProperties) });

export const onEvent = (event: S3FilesSeedEvent, context: Context) => countingFailedRuns(event, () => start(event, requestDeps(event, context)));
export const isComplete = (event: S3FilesSeedEvent, context: Context) => countingFailedRuns(event, () => resume(event, requestDeps(event, context)));
