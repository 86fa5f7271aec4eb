import { Stack } from 'aws-cdk-lib';
import * as efs from 'aws-cdk-lib/aws-efs';
import { MountTargetEndpoint, MountTargetIpAddressType, MountTargetsReady } from './mount-targets-ready';
import type { SharedFileSystem } from './shared-file-system';

const GATE_ID = 'MountTargetsReady';

/**
 * The file system's one readiness gate, made on first use (a file system no client mounts gets
 * none): in the mount targets' subnets, with each mount target's id, zone and IPv4 address from
 * CloudFormation, so the gate needs no EFS API call for them.
 */
export function gateOf(files: SharedFileSystem): MountTargetsReady {
  const existing = files.node.tryFindChild(GATE_ID);
  if (existing) return existing as MountTargetsReady;
  return new MountTargetsReady(files, GATE_ID, {
    fileSystem: files,
    vpc: files.vpc,
    vpcSubnets: { subnets: files.mountTargetSubnets.subnets },
    mountTargets: mountTargetsOf(files),
  });
}

/** The file system's CfnMountTargets, each with its subnet's zone. */
function mountTargetsOf(files: SharedFileSystem): MountTargetEndpoint[] {
  const stack = Stack.of(files);
  const key = (value: unknown) => JSON.stringify(stack.resolve(value));
  const zoneOfSubnet = new Map(files.mountTargetSubnets.subnets.map((s) => [key(s.subnetId), s.availabilityZone]));
  return files.fileSystem.node.children
    .filter((c): c is efs.CfnMountTarget => efs.CfnMountTarget.isCfnMountTarget(c))
    .map((mt) => {
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
