import { CustomResource, Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { CLOUDFORMATION_ROUTE, functionSize, S3_ROUTE } from './engine-requirements';
import { LargestAsked } from './largest-asked';
import { seedFunctionNetwork, seedFunctionPlacement } from './seed-function-placement';
import { resourceIdVia, sharedSeedProvider } from './shared-seed-provider';
import { handlerCode } from '../../core/handler-code';
import { acknowledgeWildcard, nagResource } from '../../core/nag';
import { requireRoute, RouteNeed } from '../../core/service-route';
import { check } from '../../core/validate';
import { IS3FilesAccessPoint, S3FilesAccessPoint } from '../../s3-files/s3-files-access-point';
import type { IS3FilesFileSystem } from '../../s3-files/s3-files-file-system-base';
import { DirectS3Read } from '../../s3-files/s3-files-mount-options';
import { MAX_INVOCATION_TIMEOUT_SECONDS, MIN_INVOCATION_TIMEOUT_SECONDS } from '../contract/resource-properties';
import { S3_FILES_SEED_CLAIM_NAME } from '../contract/s3-files-seed-properties';
import type { S3FilesSeedProps } from '../s3-files-seed';
import type { SeedEngine } from '../seed-engine';
import { grantOwnStackRead, grantSourceRead } from '../seed-grants';
import type { SeedSourceConfig } from '../seed-source';

/** Where the seed functions mount the file system (its root, or the seed's access point). */
export const S3_FILES_SEED_MOUNT_PATH = '/mnt/seed';

const S3_FILES_S3_ROUTE: RouteNeed = { ...S3_ROUTE, does: 'read the source from S3 (and, through the bucket, write the file system\'s objects)' };

/** How the functions of one of the two S3 Files paths are built, mount, and are granted. */
interface SeedPath {
  /** The shared provider's kind, and what else its functions are built from. */
  readonly kind: string;
  readonly key: Record<string, string>;
  readonly handler: string;
  readonly description: string;
  /** Mounts the file system on a new function of the provider (`scope`); the thread pool is the largest its seeds ask. */
  mount(scope: Construct, fn: lambda.Function, threadPoolSize: number): void;
  /** This seed's grants on a function of the provider. */
  grant(fn: lambda.Function): void;
  readonly resourceType: string;
  readonly properties: Record<string, string>;
}

interface SharedAsks {
  readonly timeoutSeconds: LargestAsked;
  readonly threadPoolSize: LargestAsked;
}

const asks = new WeakMap<Construct, SharedAsks>();

/**
 * Through the bucket: the file system's root, mounted read only through an access point of the
 * functions' own (to see the seeded files as clients will); writes, lists and deletes (exact
 * versions) under the seed's key prefix only.
 */
export function bucketPath(files: IS3FilesFileSystem, keyPrefix: string, properties: Record<string, string>): SeedPath {
  return {
    kind: 'S3Files',
    key: {},
    handler: 'seed-s3-files',
    description: `cdk-efs-kit S3 Files seed handler for the seeds through the bucket of ${files.node.path}`,
    mount: (scope, fn) => {
      const accessPoint = (scope.node.tryFindChild('VisibilityAccessPoint') as S3FilesAccessPoint | undefined)
        ?? new S3FilesAccessPoint(scope, 'VisibilityAccessPoint', { fileSystem: files });
      // Looks files up (never reads their data, never writes) and cannot wait for the seeds it runs.
      files.mountOnLambda(fn, accessPoint, { mountPath: S3_FILES_SEED_MOUNT_PATH, readOnly: true, waitForSeeds: false, directS3Read: DirectS3Read.DISABLED });
    },
    grant: (fn) => (properties.CopiedBy === 'dataSync' ? grantClaim(fn, files, keyPrefix) : grantPlace(fn, files, keyPrefix)),
    resourceType: 'Custom::CdkEfsKitS3FilesSeed',
    properties,
  };
}

/**
 * Through the mount: the EFS seed's handler (lambda/seed) on the seed's S3 Files access point, read
 * and write, so that files get the access point's POSIX user and the source's modes; S3 Files
 * exports them to the bucket.
 */
export function mountPath(files: IS3FilesFileSystem, accessPoint: IS3FilesAccessPoint, properties: Record<string, string>): SeedPath {
  return {
    kind: 'S3FilesMount',
    key: { accessPoint: accessPoint.node.path },
    handler: 'seed',
    description: `cdk-efs-kit seed handler for the seeds through ${accessPoint.node.path}`,
    // Writes, and reads back only what it wrote: no direct reads from the bucket, so no grant on it.
    mount: (_scope, fn, threadPoolSize) => files.mountOnLambda(fn, accessPoint, { mountPath: S3_FILES_SEED_MOUNT_PATH, threadPoolSize, waitForSeeds: false, directS3Read: DirectS3Read.DISABLED }),
    // A Delete with removeOnDelete reads which seeds of its stack are live, as on EFS.
    grant: (fn) => grantOwnStackRead(fn),
    resourceType: 'Custom::CdkEfsKitSeed',
    properties,
  };
}

/**
 * The seed's custom resource on the stack's S3 Files seed functions (onEvent and its resume
 * function), shared by the seeds of one path with the same file system (and access point), size
 * and subnets, as the EFS single-function engine shares its own: each seed's settings travel in
 * its properties, so changing them changes no ServiceToken.
 */
export function s3FilesSeedFunctions(seed: Construct, where: string, props: S3FilesSeedProps, engine: SeedEngine, source: SeedSourceConfig, path: SeedPath):
{ function: lambda.Function; resource: CustomResource } {
  const files = props.fileSystem;
  const options = engine.singleFunctionOptions ?? {};
  const timeout = options.timeout ?? Duration.minutes(15);
  check(timeout.toSeconds() >= MIN_INVOCATION_TIMEOUT_SECONDS && timeout.toSeconds() <= MAX_INVOCATION_TIMEOUT_SECONDS, where, 'timeout', `${timeout.toSeconds()} s`,
    `must be from ${MIN_INVOCATION_TIMEOUT_SECONDS / 60} to ${MAX_INVOCATION_TIMEOUT_SECONDS / 60} minutes (each invocation stops starting files a minute before its end; Lambda's most is 15)`, seed);
  const placement = seedFunctionPlacement({ seed, where, props });
  const size = functionSize({ seed, where, engine: String(engine) }, options);
  const fresh: SharedAsks = { timeoutSeconds: new LargestAsked(), threadPoolSize: new LargestAsked() };
  const handlers = sharedSeedProvider(seed, {
    kind: path.kind,
    key: { fileSystem: files.node.path, ...path.key, memoryMiB: size.memorySize, ...size.environment, ...placement.key === undefined ? {} : { subnets: placement.key } },
    newFunction: (scope, id, handler) => {
      const fn = new lambda.Function(scope, id, {
        runtime: lambda.Runtime.NODEJS_22_X,
        code: handlerCode(path.handler),
        handler,
        ...size,
        timeout: Duration.seconds(fresh.timeoutSeconds.value),
        ...seedFunctionNetwork(scope, `${id}SecurityGroup`, files.vpc, placement, path.description),
        description: path.description,
      });
      path.mount(scope, fn, fresh.threadPoolSize.value);
      return fn;
    },
    onEventId: 'Function',
    isCompleteId: 'ResumeFunction',
    queryInterval: Duration.seconds(10),
  });
  if (!asks.has(handlers)) asks.set(handlers, fresh);
  asks.get(handlers)!.timeoutSeconds.ask(timeout.toSeconds());
  asks.get(handlers)!.threadPoolSize.ask(Number(path.properties.Concurrency));
  for (const fn of [handlers.onEvent, handlers.isComplete!]) {
    grantSourceRead(fn, source);
    path.grant(fn);
  }
  const resource = handlers.addResource(seed, resourceIdVia('Resource', handlers), {
    resourceType: path.resourceType,
    properties: { ...path.properties, InvocationTimeoutSeconds: String(timeout.toSeconds()) },
  });
  resource.node.addDependency(files.mountTargetsReady);
  const caller = {
    scope: seed, where, vpc: files.vpc, subnets: placement.subnets,
    runsIn: `the seed functions run in ${placement.given ? 'the seed\'s vpcSubnets' : 'the file system\'s subnets'}`,
    other: placement.given ? 'give the seed vpcSubnets with egress' : 'give the file system vpcSubnets with egress',
  };
  requireRoute(caller, S3_FILES_S3_ROUTE);
  if (path.resourceType === 'Custom::CdkEfsKitSeed' && props.removeOnDelete) requireRoute(caller, CLOUDFORMATION_ROUTE);
  return { function: handlers.onEvent, resource };
}

/** Where DataSync copies: reading and writing the seed's claim, listed before it is read, and nothing else of the bucket. */
function grantClaim(fn: lambda.Function, files: IS3FilesFileSystem, keyPrefix: string): void {
  const claim = files.bucket.arnForObjects(`${keyPrefix}${S3_FILES_SEED_CLAIM_NAME}`);
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject'], resources: [claim] }));
  fn.addToRolePolicy(new iam.PolicyStatement({
    actions: ['s3:ListBucket'], resources: [files.bucket.bucketArn], conditions: { StringLike: { 's3:prefix': [`${keyPrefix}${S3_FILES_SEED_CLAIM_NAME}`] } },
  }));
  files.bucket.encryptionKey?.grantEncryptDecrypt(fn);
}

/**
 * Under the seed's key prefix, and nowhere else of the bucket: reading its manifest and claim,
 * writing objects (single and multipart, server-side copies), deleting exact versions (prune, the
 * versions it wrote over, removeOnDelete), and listing versions there.
 */
function grantPlace(fn: lambda.Function, files: IS3FilesFileSystem, keyPrefix: string): void {
  const objects = files.bucket.arnForObjects(`${keyPrefix}*`);
  fn.addToRolePolicy(new iam.PolicyStatement({
    actions: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:DeleteObjectVersion'], resources: [objects],
  }));
  fn.addToRolePolicy(new iam.PolicyStatement({
    actions: ['s3:ListBucket', 's3:ListBucketVersions'], resources: [files.bucket.bucketArn],
    conditions: keyPrefix === '' ? undefined : { StringLike: { 's3:prefix': [`${keyPrefix}*`] } },
  }));
  files.bucket.encryptionKey?.grantEncryptDecrypt(fn);
  acknowledgeWildcard(fn, nagResource(fn, objects), 'The seed writes, reads and deletes (exact versions) the objects under its own key prefix of the file system\'s bucket, and no others.');
}
