import * as fs from 'node:fs';
import * as net from 'node:net';
import type { DescribedMountTarget } from '../../lambda/mount-readiness/custom-resource';
import { CheckResult, fail, pass, skip, warn } from '../../lambda/shared/mount-checks/check-result';
import { lookup, newResolver } from '../../lambda/shared/mount-checks/dns-lookup';
import { clientAccessCheck, POLICY_CHECK } from '../../lambda/shared/mount-checks/efs-client-access';
import { fileSystemArn, fileSystemDnsName, mountTargetDnsName, NFS_PORT, partitionOf } from '../../lib/file-system/contract/efs-names';
import { compareVersions, efsUtilsVersion, processAlive, TunnelState, tunnelStateFor } from '../../lambda/shared/mount-checks/efs-utils';
import { isNfs, MountEntry, mountContaining, nfsServerOf, optionMap, parseMountInfo } from '../../lambda/shared/mount-checks/mountinfo';
import { judgeNfsOptions, MOUNT_OPTIONS_CHECK } from '../../lambda/shared/mount-checks/nfs-mount-options';
import { canWrite, compareWithAccessPoint, IDENTITY_CHECK, judgeRootDirectory, PosixIdentity, ROOT_DIRECTORY_CHECK } from '../../lambda/shared/mount-checks/posix-identity';
import { ROUND_TRIP_CHECK, roundTripCheck } from '../../lambda/shared/mount-checks/round-trip';
import { connectTcp, endpointOf } from '../../lambda/shared/mount-checks/tcp-connect';
import { addressFamilyCheck, IPV6_ROUTE_TABLE, parseIpv6Routes } from '../../lambda/shared/mount-checks/address-family';
import { s3FilesClientAccessCheck, S3FILES_POLICY_CHECK } from '../../lambda/shared/mount-checks/s3-files-client-access';
import type { FileSystemKind } from '../../lib/file-system/contract/mount-readiness-properties';
import { s3FilesAccessPointArn, s3FilesFileSystemArn } from '../../lib/s3-files/contract/s3-files-names';
import type { AccessPointFacts, AwsFacts } from './aws-facts';
import { s3FilesNameChecks, s3FilesUtilsCheck } from './s3-files-checks';

/**
 * The doctor's checks, in the order a mount needs them: the file system and its mount targets (AWS),
 * DNS, TCP 2049, the mount and its options, encryption in transit, amazon-efs-utils, the file
 * system policy for this caller, the access point and the POSIX identity, and a write/read/
 * rename/unlink round trip. A check that cannot run says why (no credentials, no mount). No SDK
 * here: the AWS facts come in read.
 */
export interface DoctorInput {
  readonly fileSystemId: string;
  /** Needed for the file system's DNS name, and for every AWS fact; without it, with --no-aws, the name goes unchecked. */
  readonly region?: string;
  readonly accessPointId?: string;
  /** A directory to check; default: the file system's mount found in mountinfo. */
  readonly mountPoint?: string;
  /** EFS (default) or S3_FILES. */
  readonly kind?: FileSystemKind;
  /** S3 Files: the zones (IDs, use1-az1) whose mount target names to check. */
  readonly availabilityZoneIds?: string[];
}

export interface DoctorDeps {
  /** The AWS facts, or why there are none (no credentials, --no-aws). */
  readonly aws: AwsFacts | { readonly skipped: string };
  /** DNS servers to ask (`ip` or `ip:port`); default: the system's. */
  readonly dnsServers?: string[];
  readonly mountinfo: () => string;
  readonly efsUtilsStateDir?: string;
  /** mount.efs to ask for its version; default: found on PATH or in the sbin directories. */
  readonly mountEfsCommand?: string;
  /** mount.s3files, likewise (S3 Files). */
  readonly mountS3FilesCommand?: string;
  /** This host's IPv6 routes, as /proc/net/ipv6_route shows them (S3 Files' address-family check); default: that file. */
  readonly ipv6Routes?: () => string;
  readonly identity: PosixIdentity;
  readonly nfsPort?: number;
}

export interface DoctorReport {
  readonly fileSystemId: string;
  readonly region?: string;
  readonly checks: CheckResult[];
  readonly counts: Record<CheckResult['status'], number>;
  readonly seconds: number;
}

const CONNECT_TIMEOUT_MS = 3000;

export async function runDoctor(input: DoctorInput, deps: DoctorDeps): Promise<DoctorReport> {
  const started = Date.now();
  if (input.kind === 'S3_FILES') return reportOf(input, await s3FilesChecks(input, deps), started);
  const checks: CheckResult[] = [];
  const aws = 'skipped' in deps.aws ? undefined : deps.aws;
  const noAws = 'skipped' in deps.aws ? deps.aws.skipped : undefined;
  const awsSkip = (id: string, what: string) => skip(id, `${what}: skipped, ${noAws}`);

  // The file system and its mount targets, as EFS describes them.
  const targets = aws && 'value' in aws.mountTargets ? aws.mountTargets.value.targets : undefined;
  checks.push(aws ? fileSystemCheck(input, aws) : awsSkip('file-system', 'the file system and its mount targets (DescribeMountTargets)'));

  // DNS: the file system name, and each mount target's zone name.
  const resolver = newResolver({ servers: deps.dnsServers });
  const fsName = input.region === undefined ? undefined : fileSystemDnsName(input.fileSystemId, input.region);
  const fsLookups = fsName === undefined ? [] : await Promise.all([lookup(resolver, fsName, 'A'), lookup(resolver, fsName, 'AAAA')]);
  const fsAddresses = fsLookups.flatMap((l) => l.addresses);
  checks.push(fsName === undefined
    ? skip('dns-file-system', `the file system's DNS name (${input.fileSystemId}.efs.<region>.amazonaws.com): skipped, no Region given (--region or AWS_REGION)`)
    : fileSystemNameCheck(fsName, fsAddresses, fsLookups.map((l) => `${l.type}: ${l.problem}`).join('; '), targets));
  if (targets) {
    for (const t of targets) checks.push(...await zoneNameChecks(input, t, resolver));
  } else {
    checks.push(aws ? skip('dns-mount-target', 'mount target names: skipped, the mount targets could not be read') : awsSkip('dns-mount-target', 'mount target names (their zones come from DescribeMountTargets)'));
  }

  // The mount, found before TCP: a direct NFS mount's address is worth a connection too.
  const mount = findMount(input, deps, targets);
  const tunnel = mount.entry && isLocalProxy(mount.entry) ? tunnelStateFor(Number(optionMap(mount.entry.superOptions).get('port')), deps.efsUtilsStateDir) : undefined;

  // TCP 2049 at every address a client could use.
  const addresses = new Map<string, string>();
  for (const t of targets ?? []) for (const a of [t.ipv4, t.ipv6]) if (a) addresses.set(a, `mount target ${t.id} (${t.availabilityZone})`);
  for (const a of fsAddresses) if (!addresses.has(a)) addresses.set(a, `${fsName}`);
  const mountAddress = mount.entry && isNfs(mount.entry) && !isLocalProxy(mount.entry) ? optionMap(mount.entry.superOptions).get('addr') : undefined;
  if (mountAddress && !addresses.has(mountAddress)) addresses.set(mountAddress, `the server of the mount at ${mount.entry!.mountPoint}`);
  checks.push(...await tcpChecks(addresses, targets, deps.nfsPort ?? NFS_PORT));

  checks.push(mount.check);
  if (mount.entry && isNfs(mount.entry)) {
    checks.push(judgeNfsOptions(mount.entry));
    checks.push(await encryptionCheck(mount.entry, tunnel));
  } else {
    checks.push(skip(MOUNT_OPTIONS_CHECK, 'mount options: skipped, no NFS mount to read them from'));
    checks.push(skip('encryption-in-transit', 'encryption in transit: skipped, no NFS mount'));
  }

  const accessPoint = aws?.accessPoint && 'value' in aws.accessPoint ? aws.accessPoint.value : undefined;
  checks.push(await efsUtilsCheck(input, targets, deps.mountEfsCommand));

  // Who may do what: the file system policy for this caller, as this mount (or `mount -t efs -o tls,iam`) would ask.
  const how = tunnel ? { tls: tunnel.tls, iam: tunnel.iam, accessPointId: tunnel.accessPointId }
    : mount.entry && isNfs(mount.entry) ? { tls: false, iam: false, accessPointId: undefined }
      : { tls: true, iam: true, accessPointId: input.accessPointId };
  checks.push(policyCheck(input, aws, noAws, how, accessPoint, deps.identity));

  checks.push(...accessPointChecks(input, aws, noAws, accessPoint, mount.entry && isNfs(mount.entry) && mount.ours ? mount.dir : undefined, tunnel, deps.identity));

  if (mount.entry && isNfs(mount.entry) && mount.ours) {
    checks.push(await roundTripCheck(mount.dir!));
  } else {
    checks.push(skip(ROUND_TRIP_CHECK, `write/read/rename/unlink round trip: skipped, no NFS mount of ${input.fileSystemId}`));
  }

  return reportOf(input, checks, started);
}

function reportOf(input: DoctorInput, checks: CheckResult[], started: number): DoctorReport {
  const counts = { pass: 0, warn: 0, fail: 0, skip: 0 };
  for (const c of checks) counts[c.status]++;
  return { fileSystemId: input.fileSystemId, region: input.region, checks, counts, seconds: (Date.now() - started) / 1000 };
}

/**
 * An S3 Files file system's checks, in the same order: its names (zonal ones for --az-id), TCP 2049
 * at each address, the IPv6/NAT64 pitfall, the mount (always through amazon-efs-utils' proxy, with
 * TLS), amazon-efs-utils' release, the caller's own IAM policies, and the round trip. What only the
 * S3 Files API tells (the mount targets, the file system policy, the access point) is skipped,
 * saying so: this build has no client for it.
 */
async function s3FilesChecks(input: DoctorInput, deps: DoctorDeps): Promise<CheckResult[]> {
  const aws = 'skipped' in deps.aws ? undefined : deps.aws;
  const noAws = 'skipped' in deps.aws ? deps.aws.skipped : undefined;
  const checks: CheckResult[] = [skip('file-system', `the file system's mount targets: skipped, listing them is the S3 Files API (ListMountTargets), and this build has no client for it; --az-id names the zones to check`)];

  const names = await s3FilesNameChecks(input.fileSystemId, input.region, input.availabilityZoneIds ?? [], newResolver({ servers: deps.dnsServers }));
  checks.push(...names.checks);

  const mount = findMount(input, deps, names.targets);
  const tunnel = mount.entry && isLocalProxy(mount.entry) ? tunnelStateFor(Number(optionMap(mount.entry.superOptions).get('port')), deps.efsUtilsStateDir) : undefined;
  const addresses = new Map<string, string>();
  for (const t of names.targets) for (const a of [t.ipv4, t.ipv6]) if (a) addresses.set(a, `mount target in ${t.availabilityZone}`);
  for (const [a, what] of names.otherAddresses) addresses.set(a, what);
  checks.push(...await tcpChecks(addresses, names.targets, deps.nfsPort ?? NFS_PORT));
  checks.push(addressFamilyCheck(names.lookups, parseIpv6Routes((deps.ipv6Routes ?? (() => readIfPresent(IPV6_ROUTE_TABLE)))())));

  checks.push(mount.check);
  if (mount.entry && isNfs(mount.entry)) {
    checks.push(skip(MOUNT_OPTIONS_CHECK, 'mount options: skipped, mount.s3files sets them itself (nfsvers=4.2, rsize=wsize=1 MiB, hard, timeo=600, retrans=2, noresvport)'));
    checks.push(await encryptionCheck(mount.entry, tunnel));
  } else {
    checks.push(skip(MOUNT_OPTIONS_CHECK, 'mount options: skipped, no NFS mount to read them from'));
    checks.push(skip('encryption-in-transit', 'encryption in transit: skipped, no NFS mount'));
  }
  checks.push(await s3FilesUtilsCheck(deps.mountS3FilesCommand, deps.mountEfsCommand));

  if (!aws || input.region === undefined) {
    checks.push(skip(S3FILES_POLICY_CHECK, `s3files:ClientMount and ClientWrite for this identity: skipped, ${noAws ?? 'no Region given'}`));
  } else if ('problem' in aws.caller) {
    checks.push(warn(S3FILES_POLICY_CHECK, `could not tell who the caller is: ${aws.caller.problem}`, 'check the credentials (sts get-caller-identity)'));
  } else {
    const fileSystemArn = s3FilesFileSystemArn(partitionOf(input.region), input.region, aws.caller.value.account, input.fileSystemId);
    const accessPointId = tunnel?.accessPointId ?? input.accessPointId;
    checks.push(s3FilesClientAccessCheck({
      fileSystemArn,
      caller: aws.caller.value,
      identityPolicies: 'value' in aws.identityPolicies ? aws.identityPolicies.value : aws.identityPolicies,
      accessPointArn: accessPointId ? s3FilesAccessPointArn(fileSystemArn, accessPointId) : undefined,
    }));
  }
  checks.push(skip('access-point', input.accessPointId
    ? `access point ${input.accessPointId}: skipped, describing it is the S3 Files API (GetAccessPoint), and this build has no client for it`
    : 'access point: none given'));

  if (mount.entry && isNfs(mount.entry) && mount.ours) {
    checks.push(await roundTripCheck(mount.dir!));
  } else {
    checks.push(skip(ROUND_TRIP_CHECK, `write/read/rename/unlink round trip: skipped, no NFS mount of ${input.fileSystemId}`));
  }
  return checks;
}

function readIfPresent(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The Region AWS facts were read in: the command reads none without one. */
function awsRegion(input: DoctorInput): string {
  if (input.region === undefined) throw new Error('AWS facts without a Region');
  return input.region;
}

function fileSystemCheck(input: DoctorInput, aws: AwsFacts): CheckResult {
  if ('problem' in aws.mountTargets) {
    if (/FileSystemNotFound/.test(aws.mountTargets.problem)) {
      return fail('file-system', `no file system ${input.fileSystemId} in ${input.region} for this account (${aws.mountTargets.problem})`, 'check the id, --region, and the account the credentials belong to');
    }
    return warn('file-system', `could not describe the mount targets of ${input.fileSystemId}: ${aws.mountTargets.problem}`, 'allow elasticfilesystem:DescribeMountTargets to this identity, for the checks that need the mount targets');
  }
  const { targets } = aws.mountTargets.value;
  if (targets.length === 0) return fail('file-system', `${input.fileSystemId} has no mount targets`, 'create a mount target in each Availability Zone your clients run in');
  const listed = targets.map((t) => `${t.availabilityZone} ${[t.ipv4, t.ipv6].filter(Boolean).join('/')} (${t.lifeCycleState})`).join(', ');
  const notReady = targets.filter((t) => t.lifeCycleState !== 'available');
  if (notReady.length) return warn('file-system', `${input.fileSystemId}: ${listed}`, `wait until ${notReady.map((t) => t.id).join(', ')} ${notReady.length === 1 ? 'is' : 'are'} available`);
  return pass('file-system', `${input.fileSystemId} has ${targets.length} mount target${targets.length === 1 ? '' : 's'}: ${listed}`);
}

function fileSystemNameCheck(name: string, addresses: string[], problems: string, targets: DescribedMountTarget[] | undefined): CheckResult {
  const fix = 'the name resolves only inside the file system\'s VPC (DNS support and DNS hostnames on), from an Availability Zone with a mount target, and 60-90 s after the mount target is created; '
    + 'from another VPC, a peered network or a VPN, mount by a mount target\'s zone name or IP address';
  if (addresses.length === 0) return fail('dns-file-system', `${name} does not resolve (${problems})`, fix);
  const known = targets?.flatMap((t) => [t.ipv4, t.ipv6]).filter(Boolean);
  if (known && !addresses.some((a) => known.includes(a))) {
    return fail('dns-file-system', `${name} resolves to ${addresses.join(', ')}, which is no mount target of the file system (an /etc/hosts entry or a stale record?)`, 'remove the entry that overrides the name');
  }
  const zone = targets?.find((t) => addresses.includes(t.ipv4 ?? '') || addresses.includes(t.ipv6 ?? ''));
  return pass('dns-file-system', `${name} resolves to ${addresses.join(', ')}${zone ? ` (the mount target in ${zone.availabilityZone})` : ''}`);
}

async function zoneNameChecks(input: DoctorInput, t: DescribedMountTarget, resolver: ReturnType<typeof newResolver>): Promise<CheckResult[]> {
  const name = mountTargetDnsName(t.availabilityZone, input.fileSystemId, awsRegion(input));
  const wanted = [t.ipv4 ? { type: 'A' as const, address: t.ipv4 } : undefined, t.ipv6 ? { type: 'AAAA' as const, address: t.ipv6 } : undefined].filter((w) => !!w);
  return Promise.all(wanted.map(async ({ type, address }) => {
    const found = await lookup(resolver, name, type);
    if (found.addresses.includes(address)) return pass('dns-mount-target', `${name} resolves (${type}) to ${address}`);
    const seen = found.problem ?? `resolves to ${found.addresses.join(', ')}`;
    return fail('dns-mount-target', `${name} (${type}) should resolve to ${address}, the address of ${t.id}, but: ${seen}`,
      'a new mount target\'s name resolves within 60-90 s; otherwise resolve from inside the VPC (DNS support and hostnames on), or mount by IP address');
  }));
}

async function tcpChecks(addresses: Map<string, string>, targets: DescribedMountTarget[] | undefined, port: number): Promise<CheckResult[]> {
  if (addresses.size === 0) return [skip('tcp-2049', 'TCP 2049: skipped, no address to connect to (the names did not resolve and the mount targets are unknown)')];
  const probes = await Promise.all([...addresses].map(async ([address, what]) => ({ what, address, probe: await connectTcp(address, port, CONNECT_TIMEOUT_MS) })));
  const connected = new Set(probes.filter((p) => p.probe.connected).map((p) => p.address));
  return probes.map(({ what, address, probe }) => {
    if (probe.connected) return pass('tcp-2049', `${endpointOf(address, port)} (${what}) accepts connections (${probe.ms.toFixed(1)} ms)`);
    const detail = `${endpointOf(address, port)} (${what}): ${probe.problem}`;
    // An IPv6 address this client cannot reach matters less when the same mount target answers on IPv4.
    const sibling = targets?.find((t) => t.ipv6 === address && t.ipv4 && connected.has(t.ipv4));
    if (sibling && net.isIPv6(address)) return warn('tcp-2049', detail, 'this client reaches the mount target over IPv4; for IPv6, give the client an IPv6 address in a dual-stack subnet');
    return fail('tcp-2049', detail, `allow inbound TCP ${port} on the mount target's security group from this client (its security group or address), outbound on the client's, and check network ACLs and routes (peering, VPN)`);
  });
}

interface FoundMount {
  readonly check: CheckResult;
  readonly entry?: MountEntry;
  /** The directory to work in: --mount-point, or the mount point found. */
  readonly dir?: string;
  /** The mount is of this file system (or, with --mount-point, cannot be shown to be of another). */
  readonly ours: boolean;
}

const isLocalProxy = (entry: MountEntry) => isNfs(entry) && nfsServerOf(entry.source) === '127.0.0.1' && optionMap(entry.superOptions).has('port');

/** The mount of the file system: by its name in the source, efs-utils' state file, or (with the mount targets known) the address mounted. */
function findMount(input: DoctorInput, deps: DoctorDeps, targets: DescribedMountTarget[] | undefined): FoundMount {
  const entries = parseMountInfo(deps.mountinfo());
  const fsOf = (e: MountEntry) => {
    if (isLocalProxy(e)) return tunnelStateFor(Number(optionMap(e.superOptions).get('port')), deps.efsUtilsStateDir)?.fileSystemId;
    const server = nfsServerOf(e.source);
    if (targets?.some((t) => t.ipv4 === server || t.ipv6 === server)) return input.fileSystemId;
    return /(?:^|\.)(fs-[0-9a-f]{8,40})\.(?:efs|s3files)\./.exec(server)?.[1];
  };
  if (input.mountPoint) {
    const dir = fs.realpathSync(input.mountPoint);
    const entry = mountContaining(entries, dir);
    const where = entry && entry.mountPoint !== dir ? `${dir} (inside the mount at ${entry.mountPoint})` : dir;
    const mountCommand = input.kind === 'S3_FILES'
      ? `sudo mount -t s3files${input.accessPointId ? ` -o accesspoint=${input.accessPointId}` : ''} ${input.fileSystemId}:/ ${dir}`
      : `sudo mount -t efs -o tls,iam${input.accessPointId ? `,accesspoint=${input.accessPointId}` : ''} ${input.fileSystemId}:/ ${dir}`;
    if (!entry || !isNfs(entry)) {
      return { check: fail('mount', `${where} is not an NFS mount${entry ? ` (it is ${entry.fsType}, ${entry.source})` : ''}`, `mount the file system there: ${mountCommand}`), entry, dir, ours: false };
    }
    const other = fsOf(entry);
    if (other && other !== input.fileSystemId) {
      return { check: fail('mount', `${where} mounts ${other}, not ${input.fileSystemId}`, `mount ${input.fileSystemId} there: ${mountCommand}`), entry, dir, ours: false };
    }
    return { check: pass('mount', `${where} is an NFS mount of ${other ?? `${entry.source} (not shown to be ${input.fileSystemId}: its server is an address)`}${describeMount(entry)}`), entry, dir, ours: true };
  }
  const ours = entries.filter((e) => isNfs(e) && fsOf(e) === input.fileSystemId);
  const entry = ours[ours.length - 1];
  if (!entry) return { check: skip('mount', `no mount of ${input.fileSystemId} on this machine (give --mount-point to check a directory)`), ours: false };
  return { check: pass('mount', `${input.fileSystemId} is mounted at ${entry.mountPoint}${describeMount(entry)}${ours.length > 1 ? ` (and ${ours.length - 1} more)` : ''}`), entry, dir: entry.mountPoint, ours: true };
}

function describeMount(entry: MountEntry): string {
  const options = optionMap(entry.superOptions);
  const readOnly = entry.mountOptions.includes('ro') ? ', read-only' : '';
  return isLocalProxy(entry) ? ` (${entry.fsType} through amazon-efs-utils' local proxy on port ${options.get('port')}${readOnly})` : ` (${entry.fsType} from ${entry.source}${readOnly})`;
}

async function encryptionCheck(entry: MountEntry, tunnel: TunnelState | undefined): Promise<CheckResult> {
  const id = 'encryption-in-transit';
  if (!isLocalProxy(entry)) {
    return warn(id, `${entry.mountPoint} is a direct NFS mount of ${entry.source}: traffic is not encrypted, and no IAM or access point applies`, 'mount with amazon-efs-utils: mount -t efs -o tls,iam <fs-id>:/ <dir>');
  }
  const port = optionMap(entry.superOptions).get('port');
  if (!tunnel) return warn(id, `${entry.mountPoint} goes through 127.0.0.1:${port}, but no amazon-efs-utils state file names that port`, 'remount with mount -t efs; if the mount was made by hand through a proxy of your own, ignore this');
  if (tunnel.pid === undefined || !processAlive(tunnel.pid)) {
    return fail(id, `${tunnel.proxy} for ${entry.mountPoint} (${tunnel.stateFile}) is not running${tunnel.pid ? ` (pid ${tunnel.pid} is gone)` : ''}: I/O on the mount hangs`,
      'restart amazon-efs-utils\' watchdog (systemctl restart amazon-efs-mount-watchdog), or unmount and mount again');
  }
  const probe = await connectTcp('127.0.0.1', Number(port), CONNECT_TIMEOUT_MS);
  if (!probe.connected) {
    return fail(id, `${tunnel.proxy} (pid ${tunnel.pid}) runs, but 127.0.0.1:${port}, where the kernel sends ${entry.mountPoint}'s NFS, does not answer: ${probe.problem}`,
      'unmount and mount again (amazon-efs-utils starts a new proxy)');
  }
  const what = `${tunnel.proxy} (pid ${tunnel.pid}) serves 127.0.0.1:${port}${tunnel.iam ? ', IAM' : ''}${tunnel.accessPointId ? `, access point ${tunnel.accessPointId}` : ''}`;
  if (!tunnel.tls) return warn(id, `${what} without TLS: traffic to EFS is not encrypted`, 'remount with -o tls');
  return pass(id, `${what} with TLS`);
}

/** amazon-efs-utils: 2.0 brought efs-proxy (up to 1,500 MiB/s per client on Elastic), 2.3 IPv6 mounts (EFS User Guide). */
async function efsUtilsCheck(input: DoctorInput, targets: DescribedMountTarget[] | undefined, command: string | undefined): Promise<CheckResult> {
  const id = 'efs-utils';
  const installed = await efsUtilsVersion(command);
  const ipv6Only = targets?.some((t) => t.ipv6 && !t.ipv4);
  if (!installed) {
    const detail = 'amazon-efs-utils is not installed: mount -t efs (TLS, IAM, access points) is not available here';
    const fix = 'install amazon-efs-utils (Amazon Linux: dnf install amazon-efs-utils; others: build it from github.com/aws/efs-utils)';
    return input.accessPointId ? fail(id, `${detail}, and mounting through ${input.accessPointId} needs it`, fix) : warn(id, detail, fix);
  }
  const at = `amazon-efs-utils ${installed.version} (${installed.command})`;
  if (ipv6Only && compareVersions(installed.version, '2.3') < 0) return fail(id, `${at} cannot mount IPv6-only mount targets (2.3 or later can)`, 'upgrade amazon-efs-utils');
  if (compareVersions(installed.version, '2.0') < 0) {
    return warn(id, `${at} mounts through stunnel; 2.0 and later use efs-proxy, with up to 1,500 MiB/s per client on Elastic throughput (500 before)`, 'upgrade amazon-efs-utils');
  }
  return pass(id, at);
}

function policyCheck(input: DoctorInput, aws: AwsFacts | undefined, noAws: string | undefined, how: { tls: boolean; iam: boolean; accessPointId?: string },
  accessPoint: AccessPointFacts | undefined, identity: PosixIdentity): CheckResult {
  if (!aws) return skip(POLICY_CHECK, `file system policy for this identity: skipped, ${noAws}`);
  if ('problem' in aws.fileSystemPolicy) {
    return warn(POLICY_CHECK, `could not read the file system policy: ${aws.fileSystemPolicy.problem}`, 'allow elasticfilesystem:DescribeFileSystemPolicy to this identity to have the policy checked');
  }
  if (how.iam && 'problem' in aws.caller) return warn(POLICY_CHECK, `could not tell who the caller is: ${aws.caller.problem}`, 'check the credentials (sts get-caller-identity)');
  const caller = how.iam && 'value' in aws.caller ? aws.caller.value : undefined;
  // The file system's account: its mount targets' owner, else (the usual case) the caller's.
  const account = ('value' in aws.mountTargets ? aws.mountTargets.value.ownerId : undefined) ?? ('value' in aws.caller ? aws.caller.value.account : undefined);
  if (!account) return warn(POLICY_CHECK, 'could not tell the file system\'s account (neither DescribeMountTargets nor GetCallerIdentity answered)', 'check the credentials and elasticfilesystem:DescribeMountTargets');
  const region = awsRegion(input);
  const apArn = how.accessPointId ? (accessPoint?.id === how.accessPointId ? accessPoint.arn : `arn:${partitionOf(region)}:elasticfilesystem:${region}:${account}:access-point/${how.accessPointId}`) : undefined;
  const mode = `mounting ${how.tls ? 'with TLS' : 'without TLS'}${how.iam ? ', with IAM' : ', without IAM'}${how.accessPointId ? `, through ${how.accessPointId}` : ''}`;
  return clientAccessCheck({
    fileSystemArn: fileSystemArn(partitionOf(region), region, account, input.fileSystemId),
    fileSystemAccount: account,
    fileSystemPolicy: aws.fileSystemPolicy.value,
    identityPolicies: 'value' in aws.identityPolicies ? aws.identityPolicies.value : undefined,
    caller,
    tls: how.tls,
    accessPointArn: apArn,
  }, mode, identity.uid === 0 && !accessPoint?.posixUser);
}

function accessPointChecks(input: DoctorInput, aws: AwsFacts | undefined, noAws: string | undefined, accessPoint: AccessPointFacts | undefined,
  mountDir: string | undefined, tunnel: TunnelState | undefined, identity: PosixIdentity): CheckResult[] {
  if (!input.accessPointId) {
    if (!mountDir) return [skip(IDENTITY_CHECK, 'POSIX identity: skipped, no access point and no mount')];
    const dir = fs.statSync(mountDir);
    const owner = { uid: dir.uid, gid: dir.gid, mode: dir.mode & 0o777 };
    const described = `${mountDir} (owner ${owner.uid}:${owner.gid}, mode ${owner.mode.toString(8)})`;
    return [canWrite(identity, owner)
      ? pass(IDENTITY_CHECK, `this client (${identity.uid}:${identity.gid}) may write ${described}`)
      : warn(IDENTITY_CHECK, `this client (${identity.uid}:${identity.gid}) may not write ${described}`, `run as ${owner.uid}:${owner.gid}, or use an access point that writes as it`)];
  }
  if (!aws) return [skip('access-point', `access point ${input.accessPointId}: skipped, ${noAws}`)];
  if (!aws.accessPoint || 'problem' in aws.accessPoint) {
    return [fail('access-point', `could not describe ${input.accessPointId}: ${aws.accessPoint && 'problem' in aws.accessPoint ? aws.accessPoint.problem : 'not read'}`, 'check the id (fsap-...), --region, and elasticfilesystem:DescribeAccessPoints')];
  }
  const ap = accessPoint!;
  if (ap.fileSystemId !== input.fileSystemId) return [fail('access-point', `${ap.id} belongs to ${ap.fileSystemId}, not ${input.fileSystemId}`, `use an access point of ${input.fileSystemId}`)];
  const results: CheckResult[] = [ap.lifeCycleState === 'available'
    ? pass('access-point', `${ap.id} (root ${ap.rootPath}${ap.posixUser ? `, user ${ap.posixUser.uid}:${ap.posixUser.gid}` : ''}) is available`)
    : warn('access-point', `${ap.id} is ${ap.lifeCycleState}`, 'wait until it is available')];
  if (tunnel?.accessPointId && tunnel.accessPointId !== ap.id) {
    results.push(warn('access-point', `the mount goes through ${tunnel.accessPointId}, not ${ap.id}`, `mount with -o accesspoint=${ap.id}, or run the doctor with --access-point ${tunnel.accessPointId}`));
  }
  results.push(compareWithAccessPoint(identity, ap.id, ap.posixUser));
  const writer = ap.posixUser ?? identity;
  const throughThisAccessPoint = mountDir && tunnel?.accessPointId === ap.id;
  if (throughThisAccessPoint) {
    const dir = fs.statSync(mountDir);
    results.push(judgeRootDirectory(ap.id, ap.rootPath, writer, { uid: dir.uid, gid: dir.gid, mode: dir.mode & 0o777 }, `as mounted at ${mountDir}`));
  } else if (ap.rootCreationInfo) {
    results.push(judgeRootDirectory(ap.id, ap.rootPath, writer, ap.rootCreationInfo, 'as the access point creates it, if it does not exist yet'));
  } else {
    results.push(skip(ROOT_DIRECTORY_CHECK, `root directory of ${ap.id}: skipped, it has no CreationInfo and is not mounted here`));
  }
  return results;
}
