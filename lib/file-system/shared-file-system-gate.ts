import { Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import { IConstruct } from 'constructs';
import { checkGateSubnets } from './gate-subnets';
import { MountTargetEndpoint, MountTargetIpAddressType, MountTargetsReady } from './mount-targets-ready';
import type { ISharedFileSystem } from './shared-file-system-base';

const GATE_ID = 'MountTargetsReady';

/** Where the gate runs, and the prop of the file system that says so (named in a synth error). */
export interface GatePlacement {
  readonly subnets: ec2.SubnetSelection;
  readonly prop: string;
}

/**
 * The file system's one readiness gate, made on first use (a file system no client mounts gets
 * none), in `placement`'s subnets: the mount targets' by default; dual-stack ones the user names
 * for IPV6_ONLY mount targets, whose subnets Lambda cannot run in. `mountTargets` are those the
 * app knows (each one's id, zone and IPv4 address from CloudFormation, so the gate needs no EFS
 * API call for them); left out, the gate reads them all from DescribeMountTargets (an imported
 * file system).
 */
export function gateOf(files: ISharedFileSystem, placement: GatePlacement, mountTargets?: MountTargetEndpoint[]): MountTargetsReady {
  const existing = files.node.tryFindChild(GATE_ID);
  if (existing) return existing as MountTargetsReady;
  const where = `SharedFileSystem(${files.node.path}) readiness gate (every mount helper, seed and probe waits for it)`;
  const reachesIpv6 = files.mountTargetIpAddressType !== MountTargetIpAddressType.IPV4_ONLY;
  checkGateSubnets(files, where, placement.prop, files.vpc.selectSubnets(placement.subnets).subnets, reachesIpv6, mountTargets?.map((t) => t.availabilityZone));
  return new MountTargetsReady(files, GATE_ID, {
    fileSystem: files,
    vpc: files.vpc,
    vpcSubnets: placement.subnets,
    mountTargets,
    mountTargetIpAddressType: files.mountTargetIpAddressType,
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
