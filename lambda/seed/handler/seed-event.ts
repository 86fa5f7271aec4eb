import type { S3Client } from '@aws-sdk/client-s3';
import type { TimeLimitProperties } from '../../../lib/core/contract/deploy-time-limit';
import type { SeedResourceProperties } from '../../../lib/seed/contract/resource-properties';

/** The Provider framework's event, as the seed's onEvent and isComplete (and its Delete) read it. */
export interface SeedEvent {
  readonly RequestType: 'Create' | 'Update' | 'Delete';
  readonly RequestId?: string;
  readonly StackId?: string;
  readonly LogicalResourceId?: string;
  readonly ResourceProperties: SeedResourceProperties & TimeLimitProperties;
  readonly OldResourceProperties?: SeedResourceProperties;
  readonly PhysicalResourceId?: string;
  /**
   * onEvent's Data, seen by isComplete: whether it finished, and when the whole run must be over (ms).
   */
  readonly Data?: { Complete?: string; Deadline?: number };
}

export interface SeedDeps {
  readonly s3: S3Client;
  /** Milliseconds this invocation has left. */
  readonly remainingMs: () => number;
}
