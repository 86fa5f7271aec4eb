import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as s3files from 'aws-cdk-lib/aws-s3files';
import { Construct, IDependable } from 'constructs';
import { DEFAULT_READINESS_TIME_LIMIT_SECONDS, MountTargetProperties } from '../file-system/contract/mount-readiness-properties';
import { checkGateSubnets } from '../file-system/gate-subnets';
import { MountTargetIpAddressType } from '../file-system/mount-targets-ready';
import { GatedFileSystem, makeReadinessGate } from '../file-system/readiness-gate';

const GATE_ID = 'MountTargetsReady';

/** An S3 Files file system made in this app, as its gate sees it. */
export interface GatedS3FilesFileSystem extends GatedFileSystem {
  readonly vpc: ec2.IVpc;
  readonly mountTargetSubnets: ec2.SelectedSubnets;
  readonly mountTargetIpAddressType: MountTargetIpAddressType;
}

/**
 * The S3 Files file system's one readiness gate, made on first use in `subnets` (the mount
 * targets' by default): the same function and custom resource as EFS's MountTargetsReady, with
 * `FileSystemKind: S3_FILES` and each mount target's id and Availability Zone ID from
 * CloudFormation (AWS::S3Files::MountTarget's MountTargetId and AvailabilityZoneId), since its names
 * carry the zone ID. The gate connects to whatever each zonal name resolves to, so it makes no AWS
 * call: no DescribeMountTargets permission, no port 443.
 */
export function s3FilesGateOf(files: GatedS3FilesFileSystem, subnets: ec2.SubnetSelection, mountTargets: s3files.CfnMountTarget[]): IDependable {
  const existing = files.node.tryFindChild(GATE_ID);
  if (existing) return existing;
  const where = `S3FilesFileSystem(${files.node.path}) readiness gate (every mount helper waits for it)`;
  const reachesIpv6 = files.mountTargetIpAddressType !== MountTargetIpAddressType.IPV4_ONLY;
  checkGateSubnets(files, where, 'readinessGateSubnets', files.vpc.selectSubnets(subnets).subnets, reachesIpv6, files.mountTargetSubnets.subnets.map((s) => s.availabilityZone));
  const gate = new Construct(files, GATE_ID);
  makeReadinessGate(gate, files, {
    vpc: files.vpc,
    vpcSubnets: subnets,
    kind: 'S3_FILES',
    mountTargets: mountTargets.map((mt): MountTargetProperties => ({
      MountTargetId: mt.attrMountTargetId,
      AvailabilityZoneId: mt.attrAvailabilityZoneId,
      IpAddressType: mt.ipAddressType,
    })),
    describes: false,
    reachesIpv6,
    limitSeconds: DEFAULT_READINESS_TIME_LIMIT_SECONDS,
  });
  return gate;
}
