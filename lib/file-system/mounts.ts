import { Stack } from 'aws-cdk-lib';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AccessLevel } from './access-level';
import { Ec2MountOptions, EcsMountOptions, IEc2Host, LambdaMountOptions } from './client-mount-options';
import { renderEc2MountScript } from './ec2-mount-script';
import { warnAboutEc2Owner, warnAboutEcsOwner } from './mount-owners';
import type { SharedFileSystem } from './shared-file-system';
import { dependOnRulesBetween } from '../core/security-group-rules';
import { check, isCleanAbsolutePath, LAMBDA_MOUNT_PATH } from '../core/validate';
import { UV_THREADPOOL_MAX } from '../seed/contract/limits';
import { ValidationError } from '../core/validation-error';

/**
 * The bodies of SharedFileSystem's mountOn* helpers: each wires one kind of client to the file
 * system (the mount itself, port 2049, IAM scoped to the access point, the dependency on the
 * readiness gate). The class keeps the methods users call; the file system comes in as `files`.
 */

/** How messages name the file system a helper was called on: its construct path, as a ValidationError does. */
const nameOf = (files: SharedFileSystem) => `SharedFileSystem(${files.node.path})`;
const readWrite = (readOnly: boolean | undefined) => (readOnly ? AccessLevel.READ_ONLY : AccessLevel.READ_WRITE);

/** See SharedFileSystem.mountOnLambda. */
export function mountOnLambda(files: SharedFileSystem, fn: lambda.Function, accessPoint: efs.IAccessPoint, options: LambdaMountOptions): void {
  const where = `${nameOf(files)}.mountOnLambda(${fn.node.path})`;
  const mountPath = options.mountPath ?? '/mnt/efs';
  const threadPoolSize = options.threadPoolSize ?? 64;
  check(LAMBDA_MOUNT_PATH.test(mountPath), where, 'mountPath', mountPath, 'must match /mnt/<name> (letters, digits, - _ .), as Lambda requires', files);
  check(Number.isInteger(threadPoolSize) && threadPoolSize >= 1 && threadPoolSize <= UV_THREADPOOL_MAX, where, 'threadPoolSize', threadPoolSize, `must be an integer from 1 to ${UV_THREADPOOL_MAX} (libuv's limit)`, files);
  if (!fn.isBoundToVpc) throw new ValidationError(`${where}: the function is not in a VPC; give it \`vpc\` (the file system's VPC) so it can reach the mount targets.`, files);
  checkOwnAccessPoint(files, where, accessPoint);
  const cfn = fn.node.defaultChild as lambda.CfnFunction;
  if (cfn.fileSystemConfigs) throw new ValidationError(`${where}: the function already mounts a file system; Lambda allows one.`, files);

  cfn.fileSystemConfigs = [{ arn: accessPoint.accessPointArn, localMountPath: mountPath }];
  fn.addEnvironment('UV_THREADPOOL_SIZE', String(threadPoolSize));
  files.connections.allowDefaultPortFrom(fn, `NFS from ${fn.node.path}`);
  // The function mounts when it starts: not before its NFS rules exist.
  dependOnRulesBetween(cfn, fn, files);
  files.grantAccess(fn, readWrite(options.readOnly), accessPoint);
  fn.node.addDependency(files.mountTargetsAvailable, files.mountTargetsReady);
}

/** See SharedFileSystem.mountOnEcsTask. */
export function mountOnEcsTask(files: SharedFileSystem, taskDefinition: ecs.TaskDefinition, accessPoint: efs.IAccessPoint, options: EcsMountOptions): string {
  const where = `${nameOf(files)}.mountOnEcsTask(${taskDefinition.node.path})`;
  check(isCleanAbsolutePath(options.containerPath) && options.containerPath !== '/', where, 'containerPath', options.containerPath, 'must be an absolute path other than /', files);
  checkOwnAccessPoint(files, where, accessPoint);
  const container = options.container ?? taskDefinition.defaultContainer;
  if (!container) throw new ValidationError(`${where}: the task definition has no container yet; add one first or pass \`container\`.`, files);
  const volumeName = options.volumeName ?? `efs-${accessPoint.node.id}`;

  taskDefinition.addVolume({
    name: volumeName,
    efsVolumeConfiguration: {
      fileSystemId: files.fileSystemId,
      // With an access point the root directory must be omitted: the access point sets it.
      transitEncryption: 'ENABLED',
      authorizationConfig: { accessPointId: accessPoint.accessPointId, iam: 'ENABLED' },
    },
  });
  container.addMountPoints({ sourceVolume: volumeName, containerPath: options.containerPath, readOnly: options.readOnly ?? false });
  files.grantAccess(taskDefinition.taskRole, readWrite(options.readOnly), accessPoint);
  warnAboutEcsOwner(container, accessPoint, options);
  // Whatever runs tasks of this definition (a service, a schedule, a state machine) comes after it.
  taskDefinition.node.addDependency(files.mountTargetsReady);
  return volumeName;
}

/** See SharedFileSystem.mountOnEcsService. */
export function mountOnEcsService(files: SharedFileSystem, service: ecs.BaseService, accessPoint: efs.IAccessPoint, options: EcsMountOptions): string {
  const volumeName = mountOnEcsTask(files, service.taskDefinition, accessPoint, options);
  files.connections.allowDefaultPortFrom(service, `NFS from ${service.node.path}`);
  service.node.addDependency(files.mountTargetsAvailable, files.mountTargetsReady);
  return volumeName;
}

/** See SharedFileSystem.mountOnEc2. */
export function mountOnEc2(files: SharedFileSystem, host: IEc2Host, options: Ec2MountOptions): void {
  const where = `${nameOf(files)}.mountOnEc2(${host.node.path})`;
  const mountPoint = options.mountPoint ?? '/mnt/efs';
  check(isCleanAbsolutePath(mountPoint) && mountPoint !== '/', where, 'mountPoint', mountPoint, 'must be an absolute path other than /', files);
  if (options.accessPoint) checkOwnAccessPoint(files, where, options.accessPoint);
  const stack = Stack.of(files);
  host.userData.addCommands(...renderEc2MountScript({
    fileSystemId: files.fileSystemId,
    dnsName: `${files.fileSystemId}.efs.${stack.region}.${stack.urlSuffix}`,
    mountPoint,
    accessPointId: options.accessPoint?.accessPointId,
    readOnly: options.readOnly ?? false,
    nfsFallbackAllowed: !files.tlsEnforced && files.anonymousAccessAllowed,
  }));
  files.connections.allowDefaultPortFrom(host, `NFS from ${host.node.path}`);
  files.grantAccess(host, readWrite(options.readOnly), options.accessPoint);
  warnAboutEc2Owner(host, mountPoint, options);
  host.node.addDependency(files.mountTargetsAvailable, files.mountTargetsReady);
}

/** Refuses an access point of another file system in the same stack (one elsewhere cannot be told apart). */
function checkOwnAccessPoint(files: SharedFileSystem, where: string, accessPoint: efs.IAccessPoint): void {
  const owner = accessPoint.fileSystem;
  if (owner === files || owner === files.fileSystem || Stack.of(owner) !== Stack.of(files)) return;
  const stack = Stack.of(files);
  if (JSON.stringify(stack.resolve(owner.fileSystemId)) !== JSON.stringify(stack.resolve(files.fileSystemId))) {
    throw new ValidationError(`${where}: access point ${accessPoint.node.path} belongs to file system ${owner.node.path}, not this one (${files.node.path}).`, files);
  }
}
