import { Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import { IConstruct } from 'constructs';
import { MountTargetEndpoint, MountTargetIpAddressType, MountTargetsReady } from './mount-targets-ready';
import type { ISharedFileSystem } from './shared-file-system-base';
import { ValidationError } from '../core/validation-error';

const GATE_ID = 'MountTargetsReady';

/**
 * The file system's one readiness gate, made on first use (a file system no client mounts gets
 * none), in the mount targets' subnets. `mountTargets` are those the app knows (each one's id,
 * zone and IPv4 address from CloudFormation, so the gate needs no EFS API call for them); left
 * out, the gate reads them all from DescribeMountTargets (an imported file system).
 */
export function gateOf(files: ISharedFileSystem, mountTargets?: MountTargetEndpoint[]): MountTargetsReady {
  const existing = files.node.tryFindChild(GATE_ID);
  if (existing) return existing as MountTargetsReady;
  if (files.mountTargetIpAddressType === MountTargetIpAddressType.IPV6_ONLY) {
    throw new ValidationError(`SharedFileSystem(${files.node.path}): the readiness gate (which every mount helper, seed and probe adds) runs Lambda functions in the mount targets' subnets, `
      + 'and Lambda cannot run in the IPv6-only subnets IPV6_ONLY mount targets need; use DUAL_STACK mount targets in dual-stack subnets, or mount IPV6_ONLY ones without the helpers.', files);
  }
  return new MountTargetsReady(files, GATE_ID, {
    fileSystem: files,
    vpc: files.vpc,
    vpcSubnets: { subnets: files.mountTargetSubnets.subnets },
    mountTargets,
  });
}

/** The CfnMountTargets of a file system made in this app (an efs.FileSystem), each with its subnet's zone. */
export function mountTargetsOf(fileSystem: IConstruct, subnets: ec2.ISubnet[]): MountTargetEndpoint[] {
  const stack = Stack.of(fileSystem);
  const key = (value: unknown) => JSON.stringify(stack.resolve(value));
  const zoneOfSubnet = new Map(subnets.map((s) => [key(s.subnetId), s.availabilityZone]));
  return cfnMountTargetsOf(fileSystem).map((mt) => {
    const type = (mt.ipAddressType ?? MountTargetIpAddressType.IPV4_ONLY) as MountTargetIpAddressType;
    return {
      mountTargetId: mt.ref,
      availabilityZone: zoneOfSubnet.get(key(mt.subnetId)),
      ipAddressType: mt.ipAddressType === undefined ? undefined : type,
      // CloudFormation has an attribute for the IPv4 address only; the gate describes IPv6 ones.
      ipAddress: type === MountTargetIpAddressType.IPV6_ONLY ? undefined : mt.attrIpAddress,
      ipv6Address: mt.ipv6Address,
    };
  });
}

/** The CfnMountTargets an efs.FileSystem made (none for an imported one). */
export function cfnMountTargetsOf(fileSystem: IConstruct): efs.CfnMountTarget[] {
  return fileSystem.node.children.filter((c): c is efs.CfnMountTarget => efs.CfnMountTarget.isCfnMountTarget(c));
}
