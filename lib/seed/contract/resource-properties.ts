import { isNormalEntryPath } from './entry-path';
import { MAX_CONCURRENCY } from './limits';

/**
 * The contract between the FileSystemSeed construct (lib/seed/file-system-seed.ts), which writes these
 * ResourceProperties into the template, and the seed handler, which reads them. CloudFormation
 * passes every value as a string.
 *
 * Both ends check them with `seedPropertyProblems`: the construct at synth time, and the handler and
 * the batch worker on every request, because the handler is the trust boundary: a hand-edited
 * template or a direct invocation reaches it without the construct.
 */
export interface SeedResourceProperties {
  /** Where the source lives: a bucket, and a key (archive) or prefix (objects). */
  readonly Bucket: string;
  readonly Key: string;
  /** How to read it: one of SEED_FORMATS (SeedSourceFormat's values). */
  readonly Format: SeedFormat;
  /** Changes exactly when the source changes; an Update with the same fingerprint does no work. */
  readonly Fingerprint: string;
  /** The access point's mount path in the Lambda, e.g. '/mnt/seed'. */
  readonly MountPath: string;
  /**
   * The file system and the access point the seed writes through: with the target path, the place
   * the seed owns (its physical id), so that a new access point or a replaced file system is a new
   * place, seeded anew. Absent from resources of versions before they were passed.
   */
  readonly FileSystemId?: string;
  readonly AccessPointId?: string;
  /** Directory under the mount path to fill, relative, '' for the mount root. */
  readonly TargetSubPath: string;
  /** Writer pool size, '1'..'1024'. */
  readonly Concurrency: string;
  /**
   * Seconds each invocation of the single-function engine may run (the seed's `timeout`), from
   * MIN_INVOCATION_TIMEOUT_SECONDS to MAX_INVOCATION_TIMEOUT_SECONDS: its slice stops within them,
   * whatever the shared function's own timeout (the largest its seeds ask). Absent from resources of
   * versions before it was passed, and from the Distributed Map's batches: the function's timeout then.
   */
  readonly InvocationTimeoutSeconds?: string;
  /** 'true' to delete files the source no longer has (only files an earlier seed wrote). */
  readonly Prune: string;
  /** 'true' to remove what the seed wrote when the resource is deleted. */
  readonly RemoveOnDelete: string;
  /** The `Seed` dimension of the seed's metrics (the construct's path), stable across runs. */
  readonly MetricsName?: string;
  /** 'true' when a Distributed Map reads an S3 Inventory report, whose CSV keys are URL-encoded. */
  readonly KeysUrlEncoded?: string;
  /** Archive limits (archive sources only), as integers. */
  readonly MaxMemberBytes?: string;
  readonly MaxTotalBytes?: string;
  readonly MaxEntries?: string;
  readonly MaxCompressionRatio?: string;
}

/** A slice stops starting files a minute before its invocation's end (lambda/seed/handler/slice-deadline.ts): an invocation must be longer. */
export const MIN_INVOCATION_TIMEOUT_SECONDS = 120;
/** Lambda's longest timeout. */
export const MAX_INVOCATION_TIMEOUT_SECONDS = 900;

/** Lambda mounts a file system at /mnt/<name>, and nowhere else: a name, never '.' or '..' (/mnt/.. is the root). */
export const LAMBDA_MOUNT_PATH = /^\/mnt\/(?!\.\.?$)[A-Za-z0-9._-]+$/;
/** How the seed reads its source: the values of SeedSourceFormat, and of the handler's SourceFormat beside a local directory. */
export const SEED_FORMATS = ['s3-objects', 'zip', 'tar', 'tar.gz'] as const;
export type SeedFormat = (typeof SEED_FORMATS)[number];

/** Why `subPath` cannot name a directory under the mount path, or undefined if it can. */
export function targetSubPathProblem(subPath: string): string | undefined {
  if (subPath === '' || isNormalEntryPath(subPath)) return undefined;
  return "must be a relative path under the mount path, without empty, '.' or '..' parts or names starting with .cdk-efs-kit";
}

const isFlag = (value: unknown) => value === 'true' || value === 'false';
export const isCount = (value: unknown, max = Number.MAX_SAFE_INTEGER) => typeof value === 'string' && /^[1-9]\d*$/.test(value) && Number(value) <= max;

/** Records a problem with property `name` unless `ok` holds for its value, it resolves only at deploy time, or it is optional and absent. */
export type NeedProperty<K extends string> = (name: K, ok: (value: unknown) => boolean, problem: string, optional?: boolean) => void;

/**
 * What is wrong with `props`, one line each (empty when they are sound), as `check` finds it with
 * `need`. `isToken` says which values are resolved only at deploy time (the construct skips those;
 * the handler sees them resolved).
 */
export function propertyProblems<K extends string>(props: Partial<Record<K, unknown>>, isToken: (value: unknown) => boolean,
  check: (need: NeedProperty<K>, problems: string[]) => void): string[] {
  const problems: string[] = [];
  check((name, ok, problem, optional = false) => {
    const value = props[name];
    if ((optional && value === undefined) || isToken(value) || ok(value)) return;
    problems.push(`${name} ${problem}, got ${JSON.stringify(value)}`);
  }, problems);
  return problems;
}

/** The properties every seed resource holds alike, EFS and S3 Files: the source, the mount path, the run's settings, the archive limits. */
export type SharedSeedProperty = 'Bucket' | 'Key' | 'Format' | 'Fingerprint' | 'MountPath' | 'Concurrency' | 'InvocationTimeoutSeconds' | 'Prune' | 'RemoveOnDelete'
| 'MaxMemberBytes' | 'MaxTotalBytes' | 'MaxEntries' | 'MaxCompressionRatio';

/** The problems of the properties every seed resource holds alike. */
export function sharedSeedProblems(props: Partial<Record<SharedSeedProperty, unknown>>, need: NeedProperty<SharedSeedProperty>, problems: string[]): void {
  const text = (value: unknown) => typeof value === 'string' && value !== '';
  need('Bucket', text, 'must be a bucket name');
  need('Key', (v) => typeof v === 'string', 'must be an S3 key or prefix');
  need('Format', (v) => (SEED_FORMATS as readonly unknown[]).includes(v), `must be one of ${SEED_FORMATS.join(', ')}`);
  need('Fingerprint', text, 'must be a non-empty string');
  need('MountPath', (v) => typeof v === 'string' && LAMBDA_MOUNT_PATH.test(v), 'must be /mnt/<name>');
  need('Concurrency', (v) => isCount(v, MAX_CONCURRENCY), `must be an integer from 1 to ${MAX_CONCURRENCY}`);
  need('InvocationTimeoutSeconds', (v) => isCount(v, MAX_INVOCATION_TIMEOUT_SECONDS) && Number(v) >= MIN_INVOCATION_TIMEOUT_SECONDS,
    `must be a whole number of seconds from ${MIN_INVOCATION_TIMEOUT_SECONDS} to ${MAX_INVOCATION_TIMEOUT_SECONDS}`, true);
  need('Prune', isFlag, "must be 'true' or 'false'");
  need('RemoveOnDelete', isFlag, "must be 'true' or 'false'");
  for (const limit of ['MaxMemberBytes', 'MaxTotalBytes', 'MaxEntries', 'MaxCompressionRatio'] as const) {
    need(limit, (v) => isCount(v), 'must be a positive integer', true);
    if (props[limit] !== undefined && props.Format === 's3-objects') problems.push(`${limit} applies to archive sources only, not to Format s3-objects`);
  }
}

/**
 * What is wrong with the properties, one line each; empty when they are sound. `isToken` says which
 * values are resolved only at deploy time (the construct skips those; the handler sees them resolved).
 */
export function seedPropertyProblems(props: Partial<Record<keyof SeedResourceProperties, unknown>>, isToken: (value: unknown) => boolean = () => false): string[] {
  return propertyProblems<keyof SeedResourceProperties>(props, isToken, (need, problems) => {
    sharedSeedProblems(props, need, problems);
    need('TargetSubPath', (v) => typeof v === 'string' && targetSubPathProblem(v) === undefined, targetSubPathProblem('..')!);
    need('KeysUrlEncoded', isFlag, "must be 'true' or 'false'", true);
    need('FileSystemId', (v) => typeof v === 'string' && /^fs-[0-9a-f]+$/.test(v), 'must be a file system id (fs-...)', true);
    need('AccessPointId', (v) => typeof v === 'string' && /^fsap-[0-9a-f]+$/.test(v), 'must be an access point id (fsap-...)', true);
  });
}

/** The properties, checked: throws one error that lists every problem. */
export function checkSeedProperties(props: unknown): SeedResourceProperties {
  const problems = props !== null && typeof props === 'object' ? seedPropertyProblems(props) : ['the properties must be an object'];
  if (problems.length > 0) throw new Error(`invalid seed properties: ${problems.join('; ')}`);
  return props as SeedResourceProperties;
}
