import type { S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'crypto';

/**
 * S3 requests by kind ('PutObject', 'CopyObject', 'UploadPart', ...), counted on the client while a
 * run uses it: every request the run's client sends (multipart parts from lib-storage and the
 * source's own reads too), each attempt of a retried request once. The counter is added to the
 * client's middleware stack under a name of its own and removed when the run ends, so two runs
 * sharing a client count apart only if they do not overlap; nothing is kept outside the run.
 */
export class RequestCounts {
  readonly byKind: Record<string, number> = {};
  private readonly name = `cdk-efs-kit-request-count-${randomBytes(6).toString('hex')}`;

  constructor(private readonly client: S3Client) {
    client.middlewareStack.add((next, context) => async (args) => {
      const kind = (context.commandName ?? 'unknown').replace(/Command$/, '');
      this.byKind[kind] = (this.byKind[kind] ?? 0) + 1;
      return next(args);
    }, { step: 'build', name: this.name });
  }

  stop(): void {
    this.client.middlewareStack.remove(this.name);
  }
}
