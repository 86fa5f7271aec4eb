import type { Resolver } from 'node:dns/promises';
import type { DescribedMountTarget } from '../../lambda/mount-readiness/custom-resource';
import { CheckResult, fail, pass, skip, warn } from '../../lambda/shared/mount-checks/check-result';
import { DnsLookup, lookup } from '../../lambda/shared/mount-checks/dns-lookup';
import { compareVersions, efsUtilsVersion } from '../../lambda/shared/mount-checks/efs-utils';
import { EFS_UTILS_S3FILES_MIN_VERSION, EFS_UTILS_STS_FIX_VERSION, s3FilesFileSystemDnsName, s3FilesMountTargetDnsName } from '../../lib/s3-files/contract/s3-files-names';

/**
 * The doctor's checks that differ for an S3 Files file system: its names (the zonal
 * `<az-id>.fs-….s3files.<region>.on.aws`, which mount.s3files resolves, and `fs-….s3files.<region>.on.aws`,
 * which it does not) and the amazon-efs-utils release that mounts it. The zones come from the
 * command line (--az-id): listing the mount targets is an S3 Files API call this build has no
 * client for.
 */

export interface S3FilesNames {
  readonly checks: CheckResult[];
  /** Every lookup made, A and AAAA of each name, for the address-family check. */
  readonly lookups: DnsLookup[];
  /** The mount targets as their zonal names resolved (the name as id, the zone ID as zone), for the TCP checks. */
  readonly targets: DescribedMountTarget[];
  /** Addresses of the file system name that are no mount target's, for the TCP checks. */
  readonly otherAddresses: Map<string, string>;
}

export async function s3FilesNameChecks(fileSystemId: string, region: string | undefined, zoneIds: string[], resolver: Resolver): Promise<S3FilesNames> {
  if (region === undefined) {
    const name = `${fileSystemId}.s3files.<region>.on.aws`;
    return {
      checks: [
        skip('dns-file-system', `the file system's DNS name (${name}): skipped, no Region given (--region or AWS_REGION)`),
        skip('dns-mount-target', `mount target names (<az-id>.${name}): skipped, no Region given (--region or AWS_REGION)`),
      ],
      lookups: [], targets: [], otherAddresses: new Map(),
    };
  }
  const both = (name: string) => Promise.all([lookup(resolver, name, 'A'), lookup(resolver, name, 'AAAA')]);
  const addressesOf = (found: DnsLookup[]) => found.flatMap((l) => l.addresses.map((a) => `${a} (${l.type})`)).join(', ');
  const problemsOf = (found: DnsLookup[]) => found.map((l) => `${l.type}: ${l.problem}`).join('; ');

  const fsName = s3FilesFileSystemDnsName(fileSystemId, region);
  const fsFound = await both(fsName);
  const checks: CheckResult[] = [fsFound.some((l) => l.addresses.length)
    ? pass('dns-file-system', `${fsName} resolves to ${addressesOf(fsFound)}`)
    // Not a failure: amazon-efs-utils never looks this name up, and what it should resolve to is not documented.
    : skip('dns-file-system', `${fsName} does not resolve (${problemsOf(fsFound)}); not needed: mount.s3files resolves only the zonal names <az-id>.${fsName}`)];

  const lookups = [...fsFound];
  const targets: DescribedMountTarget[] = [];
  if (zoneIds.length === 0) {
    checks.push(skip('dns-mount-target', `mount target names (<az-id>.${fsName}): skipped, give the zones with --az-id: this host's is the instance metadata's placement/availability-zone-id, and `
      + `aws s3files list-mount-targets --file-system-id ${fileSystemId} --query 'mountTargets[].availabilityZoneId' lists all (this build cannot: it has no S3 Files API client)`));
  }
  for (const zoneId of zoneIds) {
    const name = s3FilesMountTargetDnsName(zoneId, fileSystemId, region);
    const [a, aaaa] = await both(name);
    lookups.push(a, aaaa);
    if (a.addresses.length || aaaa.addresses.length) {
      checks.push(pass('dns-mount-target', `${name} resolves to ${addressesOf([a, aaaa])}`));
      targets.push({ id: name, availabilityZone: zoneId, lifeCycleState: '?', ipv4: a.addresses[0], ipv6: aaaa.addresses[0] });
    } else {
      checks.push(fail('dns-mount-target', `${name} does not resolve (${problemsOf([a, aaaa])})`,
        `check that ${zoneId} has a mount target of ${fileSystemId} (aws s3files list-mount-targets --file-system-id ${fileSystemId}), and resolve from inside its VPC (DNS support and DNS hostnames on); mount.s3files takes this host's zone ID from the instance metadata, or -o azid=, and can skip DNS with -o mounttargetip=`));
    }
  }
  const known = new Set(targets.flatMap((t) => [t.ipv4, t.ipv6]));
  const otherAddresses = new Map(fsFound.flatMap((l) => l.addresses).filter((a) => !known.has(a)).map((a) => [a, fsName]));
  return { checks, lookups, targets, otherAddresses };
}

/** mount.s3files: amazon-efs-utils 3.0.0 brought it; 3.1.2 fixed the STS endpoint IRSA and Pod Identity mounts use (aws-efs-csi-driver #1907). */
export async function s3FilesUtilsCheck(mountS3FilesCommand?: string, mountEfsCommand?: string): Promise<CheckResult> {
  const id = 'efs-utils';
  const upgrade = `install amazon-efs-utils ${EFS_UTILS_STS_FIX_VERSION} or later: ${EFS_UTILS_S3FILES_MIN_VERSION} is the first that mounts S3 Files (mount -t s3files), `
    + `${EFS_UTILS_STS_FIX_VERSION} fixed the STS endpoint that IRSA and EKS Pod Identity mounts in private subnets use (aws-efs-csi-driver #1907)`;
  const installed = await efsUtilsVersion(mountS3FilesCommand, 'mount.s3files');
  if (!installed) {
    const efs = await efsUtilsVersion(mountEfsCommand);
    return fail(id, efs
      ? `amazon-efs-utils ${efs.version} (${efs.command}) has no mount.s3files: mount -t s3files needs ${EFS_UTILS_S3FILES_MIN_VERSION} or later`
      : 'amazon-efs-utils is not installed: mount -t s3files (TLS and IAM, both required by S3 Files) is not available here', upgrade);
  }
  const at = `amazon-efs-utils ${installed.version} (${installed.command})`;
  if (compareVersions(installed.version, EFS_UTILS_S3FILES_MIN_VERSION) < 0) return fail(id, `${at} cannot mount S3 Files (${EFS_UTILS_S3FILES_MIN_VERSION} or later can)`, upgrade);
  if (compareVersions(installed.version, EFS_UTILS_STS_FIX_VERSION) < 0) {
    return warn(id, `${at} mounts S3 Files, but predates ${EFS_UTILS_STS_FIX_VERSION}'s STS endpoint fix: mounts that take credentials from IRSA or EKS Pod Identity in private subnets fail (aws-efs-csi-driver #1907)`, upgrade);
  }
  return pass(id, `${at}: mounts S3 Files (${EFS_UTILS_S3FILES_MIN_VERSION} or later) with the STS endpoint fix (${EFS_UTILS_STS_FIX_VERSION} or later, aws-efs-csi-driver #1907)`);
}
