import { Stack, Token, Tokenization } from 'aws-cdk-lib';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DIRECT_READ_AUTO_MIN_MEMORY_MB } from './contract/s3-files-names';
import { renderS3FilesMountScript } from './ec2-s3-files-script';
import type { IS3FilesAccessPoint } from './s3-files-access-point';
import type { IS3FilesFileSystem } from './s3-files-file-system-base';
import { DirectS3Read, S3FilesMountOnEc2Options, S3FilesMountOnEcsOptions, S3FilesMountOnLambdaOptions } from './s3-files-mount-options';
import { AccessLevel } from '../file-system/access-level';
import { IEc2Host } from '../file-system/client-mount-options';
import { allowNfsFrom, checkLambdaClient } from '../file-system/mounts';
import { acknowledgeWildcard, nagResource } from '../core/nag';
import { dependOnRulesBetween } from '../core/security-group-rules';
import { check, isCleanAbsolutePath } from '../core/validate';
import { ValidationError } from '../core/validation-error';
import { propName } from '../core/contract/prop-name';
import { startAfterS3FilesSeeds } from '../seed/s3-files-seed-places';

/*
 * The bodies of S3FilesFileSystem's mountOn* helpers: the same wiring as SharedFileSystem's (port
 * 2049, IAM scoped to the access point, the dependency on the mount targets), with S3 Files' own
 * mount (Lambda's S3FilesConfig, ECS's S3FilesVolumeConfiguration, `mount -t s3files`).
 */

const nameOf = (files: IS3FilesFileSystem) => `S3FilesFileSystem(${files.node.path})`;

function levelOf(readOnly: boolean | undefined, rootAccess = false): AccessLevel {
  if (rootAccess) return AccessLevel.ROOT;
  return readOnly ? AccessLevel.READ_ONLY : AccessLevel.READ_WRITE;
}

/** See S3FilesFileSystemBase.mountOnLambda. */
export function mountOnLambda(files: IS3FilesFileSystem, fn: lambda.Function, accessPoint: IS3FilesAccessPoint, options: S3FilesMountOnLambdaOptions): void {
  const where = `${nameOf(files)}.mountOnLambda(${fn.node.path})`;
  checkOwnAccessPoint(files, where, accessPoint);
  const { cfn, mountPath, threadPoolSize } = checkLambdaClient(files, fn, where, { ...options, mountPath: options.mountPath ?? '/mnt/s3files' });
  const directS3Read = options.directS3Read ?? DirectS3Read.AUTO;
  // The L1 property (aws-cdk-lib 2.269.0, this library's floor); aws-cdk's L2 DirectS3Read came in 2.270.0.
  cfn.fileSystemConfigs = [{ arn: accessPoint.accessPointArn, localMountPath: mountPath, s3FilesConfig: { directS3Read } }];
  fn.addEnvironment('UV_THREADPOOL_SIZE', Tokenization.stringifyNumber(threadPoolSize));
  allowNfsFrom(files, fn, where);
  dependOnRulesBetween(cfn, fn, files);
  files.grantAccess(fn, levelOf(options.readOnly), accessPoint);
  // aws-cdk's lambda.FileSystem.fromS3FilesAccessPoint (2.269.0) also grants ClientMount on the
  // access point's own ARN; Lambda's check of it is not documented, so the grant is kept.
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3files:ClientMount'], resources: [accessPoint.accessPointArn] }));
  if (directReadsCanHappen(directS3Read, cfn)) grantDirectReads(files, fn);
  fn.node.addDependency(files.mountTargetsReady);
  if (options.waitForSeeds ?? true) startAfterS3FilesSeeds(files, fn);
}

/** ENABLED, or AUTO on a function with enough memory (or memory not known at synth). */
function directReadsCanHappen(mode: DirectS3Read, cfn: lambda.CfnFunction): boolean {
  if (mode === DirectS3Read.DISABLED) return false;
  if (mode === DirectS3Read.ENABLED) return true;
  const memory = cfn.memorySize ?? 128;
  return Token.isUnresolved(memory) || memory >= DIRECT_READ_AUTO_MIN_MEMORY_MB;
}

/** Direct reads fetch object versions straight from the bucket with the execution role (and fall back to NFS on a refusal). */
function grantDirectReads(files: IS3FilesFileSystem, grantee: lambda.Function): void {
  const objects = files.bucket.arnForObjects(`${files.prefix}*`);
  grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['s3:GetObject', 's3:GetObjectVersion'], resources: [objects] }));
  acknowledgeWildcard(grantee, nagResource(grantee, objects), 'Direct S3 reads fetch any object the file system serves: those under its prefix, and no others.');
  files.bucket.encryptionKey?.grantDecrypt(grantee);
}

/** See S3FilesFileSystemBase.mountOnEcsTask. */
export function mountOnEcsTask(files: IS3FilesFileSystem, taskDefinition: ecs.TaskDefinition, accessPoint: IS3FilesAccessPoint, options: S3FilesMountOnEcsOptions): string {
  const where = `${nameOf(files)}.mountOnEcsTask(${taskDefinition.node.path})`;
  check(isCleanAbsolutePath(options.containerPath) && options.containerPath !== '/', where, 'containerPath', options.containerPath, 'must be an absolute path other than /', files);
  checkOwnAccessPoint(files, where, accessPoint);
  if (taskDefinition.isEc2Compatible) {
    throw new ValidationError(`${where}: S3 Files volumes run on Fargate and ECS Managed Instances, not on the EC2 launch type, but the task definition's ${propName('compatibility')} includes EC2; use a FargateTaskDefinition (or Compatibility.FARGATE / MANAGED_INSTANCES).`, files);
  }
  if (options.rootAccess && options.readOnly) {
    throw new ValidationError(`${where}: ${propName('rootAccess')} grants writes as root, and ${propName('readOnly')} is true; choose one, got rootAccess true with readOnly true.`, files);
  }
  const container = options.container ?? taskDefinition.defaultContainer;
  if (!container) throw new ValidationError(`${where}: the task definition has no container yet; add one first or pass \`container\`.`, files);
  const volumeName = options.volumeName ?? `s3files-${accessPoint.node.id}`;

  // aws-ecs has no S3 Files volume yet (aws/aws-cdk#37741): a named volume, completed through the L1.
  const cfn = taskDefinition.node.defaultChild as ecs.CfnTaskDefinition;
  const index = (Stack.of(taskDefinition).resolve(cfn.volumes) as unknown[] | undefined)?.length ?? 0;
  taskDefinition.addVolume({ name: volumeName });
  // Transit encryption has no switch here: S3 Files volumes are always TLS (only the port can be set).
  cfn.addPropertyOverride(`Volumes.${index}.S3FilesVolumeConfiguration`, {
    FileSystemArn: files.fileSystemArn,
    AccessPointArn: accessPoint.accessPointArn,
  });
  container.addMountPoints({ sourceVolume: volumeName, containerPath: options.containerPath, readOnly: options.readOnly ?? false });
  files.grantAccess(taskDefinition.taskRole, levelOf(options.readOnly, options.rootAccess), accessPoint);
  taskDefinition.node.addDependency(files.mountTargetsReady);
  if (options.waitForSeeds ?? true) startAfterS3FilesSeeds(files, taskDefinition);
  return volumeName;
}

/** See S3FilesFileSystemBase.mountOnEcsService. */
export function mountOnEcsService(files: IS3FilesFileSystem, service: ecs.BaseService, accessPoint: IS3FilesAccessPoint, options: S3FilesMountOnEcsOptions): string {
  const volumeName = mountOnEcsTask(files, service.taskDefinition, accessPoint, options);
  allowNfsFrom(files, service, `${nameOf(files)}.mountOnEcsService(${service.node.path})`);
  service.node.addDependency(files.mountTargetsReady);
  if (options.waitForSeeds ?? true) startAfterS3FilesSeeds(files, service);
  return volumeName;
}

/** See S3FilesFileSystemBase.mountOnEc2. */
export function mountOnEc2(files: IS3FilesFileSystem, host: IEc2Host, options: S3FilesMountOnEc2Options): void {
  const where = `${nameOf(files)}.mountOnEc2(${host.node.path})`;
  const mountPoint = options.mountPoint ?? '/mnt/s3files';
  check(isCleanAbsolutePath(mountPoint) && mountPoint !== '/', where, 'mountPoint', mountPoint, 'must be an absolute path other than /', files);
  if (options.accessPoint) checkOwnAccessPoint(files, where, options.accessPoint);
  host.userData.addCommands(...renderS3FilesMountScript({
    fileSystemId: files.fileSystemId,
    mountPoint,
    accessPointId: options.accessPoint?.accessPointId,
    readOnly: options.readOnly ?? false,
  }));
  allowNfsFrom(files, host, where);
  files.grantAccess(host, levelOf(options.readOnly), options.accessPoint);
  host.node.addDependency(files.mountTargetsReady);
  if (options.waitForSeeds ?? true) startAfterS3FilesSeeds(files, host);
}

/** Refuses an access point of another S3 Files file system of the same stack. */
function checkOwnAccessPoint(files: IS3FilesFileSystem, where: string, accessPoint: IS3FilesAccessPoint): void {
  const owner = accessPoint.fileSystem;
  if (owner === files || Stack.of(owner) !== Stack.of(files)) return;
  const stack = Stack.of(files);
  if (JSON.stringify(stack.resolve(owner.fileSystemId)) !== JSON.stringify(stack.resolve(files.fileSystemId))) {
    throw new ValidationError(`${where}: access point ${accessPoint.node.path} belongs to file system ${owner.node.path}, not this one (${files.node.path}).`, files);
  }
}

/** See S3FilesFileSystemBase.grantAccess: the s3files client actions, on the access point when one is given. */
export function grantS3FilesClientAccess(files: IS3FilesFileSystem, grantee: iam.IGrantable, level: AccessLevel, accessPointArn?: string): iam.Grant {
  const actions = ['s3files:ClientMount'];
  if (level !== AccessLevel.READ_ONLY) actions.push('s3files:ClientWrite');
  if (level === AccessLevel.ROOT) actions.push('s3files:ClientRootAccess');
  const conditions = accessPointArn ? { StringEquals: { 's3files:AccessPointArn': accessPointArn } } : undefined;
  return iam.Grant.addToPrincipal({ grantee, actions, resourceArns: [files.fileSystemArn], conditions });
}
