import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { isNormalEntryPath } from '../../lib/seed/contract/entry-path';
import { S3Attempts } from '../seed/sources/s3-retry';
import { BucketTarget, MANIFEST_NAME, manifestKey } from './bucket-target';

/**
 * What a bucket seed wrote, kept in the bucket at `<prefix>.cdk-efs-kit/bucket-manifest.json`: for
 * each file, where its content came from (the source identity: size + mtime, an ETag, a CRC) and
 * the object S3 answered the write with (ETag, version id, size). A later run compares both: with
 * the source, to leave unchanged files alone; with what the bucket holds now, to tell an object the
 * seed wrote and nobody changed from one the application rewrote since (a new version id).
 *
 * The manifest is input like any other: anyone who can write the bucket, or the file system over it,
 * can rewrite it. It is bounded before it is parsed, and an entry that is not a normal relative path
 * or not of the expected shape is ignored (so it can neither name a key outside the prefix nor make
 * the seed delete anything it did not write: deletion also needs the current version to be the one
 * recorded).
 */
export interface ObjectRecord {
  readonly identity: string;
  readonly etag: string;
  /** Undefined in a bucket without versioning ('null' is S3's version id there). */
  readonly versionId?: string;
  readonly size: number;
}

/**
 * The last request that changed the place (a custom resource's Create or Update): the sources it
 * went from and to, and the paths it wrote that no earlier run had. A rollback (an Update back from
 * `to` to `from`) removes those, so the place holds the old content again, prune or not.
 */
export interface RunRecord {
  readonly from?: string;
  readonly to: string;
  readonly added: readonly string[];
}

export interface BucketManifest {
  /** By path relative to the prefix. */
  readonly objects: Map<string, ObjectRecord>;
  readonly lastRun?: RunRecord;
  /** The stored manifest's ETag, or undefined where there is none: the next save is conditional on it. */
  readonly etag?: string;
  /** Entries of the stored manifest that were ignored, and why (reported as warnings). */
  readonly ignored: string[];
}

const VERSION = 1;
/** A manifest larger than this is not read: a record takes about 150 bytes, so some 1.5 million files. */
const MAX_MANIFEST_BYTES = 256 * 1024 * 1024;
const MAX_STRING = 2048;

/**
 * The manifest, where the listing of the prefix (`current`, the manifest included) has it, else an
 * empty one without a request. Asking S3 for a key that may be missing would need s3:ListBucket on
 * the whole bucket to be answered 404 rather than 403, and the seed's is conditioned on its prefix
 * (a GET carries no s3:prefix): the listing, which it may make, says whether the key is there.
 */
export async function readListedManifest(client: S3Client, target: BucketTarget, current: ReadonlyMap<string, unknown>): Promise<BucketManifest> {
  return current.has(MANIFEST_NAME) ? readManifest(client, target) : { objects: new Map(), ignored: [] };
}

/** The manifest under the target's prefix, or an empty one where there is none. Throws, naming it, if it cannot be read. */
async function readManifest(client: S3Client, target: BucketTarget): Promise<BucketManifest> {
  const key = manifestKey(target);
  const what = `GET s3://${target.bucket}/${key}`;
  let text: string;
  let etag: string | undefined;
  try {
    text = await new S3Attempts(what).run(async () => {
      const answer = await client.send(new GetObjectCommand({ Bucket: target.bucket, Key: key }));
      etag = answer.ETag;
      if ((answer.ContentLength ?? 0) > MAX_MANIFEST_BYTES) {
        answer.Body && (answer.Body as { destroy?: () => void }).destroy?.();
        throw Object.assign(new Error(`${key} is ${answer.ContentLength} bytes, more than the ${MAX_MANIFEST_BYTES} a seed reads`), { tooLarge: true });
      }
      return answer.Body!.transformToString();
    });
  } catch (err) {
    type Failure = { name?: string; $metadata?: { httpStatusCode?: number }; tooLarge?: boolean; cause?: Failure };
    const e = err as Failure;
    const cause = e.cause ?? e;
    // Only a missing key means no manifest: a missing bucket (NoSuchBucket, also HTTP 404) is an error.
    if (cause.name === 'NoSuchKey') return { objects: new Map(), ignored: [] };
    if (cause.tooLarge) {
      return { objects: new Map(), etag, ignored: [`${key} is too large to be the seed's: ignored, every file is written again`] };
    }
    throw err;
  }
  return { ...parseManifest(text, key), etag };
}

/** The records of a stored manifest that have the expected shape; anything else is ignored and said. */
function parseManifest(text: string, key: string): BucketManifest {
  const objects = new Map<string, ObjectRecord>();
  const ignored: string[] = [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { objects, ignored: [`${key} is not JSON: ignored, every file is written again and nothing is pruned`] };
  }
  const doc = parsed as { version?: unknown; objects?: unknown; lastRun?: unknown };
  if (typeof doc !== 'object' || doc === null || doc.version !== VERSION || typeof doc.objects !== 'object' || doc.objects === null || Array.isArray(doc.objects)) {
    return { objects, ignored: [`${key} is not a version ${VERSION} bucket seed manifest: ignored, every file is written again and nothing is pruned`] };
  }
  let bad = 0;
  for (const [relative, record] of Object.entries(doc.objects as Record<string, unknown>)) {
    const r = record as Partial<Record<keyof ObjectRecord, unknown>>;
    const ok = isNormalEntryPath(relative) && typeof r === 'object' && r !== null
      && isShortString(r.identity) && isShortString(r.etag) && (r.versionId === undefined || isShortString(r.versionId))
      && Number.isSafeInteger(r.size) && (r.size as number) >= 0;
    if (!ok) {
      bad++;
      continue;
    }
    objects.set(relative, { identity: r.identity as string, etag: r.etag as string, versionId: r.versionId as string | undefined, size: r.size as number });
  }
  if (bad > 0) ignored.push(`${key}: ${bad} entries that are not normal paths or records of the seed's shape were ignored (nothing is deleted for them)`);
  return { objects, ignored, lastRun: parseRunRecord(doc.lastRun, objects) };
}

/** The last run's record, where it has the expected shape; its added paths only where the manifest records them (so only the seed's objects). */
function parseRunRecord(value: unknown, objects: ReadonlyMap<string, ObjectRecord>): RunRecord | undefined {
  const r = value as { from?: unknown; to?: unknown; added?: unknown } | undefined;
  if (typeof r !== 'object' || r === null || !isShortString(r.to) || (r.from !== undefined && !isShortString(r.from)) || !Array.isArray(r.added)) return undefined;
  const added = r.added.filter((path): path is string => typeof path === 'string' && objects.has(path));
  return { from: r.from as string | undefined, to: r.to as string, added };
}

const isShortString = (value: unknown) => typeof value === 'string' && value.length > 0 && value.length <= MAX_STRING;

/** Another run wrote the manifest since this one read (or last wrote) it: this one's save is refused. */
export class ManifestChangedError extends Error {
  constructor(key: string) {
    super(`${key} changed while this run went on (another run of the place wrote it): this run's records are not saved, and the next run goes on from the other's`);
    this.name = 'ManifestChangedError';
  }
}

/**
 * Writes the manifest (one PutObject), only if it is still the one this run knows: the version with
 * `etag`, or none at all (S3's conditional writes, If-Match and If-None-Match). Two runs on one
 * place (a rollback while the forward run finishes its last writes) then never save over each
 * other's records. Returns the new ETag.
 */
export async function writeManifest(client: S3Client, target: BucketTarget, objects: ReadonlyMap<string, ObjectRecord>, lastRun: RunRecord | undefined, etag: string | undefined): Promise<string | undefined> {
  const key = manifestKey(target);
  const sorted = Object.fromEntries([...objects].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const body = JSON.stringify({ version: VERSION, writer: 'cdk-efs-kit bucket seed', objects: sorted, ...lastRun ? { lastRun } : {} });
  try {
    const answer = await new S3Attempts(`PUT s3://${target.bucket}/${key}`).run(() => client.send(new PutObjectCommand({
      Bucket: target.bucket, Key: key, Body: body, ContentType: 'application/json', ...etag ? { IfMatch: etag } : { IfNoneMatch: '*' },
    })));
    return answer.ETag;
  } catch (err) {
    const e = err as { cause?: { name?: string; $metadata?: { httpStatusCode?: number } } };
    // 412: the condition failed; 409: another conditional write to the key was under way (S3's ConditionalRequestConflict).
    if ([409, 412].includes(e.cause?.$metadata?.httpStatusCode ?? 0)) throw new ManifestChangedError(key);
    throw err;
  }
}
