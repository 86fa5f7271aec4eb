import * as net from 'node:net';
import { timeLimitSeconds } from '../../lib/core/contract/deploy-time-limit';
import { AVAILABILITY_ZONE, FILE_SYSTEM_ID, MOUNT_TARGET_ID, REGION } from '../../lib/file-system/contract/efs-names';
import { DEFAULT_READINESS_TIME_LIMIT_SECONDS, FILE_SYSTEM_KINDS, FileSystemKind, IP_ADDRESS_TYPES, MAX_READINESS_TIME_LIMIT_SECONDS, IpAddressType, MountReadinessProperties, MountTargetProperties } from '../../lib/file-system/contract/mount-readiness-properties';
import { AVAILABILITY_ZONE_ID } from '../../lib/s3-files/contract/s3-files-names';

/** The properties, checked: the first problem throws, naming the property and the value. */
export interface CheckedReadinessProperties {
  readonly kind: FileSystemKind;
  readonly fileSystemId: string;
  readonly region: string;
  readonly mountTargets?: CheckedMountTarget[];
  readonly timeLimitSeconds: number;
}

export interface CheckedMountTarget {
  readonly id: string;
  readonly availabilityZone?: string;
  /** S3 Files only, where it is always given. */
  readonly availabilityZoneId?: string;
  readonly ipAddressType: IpAddressType;
  readonly ipv4?: string;
  readonly ipv6?: string;
}

export function checkReadinessProperties(props: MountReadinessProperties | undefined): CheckedReadinessProperties {
  const p = props ?? ({} as MountReadinessProperties);
  const problem = (what: string, value: unknown) => new Error(`mount readiness: ${what}, got ${JSON.stringify(value)}`);
  if (typeof p.FileSystemId !== 'string' || !FILE_SYSTEM_ID.test(p.FileSystemId)) throw problem('FileSystemId must be a file system id (fs- and 8 to 40 hex digits)', p.FileSystemId);
  if (typeof p.Region !== 'string' || !REGION.test(p.Region)) throw problem('Region must be a Region name such as us-east-1', p.Region);
  const kind = (p.FileSystemKind ?? 'EFS') as FileSystemKind;
  if (!FILE_SYSTEM_KINDS.includes(kind)) throw problem(`FileSystemKind must be one of ${FILE_SYSTEM_KINDS.join(', ')}, or absent (EFS)`, p.FileSystemKind);
  if (p.MountTargets !== undefined && (!Array.isArray(p.MountTargets) || p.MountTargets.length === 0)) throw problem('MountTargets must be a non-empty list, or absent', p.MountTargets);
  // The handler bundles the EFS API client only: an S3 Files file system's mount targets cannot be listed.
  if (kind === 'S3_FILES' && p.MountTargets === undefined) throw problem('MountTargets must list the mount targets of an S3 Files file system (the gate has no S3 Files API client to list them)', p.MountTargets);
  const mountTargets = p.MountTargets?.map((t, i) => checkMountTarget(t, `MountTargets[${i}]`, kind, problem));
  const ids = mountTargets?.map((t) => t.id) ?? [];
  const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
  if (repeated) throw problem('MountTargets must list each mount target once', repeated);
  const limit = timeLimitSeconds(p) ?? DEFAULT_READINESS_TIME_LIMIT_SECONDS;
  // The wait fits one invocation: a longer limit would end in Lambda's timeout, not the message.
  if (limit > MAX_READINESS_TIME_LIMIT_SECONDS) throw problem(`TimeLimitSeconds must be at most ${MAX_READINESS_TIME_LIMIT_SECONDS} (the gate waits within one Lambda invocation)`, p.TimeLimitSeconds);
  return { kind, fileSystemId: p.FileSystemId, region: p.Region, mountTargets, timeLimitSeconds: limit };
}

function checkMountTarget(t: MountTargetProperties, at: string, kind: FileSystemKind, problem: (what: string, value: unknown) => Error): CheckedMountTarget {
  if (typeof t !== 'object' || t === null) throw problem(`${at} must be an object`, t);
  if (typeof t.MountTargetId !== 'string' || !MOUNT_TARGET_ID.test(t.MountTargetId)) throw problem(`${at}.MountTargetId must be a mount target id (fsmt- and 8 to 40 hex digits)`, t.MountTargetId);
  if (kind === 'S3_FILES') {
    if (t.AvailabilityZone !== undefined) throw problem(`${at}.AvailabilityZone does not apply to S3 Files, whose names carry the zone ID: give AvailabilityZoneId`, t.AvailabilityZone);
    if (typeof t.AvailabilityZoneId !== 'string' || !AVAILABILITY_ZONE_ID.test(t.AvailabilityZoneId)) {
      throw problem(`${at}.AvailabilityZoneId must be an Availability Zone ID such as use1-az1 (an S3 Files mount target's names start with it)`, t.AvailabilityZoneId);
    }
  } else if (t.AvailabilityZoneId !== undefined) {
    throw problem(`${at}.AvailabilityZoneId applies to S3 Files only (FileSystemKind S3_FILES); an EFS mount target gives AvailabilityZone`, t.AvailabilityZoneId);
  }
  if (t.AvailabilityZone !== undefined && (typeof t.AvailabilityZone !== 'string' || !AVAILABILITY_ZONE.test(t.AvailabilityZone))) {
    throw problem(`${at}.AvailabilityZone must be an Availability Zone name such as us-east-1a`, t.AvailabilityZone);
  }
  const type = (t.IpAddressType ?? 'IPV4_ONLY') as IpAddressType;
  if (!IP_ADDRESS_TYPES.includes(type)) throw problem(`${at}.IpAddressType must be one of ${IP_ADDRESS_TYPES.join(', ')}`, t.IpAddressType);
  if (t.IpAddress !== undefined && !net.isIPv4(t.IpAddress)) throw problem(`${at}.IpAddress must be an IPv4 address`, t.IpAddress);
  if (t.Ipv6Address !== undefined && !net.isIPv6(t.Ipv6Address)) throw problem(`${at}.Ipv6Address must be an IPv6 address`, t.Ipv6Address);
  if (type === 'IPV6_ONLY' && t.IpAddress !== undefined) throw problem(`${at}.IpAddress does not apply to an IPV6_ONLY mount target`, t.IpAddress);
  if (type === 'IPV4_ONLY' && t.Ipv6Address !== undefined) throw problem(`${at}.Ipv6Address does not apply to an IPV4_ONLY mount target`, t.Ipv6Address);
  return { id: t.MountTargetId, availabilityZone: t.AvailabilityZone, availabilityZoneId: t.AvailabilityZoneId, ipAddressType: type, ipv4: t.IpAddress, ipv6: t.Ipv6Address };
}
