import { SFNClient } from '@aws-sdk/client-sfn';
import * as run from './run';

const client = new SFNClient({});

export const onEvent = (event: run.DistributedMapRunEvent) => run.onEvent(event, client);
export const isComplete = (event: run.DistributedMapRunEvent) => run.isComplete(event, client);
