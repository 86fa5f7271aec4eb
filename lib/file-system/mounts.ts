import { Annotations, Stack, Tokenization } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AccessLevel } from './access-level';
import { IEc2Host, MountOnEc2Options, MountOnEcsOptions, MountOnLambdaOptions } from './client-mount-options';
import { EFS_UTILS_MIN_IPV6_VERSION, renderEc2MountScript } from './ec2-mount-script';
import { checkGateSubnets } from './gate-subnets';
import { warnAboutEc2Owner, warnAboutEcsOwner } from './mount-owners';
import { MountTargetIpAddressType } from './mount-targets-ready';
import type { ISharedFileSystem } from './shared-file-system-base';
import type { IMountableFileSystem } from './mountable-file-system';
import { IConstruct } from 'constructs';
import { acknowledgeWildcard } from '../core/nag';
import { allowClientTo, dependOnRulesBetween } from '../core/security-group-rules';
import { check, isCleanAbsolutePath, LAMBDA_MOUNT_PATH } from '../core/validate';
import { UV_THREADPOOL_MAX } from '../seed/contract/limits';
import { startAfterSeeds } from '../seed/seed-order';
import { ValidationError } from '../core/validation-error';
import { propName } from '../core/contract/prop-name';

/**
 * The bodies of SharedFileSystem's mountOn* helpers: each wires one kind of client to the file
 * system (the mount itself, port 2049, IAM scoped to the access point, the dependencies on the
 * readiness gate and on the seeds that fill what the client mounts). The class keeps the methods
 * users call; the file system comes in as `files`.
 */

/** How messages name the file system a helper was called on: its construct path, as a ValidationError does. */
const nameOf = (files: ISharedFileSystem) => `SharedFileSystem(${files.node.path})`;

/**
 * What a file system's policy says about plain NFS, where known: a SharedFileSystem knows its own
 * policy; an imported one knows only what its attributes say (undefined: unknown).
 */
interface PolicyFacts {
  readonly tlsEnforced?: boolean;
  readonly anonymousAccessAllowed?: boolean;
}

const readWrite = (readOnly: boolean | undefined) => (readOnly ? AccessLevel.READ_ONLY : AccessLevel.READ_WRITE);

/** See SharedFileSystem.mountOnLambda. */
export function mountOnLambda(files: ISharedFileSystem, fn: lambda.Function, accessPoint: efs.IAccessPoint, options: MountOnLambdaOptions): void {
  const where = `${nameOf(files)}.mountOnLambda(${fn.node.path})`;
  checkOwnAccessPoint(files, where, accessPoint);
  const { cfn, mountPath, threadPoolSize } = checkLambdaClient(files, fn, where, options);

  cfn.fileSystemConfigs = [{ arn: accessPoint.accessPointArn, localMountPath: mountPath }];
  fn.addEnvironment('UV_THREADPOOL_SIZE', Tokenization.stringifyNumber(threadPoolSize));
  allowNfsFrom(files, fn, where);
  // The function mounts when it starts: not before its NFS rules exist.
  dependOnRulesBetween(cfn, fn, files);
  files.grantAccess(fn, readWrite(options.readOnly), accessPoint);
  fn.node.addDependency(files.mountTargetsAvailable, files.mountTargetsReady);
  if (options.waitForSeeds ?? true) startAfterSeeds(files, fn, accessPoint);
}

/**
 * The checks every kind's mountOnLambda makes of the function and its options (mount path, thread
 * pool, VPC, one file system per function, IPv6 reach); returns the function's L1 and the settled options.
 */
export function checkLambdaClient(files: IMountableFileSystem, fn: lambda.Function, where: string, options: MountOnLambdaOptions): { cfn: lambda.CfnFunction; mountPath: string; threadPoolSize: number } {
  const mountPath = options.mountPath ?? '/mnt/efs';
  const threadPoolSize = options.threadPoolSize ?? 64;
  check(LAMBDA_MOUNT_PATH.test(mountPath), where, 'mountPath', mountPath, 'must match /mnt/<name> (letters, digits, - _ .), as Lambda requires', files);
  check(Number.isInteger(threadPoolSize) && threadPoolSize >= 1 && threadPoolSize <= UV_THREADPOOL_MAX, where, 'threadPoolSize', threadPoolSize, `must be an integer from 1 to ${UV_THREADPOOL_MAX} (libuv's limit)`, files);
  if (!fn.isBoundToVpc) throw new ValidationError(`${where}: the function is not in a VPC; give it \`vpc\` (the file system's VPC) so it can reach the mount targets.`, files);
  const cfn = fn.node.defaultChild as lambda.CfnFunction;
  if (cfn.fileSystemConfigs) throw new ValidationError(`${where}: the function already mounts a file system; Lambda allows one.`, files);
  if (files.mountTargetIpAddressType === MountTargetIpAddressType.IPV6_ONLY && !ipv6AllowedForDualStack(cfn)) {
    throw new ValidationError(`${where}: the mount targets are IPV6_ONLY, and a function reaches them over IPv6 only from dual-stack subnets with ${propName('ipv6AllowedForDualStack')}: true; give the function both, got ipv6AllowedForDualStack undefined.`, files);
  }
  if (files.mountTargetIpAddressType === MountTargetIpAddressType.IPV6_ONLY) {
    checkGateSubnets(files, where, 'the function\'s vpcSubnets', knownSubnetsOf(cfn, files.vpc), true, files.mountTargetSubnets.subnets.map((s) => s.availabilityZone));
  }
  return { cfn, mountPath, threadPoolSize };
}

/** See SharedFileSystem.mountOnEcsTask. */
export function mountOnEcsTask(files: ISharedFileSystem, taskDefinition: ecs.TaskDefinition, accessPoint: efs.IAccessPoint, options: MountOnEcsOptions): string {
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
  if (options.waitForSeeds ?? true) startAfterSeeds(files, taskDefinition, accessPoint);
  return volumeName;
}

/** See SharedFileSystem.mountOnEcsService. */
export function mountOnEcsService(files: ISharedFileSystem, service: ecs.BaseService, accessPoint: efs.IAccessPoint, options: MountOnEcsOptions): string {
  const volumeName = mountOnEcsTask(files, service.taskDefinition, accessPoint, options);
  allowNfsFrom(files, service, `${nameOf(files)}.mountOnEcsService(${service.node.path})`);
  service.node.addDependency(files.mountTargetsAvailable, files.mountTargetsReady);
  if (options.waitForSeeds ?? true) startAfterSeeds(files, service, accessPoint);
  return volumeName;
}

/** See SharedFileSystem.mountOnEc2. */
export function mountOnEc2(files: ISharedFileSystem & PolicyFacts, host: IEc2Host, options: MountOnEc2Options): void {
  const where = `${nameOf(files)}.mountOnEc2(${host.node.path})`;
  const mountPoint = options.mountPoint ?? '/mnt/efs';
  check(isCleanAbsolutePath(mountPoint) && mountPoint !== '/', where, 'mountPoint', mountPoint, 'must be an absolute path other than /', files);
  if (options.accessPoint) checkOwnAccessPoint(files, where, options.accessPoint);
  const ipv6 = files.mountTargetIpAddressType !== MountTargetIpAddressType.IPV4_ONLY;
  host.userData.addCommands(...renderEc2MountScript({
    fileSystemId: files.fileSystemId,
    dnsName: files.fileSystemDnsName,
    mountPoint,
    accessPointId: options.accessPoint?.accessPointId,
    readOnly: options.readOnly ?? false,
    nfsFallback: nfsFallbackOf(files),
    minimumEfsUtilsVersion: ipv6 ? EFS_UTILS_MIN_IPV6_VERSION : undefined,
  }));
  allowNfsFrom(files, host, where);
  files.grantAccess(host, readWrite(options.readOnly), options.accessPoint);
  if (ipv6) grantAddressFamilyLookup(files, host);
  warnAboutEc2Owner(host, mountPoint, options);
  host.node.addDependency(files.mountTargetsAvailable, files.mountTargetsReady);
  if (options.waitForSeeds ?? true) startAfterSeeds(files, host, options.accessPoint);
}

/** Refuses an access point of another file system in the same stack (one elsewhere cannot be told apart). */
function checkOwnAccessPoint(files: ISharedFileSystem, where: string, accessPoint: efs.IAccessPoint): void {
  const owner = accessPoint.fileSystem;
  if (owner === files || Stack.of(owner) !== Stack.of(files)) return;
  const stack = Stack.of(files);
  if (JSON.stringify(stack.resolve(owner.fileSystemId)) !== JSON.stringify(stack.resolve(files.fileSystemId))) {
    throw new ValidationError(`${where}: access point ${accessPoint.node.path} belongs to file system ${owner.node.path}, not this one (${files.node.path}).`, files);
  }
}

/** Whether the EC2 script may fall back to plain NFS: only where the policy is known to allow it. */
function nfsFallbackOf(files: PolicyFacts): 'allowed' | 'refusedByPolicy' | 'policyUnknown' {
  if (files.tlsEnforced === undefined || files.anonymousAccessAllowed === undefined) return 'policyUnknown';
  return !files.tlsEnforced && files.anonymousAccessAllowed ? 'allowed' : 'refusedByPolicy';
}

/** Port 2049 from the client's security groups, over each address family the mount targets have. */
export function allowNfsFrom(files: IMountableFileSystem, client: ec2.IConnectable & IConstruct, where: string): void {
  // A client of another stack gets the rule in its own stack: in the file system's, naming the
  // client's group, it would make each stack depend on the other.
  if (Stack.of(client) !== Stack.of(files)) allowClientTo(client, files, files.connections.defaultPort ?? ec2.Port.tcp(2049));
  else files.connections.allowDefaultPortFrom(client, `NFS from ${client.node.path}`);
  if (files.mountTargetIpAddressType === MountTargetIpAddressType.IPV4_ONLY) return;
  // The rules above name security groups, which hold for both families. A group that allows all
  // outbound IPv4 but not IPv6 gets no egress rule from aws-cdk, and so cannot reach an IPv6 address.
  // SecurityGroupBase has allowAllIpv6Outbound; ISecurityGroup does not declare it (an imported group: false unless told).
  const blocked = client.connections.securityGroups.filter((sg) => sg.allowAllOutbound && !(sg as Partial<ec2.SecurityGroup>).allowAllIpv6Outbound);
  if (blocked.length === 0) return;
  const fix = `give it ${propName('allowAllIpv6Outbound')}: true, or ${propName('allowAllOutbound')}: false (then the helper adds an egress rule on port 2049 to the mount targets' security group)`;
  const groups = blocked.map((sg) => sg.node.path).join(', ');
  if (files.mountTargetIpAddressType === MountTargetIpAddressType.IPV6_ONLY) {
    throw new ValidationError(`${where}: the mount targets are IPV6_ONLY, but security group ${groups} allows all outbound IPv4 and no IPv6: ${fix}.`, files);
  }
  Annotations.of(client).addWarningV2('cdk-efs-kit:ipv6EgressBlocked', `The mount targets are DUAL_STACK, but security group ${groups} allows all outbound IPv4 and no IPv6, `
    + `so a client that picks the IPv6 address (amazon-efs-utils may) cannot connect: ${fix}.`);
}

/**
 * amazon-efs-utils picks the address family of a mount target through DescribeMountTargets, and
 * reads the zone names with DescribeAvailabilityZones (which has no resource-level permissions).
 */
function grantAddressFamilyLookup(files: ISharedFileSystem, host: IEc2Host): void {
  host.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['elasticfilesystem:DescribeMountTargets'], resources: [files.fileSystemArn] }));
  host.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['ec2:DescribeAvailabilityZones'], resources: ['*'] }));
  acknowledgeWildcard(host, '*', 'ec2:DescribeAvailabilityZones, which amazon-efs-utils needs to pick the address family, has no resource-level permissions.');
}

/** The function's subnets that are subnets of `vpc` the app knows (matched by resolved id); others are left out. */
function knownSubnetsOf(cfn: lambda.CfnFunction, vpc: ec2.IVpc): ec2.ISubnet[] {
  const stack = Stack.of(cfn);
  const key = (value: unknown) => JSON.stringify(stack.resolve(value));
  const vpcConfig = stack.resolve(cfn.vpcConfig) as { subnetIds?: unknown[] } | undefined;
  const ids = new Set((vpcConfig?.subnetIds ?? []).map((id) => JSON.stringify(id)));
  return [...vpc.publicSubnets, ...vpc.privateSubnets, ...vpc.isolatedSubnets].filter((s) => ids.has(key(s.subnetId)));
}

function ipv6AllowedForDualStack(cfn: lambda.CfnFunction): boolean {
  const vpcConfig = Stack.of(cfn).resolve(cfn.vpcConfig) as { ipv6AllowedForDualStack?: boolean } | undefined;
  return vpcConfig?.ipv6AllowedForDualStack === true;
}

/** See SharedFileSystem.grantAccess. */
export function grantFileSystemAccess(files: ISharedFileSystem, grantee: iam.IGrantable, level: AccessLevel, accessPointArn?: string): iam.Grant {
  const actions = ['elasticfilesystem:ClientMount'];
  if (level !== AccessLevel.READ_ONLY) actions.push('elasticfilesystem:ClientWrite');
  if (level === AccessLevel.ROOT) actions.push('elasticfilesystem:ClientRootAccess');
  const conditions: Record<string, Record<string, string>> = {
    Bool: { 'elasticfilesystem:AccessedViaMountTarget': 'true' },
  };
  if (accessPointArn) conditions.StringEquals = { 'elasticfilesystem:AccessPointArn': accessPointArn };
  return iam.Grant.addToPrincipalOrResource({ grantee, actions, resourceArns: [files.fileSystemArn], resource: files, conditions });
}
