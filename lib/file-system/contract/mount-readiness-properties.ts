import { TimeLimitProperties } from '../../core/contract/deploy-time-limit';

/**
 * The readiness gate's contract: the custom resource properties the construct writes and the
 * handler reads (CloudFormation delivers every value as a string). No SDK and no CDK imports:
 * the construct, the handler and the tests load this module; the handler checks them
 * (lambda/mount-readiness/properties.ts).
 *
 * ```json
 * {
 *   "FileSystemId": "fs-0123456789abcdef0",
 *   "Region": "us-east-1",
 *   "MountTargets": [
 *     { "MountTargetId": "fsmt-0a…", "AvailabilityZone": "us-east-1a", "IpAddressType": "IPV4_ONLY", "IpAddress": "10.0.1.25" },
 *     { "MountTargetId": "fsmt-0b…", "AvailabilityZone": "us-east-1b", "IpAddressType": "DUAL_STACK", "IpAddress": "10.0.2.9", "Ipv6Address": "2600:1f18::9" }
 *   ],
 *   "TimeLimitSeconds": "600"
 * }
 * ```
 * What a mount target's entry leaves out (its zone, an address: CloudFormation has no GetAtt for
 * a mount target's IPv6 address), and the whole list when MountTargets is absent (an imported
 * file system), the handler reads from DescribeMountTargets.
 *
 * An S3 Files file system (`"FileSystemKind": "S3_FILES"`) is gated by its zonal names
 * (`<az-id>.fs-….s3files.<region>.on.aws`, see lib/s3-files/contract/s3-files-names.ts), so each mount target gives its
 * `AvailabilityZoneId` (AWS::S3Files::MountTarget's GetAtt AvailabilityZoneId) instead of a zone
 * name, and MountTargets must be given: the handler bundles no S3 Files API client to list them
 * (ListMountTargets). An address left out is not described either: the gate connects to whatever
 * the zonal name resolves to.
 * ```json
 * { "FileSystemKind": "S3_FILES", "FileSystemId": "fs-0123456789abcdef0", "Region": "us-east-1",
 *   "MountTargets": [{ "MountTargetId": "fsmt-0a…", "AvailabilityZoneId": "use1-az1" }] }
 * ```
 */
export interface MountReadinessProperties extends TimeLimitProperties {
  /** The file system whose mount targets must answer. */
  readonly FileSystemId: string;
  /** Its Region, for the DNS names (`fs-….efs.<Region>.amazonaws.com`). */
  readonly Region: string;
  /** The mount targets to wait for; absent: every mount target DescribeMountTargets lists (EFS only). */
  readonly MountTargets?: MountTargetProperties[];
  /** EFS (default) or S3_FILES: which names the gate resolves, and whether it may describe mount targets. */
  readonly FileSystemKind?: string;
}

export interface MountTargetProperties {
  readonly MountTargetId: string;
  /** The zone's name (us-east-1a), EFS only; absent: from DescribeMountTargets. */
  readonly AvailabilityZone?: string;
  /** The zone's ID (use1-az1), S3 Files only, and required there: its mount target names start with it. */
  readonly AvailabilityZoneId?: string;
  /** IPV4_ONLY (default), DUAL_STACK or IPV6_ONLY, as AWS::EFS::MountTarget's IpAddressType. */
  readonly IpAddressType?: string;
  /** The IPv4 address (IPV4_ONLY, DUAL_STACK); absent: from DescribeMountTargets. */
  readonly IpAddress?: string;
  /** The IPv6 address (DUAL_STACK, IPV6_ONLY); absent: from DescribeMountTargets. */
  readonly Ipv6Address?: string;
}

/** What the gate waits for: an EFS file system's names, or an S3 Files file system's. */
export const FILE_SYSTEM_KINDS = ['EFS', 'S3_FILES'] as const;
export type FileSystemKind = typeof FILE_SYSTEM_KINDS[number];

export const IP_ADDRESS_TYPES = ['IPV4_ONLY', 'DUAL_STACK', 'IPV6_ONLY'] as const;
export type IpAddressType = typeof IP_ADDRESS_TYPES[number];

/** The gate's bound when the properties set none: the EFS User Guide's propagation time many times over. */
export const DEFAULT_READINESS_TIME_LIMIT_SECONDS = 600;

/**
 * The longest bound: the gate waits inside one invocation of its function, whose timeout is the
 * limit plus READINESS_FUNCTION_MARGIN_SECONDS, and which the Provider framework's own function
 * (15 minutes) invokes and outlives by a minute to answer CloudFormation.
 */
export const MAX_READINESS_TIME_LIMIT_SECONDS = 780;

/** What the gate's function has beyond the limit: a last round, a DescribeMountTargets call, the response. */
export const READINESS_FUNCTION_MARGIN_SECONDS = 60;
