import { SFNClient } from '@aws-sdk/client-sfn';
import type { Context } from 'aws-lambda';
import { boundedRequests, withinInvocation } from '../shared/aws-call-deadline';
import * as run from './run';

const client = new SFNClient({ requestHandler: boundedRequests() });

export const onEvent = (event: run.DistributedMapRunEvent, context: Context) =>
  withinInvocation(context, `The Distributed Map seed's ${event.RequestType}`, () => run.onEvent(event, client));
export const isComplete = (event: run.DistributedMapRunEvent, context: Context) =>
  withinInvocation(context, 'The Distributed Map seed\'s check of its execution', () => run.isComplete(event, client));
