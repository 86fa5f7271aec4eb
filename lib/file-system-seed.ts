import { CustomResource, Duration, Size } from 'aws-cdk-lib';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import type { SeedResourceProperties } from '../lambda/seed/resource-properties';
import { handlerCode } from './private/handler-code';
import { DataSyncSeedRun } from './private/datasync-seed-run';
import { check } from './private/validate';
import { SeedEngine, SeedEngineKind } from './seed-engine';
import { SeedSource, SeedSourceFormat } from './seed-source';
import type { SharedFileSystem } from './shared-file-system';

/** What to seed, where, and how: {@link SharedFileSystem.addSeed} takes these. */
export interface SeedOptions {
  /**
   * The access point the seed writes through: files get its POSIX user, and nothing outside its
   * root can be touched.
   */
  readonly accessPoint: efs.IAccessPoint;
  /** What to copy. */
  readonly source: SeedSource;
  /**
   * Directory under the access point's root to fill.
   * @default '/' - the access point's root
   */
  readonly targetPath?: string;
  /**
   * The engine that copies.
   * @default SeedEngine.lambda()
   */
  readonly engine?: SeedEngine;
  /**
   * Parallel file writes (Lambda engine). EFS rewards parallelism across directories; each
   * operation pays a network round trip.
   * @default 64
   */
  readonly concurrency?: number;
  /**
   * Delete files that an earlier seed wrote and the source no longer has. Files the seed did not
   * write are never touched.
   * @default false
   */
  readonly prune?: boolean;
  /**
   * Remove what the seed wrote when this resource is deleted from the stack.
   * @default false - the data stays on the file system
   */
  readonly removeOnDelete?: boolean;
}

/** Properties of a {@link FileSystemSeed}. */
export interface FileSystemSeedProps extends SeedOptions {
  /** The file system to fill. */
  readonly fileSystem: SharedFileSystem;
}

const SEED_MOUNT_PATH = '/mnt/seed';

/**
 * Fills an EFS file system at deploy time, before anything that depends on it starts: from a local
 * directory or archive (as a CDK asset), an S3 prefix or an S3 archive; incremental, atomic per
 * file, and resumable. `service.node.addDependency(seed)` starts a service only once its content is there.
 */
export class FileSystemSeed extends Construct {
  /** The seed function (Lambda engine only). */
  public readonly function?: lambda.Function;
  /** The custom resource whose completion means the content is in place. */
  public readonly resource: CustomResource;

  constructor(scope: Construct, id: string, props: FileSystemSeedProps) {
    super(scope, id);
    const where = `FileSystemSeed(${this.node.path})`;
    const targetPath = props.targetPath ?? '/';
    const concurrency = props.concurrency ?? 64;
    check(/^\/([^/\0]+\/?)*$/.test(targetPath) && !targetPath.split('/').some((p) => p === '..' || p === '.'),
      where, 'targetPath', targetPath, "must be an absolute path under the access point's root, without '.' or '..' parts");
    check(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 1024, where, 'concurrency', concurrency, 'must be an integer from 1 to 1024');

    const engine = props.engine ?? SeedEngine.lambda();
    const source = props.source._bind(this);
    const subPath = targetPath.replace(/^\/+|\/+$/g, '');

    if (engine.kind === SeedEngineKind.DATASYNC) {
      if (source.format !== SeedSourceFormat.S3_OBJECTS) {
        throw new Error(`${where}: SeedEngine.dataSync() copies S3 objects as they are and cannot extract archives; use SeedSource.s3(bucket, prefix), or SeedEngine.lambda() for ${source.format} sources.`);
      }
      const run = new DataSyncSeedRun(this, 'DataSync', {
        ...engine.dataSyncOptions,
        fileSystem: props.fileSystem,
        accessPoint: props.accessPoint,
        vpc: props.fileSystem.vpc,
        subnet: props.fileSystem.mountTargetSubnets.subnets[0],
        bucket: source.bucket,
        prefix: source.key,
        subdirectory: `/${subPath}`,
        trigger: source.fingerprint,
        removeDeletedFiles: engine.dataSyncOptions?.removeDeletedFiles ?? props.prune,
      });
      this.resource = run.node.findChild('Run') as CustomResource;
    } else {
      const seedFunction = (id: string, handler: string) => {
        const options = engine.lambdaOptions ?? {};
        const fn = new lambda.Function(this, id, {
          runtime: lambda.Runtime.NODEJS_22_X,
          code: handlerCode('seed'),
          handler,
          memorySize: (options.memorySize ?? Size.mebibytes(2048)).toMebibytes(),
          timeout: options.timeout ?? Duration.minutes(15),
          vpc: props.fileSystem.vpc,
          vpcSubnets: { subnets: props.fileSystem.mountTargetSubnets.subnets },
          description: `cdk-efs-kit seed ${this.node.path}`,
        });
        props.fileSystem.mountOnLambda(fn, props.accessPoint, { mountPath: SEED_MOUNT_PATH, threadPoolSize: concurrency });
        source.grantRead(fn);
        return fn;
      };
      // onEvent starts the copy and isComplete resumes it from its checkpoint until it is done.
      this.function = seedFunction('Function', 'index.onEvent');
      const isComplete = seedFunction('ResumeFunction', 'index.isComplete');

      const provider = new cr.Provider(this, 'Provider', {
        onEventHandler: this.function,
        isCompleteHandler: isComplete,
        queryInterval: Duration.seconds(10),
        // CloudFormation waits at most one hour for a custom resource.
        totalTimeout: Duration.hours(1),
      });
      const properties: SeedResourceProperties = {
        Bucket: source.bucket.bucketName,
        Key: source.key,
        Format: source.format,
        Fingerprint: source.fingerprint,
        MountPath: SEED_MOUNT_PATH,
        TargetSubPath: subPath,
        Concurrency: String(concurrency),
        Prune: String(props.prune ?? false),
        RemoveOnDelete: String(props.removeOnDelete ?? false),
      };
      this.resource = new CustomResource(this, 'Resource', {
        serviceToken: provider.serviceToken,
        resourceType: 'Custom::CdkEfsKitSeed',
        properties: { ...properties },
      });
    }
  }
}
