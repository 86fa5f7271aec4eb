/**
 * The contract between the FileSystemSeed construct (lib/file-system-seed.ts), which writes these
 * ResourceProperties into the template, and the seed handler, which reads them. CloudFormation
 * passes every value as a string.
 */
export interface SeedResourceProperties {
  /** Where the source lives: a bucket, and a key (archive) or prefix (objects). */
  readonly Bucket: string;
  readonly Key: string;
  /** 's3-objects' | 'zip' | 'tar' | 'tar.gz' */
  readonly Format: string;
  /** Changes exactly when the source changes; an Update with the same fingerprint does no work. */
  readonly Fingerprint: string;
  /** The access point's mount path in the Lambda, e.g. '/mnt/seed'. */
  readonly MountPath: string;
  /** Directory under the mount path to fill, relative, '' for the mount root. */
  readonly TargetSubPath: string;
  /** Writer pool size, '1'..'1024'. */
  readonly Concurrency: string;
  /** 'true' to delete files the source no longer has (only files an earlier seed wrote). */
  readonly Prune: string;
  /** 'true' to remove what the seed wrote when the resource is deleted. */
  readonly RemoveOnDelete: string;
  /** The `Seed` dimension of the seed's metrics (the construct's path), stable across runs. */
  readonly MetricsName?: string;
  /** 'true' when a Distributed Map reads an S3 Inventory report, whose CSV keys are URL-encoded. */
  readonly KeysUrlEncoded?: string;
}
