import { DataSyncClient } from '@aws-sdk/client-datasync';
import * as run from './run';

const client = new DataSyncClient({});

export const onEvent = (event: run.DataSyncRunEvent) => run.onEvent(event, client);
export const isComplete = (event: run.DataSyncRunEvent) => run.isComplete(event, client);
