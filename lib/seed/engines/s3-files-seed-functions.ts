import { CustomResource, Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { functionSize } from './engine-requirements';
import { LargestAsked } from './largest-asked';
import { seedFunctionNetwork, seedFunctionPlacement } from './seed-function-placement';
import { resourceIdVia, sharedSeedProvider } from './shared-seed-provider';
import { handlerCode } from '../../core/handler-code';
import { acknowledgeWildcard, nagResource } from '../../core/nag';
import { requireRoute, RouteNeed } from '../../core/service-route';
import { check } from '../../core/validate';
import { S3FilesAccessPoint } from '../../s3-files/s3-files-access-point';
import type { IS3FilesFileSystem } from '../../s3-files/s3-files-file-system-base';
import { MAX_INVOCATION_TIMEOUT_SECONDS, MIN_INVOCATION_TIMEOUT_SECONDS } from '../contract/resource-properties';
import type { S3FilesSeedResourceProperties } from '../contract/s3-files-seed-properties';
import type { S3FilesSeedProps } from '../s3-files-seed';
import type { SeedEngine } from '../seed-engine';
import { grantSourceRead } from '../seed-grants';
import type { SeedSourceConfig } from '../seed-source';

/** Where the seed functions mount the file system's root, to see the seeded files as clients will. */
export const S3_FILES_SEED_MOUNT_PATH = '/mnt/seed';

const S3_ROUTE: RouteNeed = {
  service: 's3', name: 'S3', does: 'write the file system\'s bucket and read the source there', endpoint: 'an S3 endpoint on their route tables',
  fix: 'add an S3 gateway endpoint to the VPC (free): vpc.addGatewayEndpoint(\'S3\', { service: ec2.GatewayVpcEndpointAwsService.S3 })',
  warningId: 'cdk-efs-kit:seedS3Route',
};

const timeouts = new WeakMap<Construct, LargestAsked>();

/**
 * The seed's custom resource on the stack's S3 Files seed functions (onEvent and its resume
 * function), shared by the seeds on one file system with the same size and subnets, as the EFS
 * single-function engine shares its own: each seed's settings travel in its properties, so changing
 * them changes no ServiceToken. The functions mount the file system's root read only through an
 * access point of their own, and may write, list and delete (exact versions) under each of their
 * seeds' key prefixes only.
 */
export function s3FilesSeedFunctions(seed: Construct, where: string, props: S3FilesSeedProps, engine: SeedEngine, source: SeedSourceConfig, settings: S3FilesSeedResourceProperties):
{ function: lambda.Function; resource: CustomResource } {
  const files = props.fileSystem;
  const options = engine.singleFunctionOptions ?? {};
  const timeout = options.timeout ?? Duration.minutes(15);
  check(timeout.toSeconds() >= MIN_INVOCATION_TIMEOUT_SECONDS && timeout.toSeconds() <= MAX_INVOCATION_TIMEOUT_SECONDS, where, 'timeout', `${timeout.toSeconds()} s`,
    `must be from ${MIN_INVOCATION_TIMEOUT_SECONDS / 60} to ${MAX_INVOCATION_TIMEOUT_SECONDS / 60} minutes (each invocation stops starting files a minute before its end; Lambda's most is 15)`, seed);
  const placement = seedFunctionPlacement({ seed, where, props });
  const size = functionSize({ seed, where, engine: String(engine) }, options);
  const timeoutAsked = new LargestAsked();
  const handlers = sharedSeedProvider(seed, {
    kind: 'S3Files',
    key: { fileSystem: files.node.path, memoryMiB: size.memorySize, ...placement.key === undefined ? {} : { subnets: placement.key } },
    newFunction: (scope, id, handler) => {
      const description = `cdk-efs-kit S3 Files seed handler for the seeds on ${files.node.path}`;
      const fn = new lambda.Function(scope, id, {
        runtime: lambda.Runtime.NODEJS_22_X,
        code: handlerCode('seed-s3-files'),
        handler,
        memorySize: size.memorySize,
        timeout: Duration.seconds(timeoutAsked.value),
        ...seedFunctionNetwork(scope, `${id}SecurityGroup`, files.vpc, placement, description),
        description,
      });
      const accessPoint = (scope.node.tryFindChild('VisibilityAccessPoint') as S3FilesAccessPoint | undefined)
        ?? new S3FilesAccessPoint(scope, 'VisibilityAccessPoint', { fileSystem: files });
      // Looks files up, never writes through the mount; and cannot wait for the seeds it runs.
      files.mountOnLambda(fn, accessPoint, { mountPath: S3_FILES_SEED_MOUNT_PATH, readOnly: true, waitForSeeds: false });
      return fn;
    },
    onEventId: 'Function',
    isCompleteId: 'ResumeFunction',
    queryInterval: Duration.seconds(10),
  });
  if (!timeouts.has(handlers)) timeouts.set(handlers, timeoutAsked);
  timeouts.get(handlers)!.ask(timeout.toSeconds());
  for (const fn of [handlers.onEvent, handlers.isComplete!]) {
    grantSourceRead(fn, source);
    grantPlace(fn, files, settings.TargetPrefix);
  }
  const resource = handlers.addResource(seed, resourceIdVia('Resource', handlers), {
    resourceType: 'Custom::CdkEfsKitS3FilesSeed',
    properties: { ...settings, InvocationTimeoutSeconds: String(timeout.toSeconds()) },
  });
  resource.node.addDependency(files.mountTargetsReady);
  requireRoute({
    scope: seed, where, vpc: files.vpc, subnets: placement.subnets,
    runsIn: `the seed functions run in ${placement.given ? 'the seed\'s vpcSubnets' : 'the file system\'s subnets'}`,
    other: placement.given ? 'give the seed vpcSubnets with egress' : 'give the file system vpcSubnets with egress',
  }, S3_ROUTE);
  return { function: handlers.onEvent, resource };
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
