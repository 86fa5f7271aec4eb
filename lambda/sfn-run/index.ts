import { SFNClient } from '@aws-sdk/client-sfn';
import * as run from './run';

const client = new SFNClient({});

export const onEvent = (event: run.StateMachineRunEvent) => run.onEvent(event, client);
export const isComplete = (event: run.StateMachineRunEvent) => run.isComplete(event, client);
