import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { S3Attempts } from '../seed/sources/s3-retry';
import type { BucketTarget } from '../seed-bucket/bucket-target';
import { deleteEveryVersion } from '../seed-bucket/version-deletion';
import { S3_FILES_SEED_CLAIM_NAME } from '../../lib/seed/contract/s3-files-seed-properties';

/**
 * Which request of which resource a place (a key prefix of the file system's bucket) is for, kept
 * beside the manifest at `<prefix>.cdk-efs-kit/claim.json`, as the EFS seed keeps its claim in the
 * place's state directory. A newer request (another deploy, CloudFormation's rollback, a Delete)
 * takes the claim, and an older request's run stops at its next look (every 10 s). A Delete releases
 * the claim, so that another resource may take the place. Anyone who can write the bucket can write
 * the claim: it decides whose run goes on and whose Delete may remove, never what is deleted (only
 * objects the manifest records, still as written).
 */
export interface Claim {
  readonly request: string;
  /** The resource's identity (lambda/seed/handler/resource-identity.ts). */
  readonly resource: string;
  readonly released?: boolean;
  /** The resource of this stack this one took the place over from (a renamed construct), for a rollback to give it back. */
  readonly previous?: string;
}

const MAX_CLAIM_BYTES = 16 * 1024;

export class PlaceClaim {
  constructor(private readonly client: S3Client, private readonly target: BucketTarget) {}

  private get key(): string {
    return this.target.prefix + S3_FILES_SEED_CLAIM_NAME;
  }

  /**
   * The claim, or undefined where there is none or it is not of the expected shape (anyone may have
   * written it), with the ETag a conditional write of the next claim names. Listed before it is
   * read: a GET of a missing key is answered 403, not 404, without s3:ListBucket on the whole bucket.
   */
  async read(): Promise<{ claim?: Claim; etag?: string }> {
    const listing = await new S3Attempts(`listing s3://${this.target.bucket}/${this.key}`).run(() => this.client.send(new ListObjectsV2Command({
      Bucket: this.target.bucket, Prefix: this.key, MaxKeys: 1,
    })));
    if (listing.Contents?.[0]?.Key !== this.key) return {};
    let text: string;
    let etag: string | undefined;
    try {
      text = await new S3Attempts(`GET s3://${this.target.bucket}/${this.key}`).run(async () => {
        const answer = await this.client.send(new GetObjectCommand({ Bucket: this.target.bucket, Key: this.key, Range: `bytes=0-${MAX_CLAIM_BYTES - 1}` }));
        etag = answer.ETag;
        return answer.Body!.transformToString();
      });
    } catch (err) {
      const e = err as { name?: string; cause?: { name?: string } };
      if ((e.cause ?? e).name === 'NoSuchKey') return {};
      throw err;
    }
    return { claim: parseClaim(text), etag };
  }

  /** The claim, if the place has one. */
  async current(): Promise<Claim | undefined> {
    return (await this.read()).claim;
  }

  /**
   * Writes the claim; with `etag` (from `read`, undefined where there was no claim), only if the
   * claim is still the one read: false when another request wrote it meanwhile.
   */
  async write(claim: Claim, etag?: string | null): Promise<boolean> {
    const condition = etag === null ? {} : etag ? { IfMatch: etag } : { IfNoneMatch: '*' };
    try {
      await new S3Attempts(`PUT s3://${this.target.bucket}/${this.key}`).run(() => this.client.send(new PutObjectCommand({
        Bucket: this.target.bucket, Key: this.key, Body: JSON.stringify(claim), ContentType: 'application/json', ...condition,
      })));
      return true;
    } catch (err) {
      if ([409, 412].includes((err as { cause?: { $metadata?: { httpStatusCode?: number } } }).cause?.$metadata?.httpStatusCode ?? 0)) return false;
      throw err;
    }
  }

  /** Deletes every version of the claim (after removeOnDelete removed what the seed wrote: nothing of the seed's is left). */
  async remove(): Promise<void> {
    const refused = await deleteEveryVersion(this.client, this.target.bucket, this.key);
    if (refused.size > 0) throw new Error(`the claim ${this.key} could not be deleted: ${[...refused.values()][0]}`);
  }

  /** Whether the place is still claimed for `request` (a released claim is nobody's). */
  async heldFor(request: string): Promise<boolean> {
    const claim = await this.current();
    return claim !== undefined && !claim.released && claim.request === request;
  }
}

function parseClaim(text: string): Claim | undefined {
  try {
    const c = JSON.parse(text) as Partial<Record<keyof Claim, unknown>>;
    if (typeof c.request !== 'string' || typeof c.resource !== 'string') return undefined;
    return {
      request: c.request, resource: c.resource,
      ...c.released === true ? { released: true } : {},
      ...typeof c.previous === 'string' ? { previous: c.previous } : {},
    };
  } catch {
    return undefined;
  }
}
