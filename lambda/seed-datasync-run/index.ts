import { DataSyncClient } from '@aws-sdk/client-datasync';
import type { Context } from 'aws-lambda';
import { boundedRequests, withinInvocation } from '../shared/aws-call-deadline';
import * as run from './run';

const client = new DataSyncClient({ requestHandler: boundedRequests() });

export const onEvent = (event: run.DataSyncRunEvent, context: Context) =>
  withinInvocation(context, `The DataSync seed's ${event.RequestType}`, () => run.onEvent(event, client));
export const isComplete = (event: run.DataSyncRunEvent, context: Context) =>
  withinInvocation(context, 'The DataSync seed\'s check of its task execution', () => run.isComplete(event, client));
