import { Annotations, RemovalPolicy, SizeRoundingBehavior } from 'aws-cdk-lib';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as iam from 'aws-cdk-lib/aws-iam';
import { IConstruct } from 'constructs';
import type { SharedFileSystemProps } from './shared-file-system';
import { check } from '../core/validate';
import { ValidationError } from '../core/validation-error';
import { propName } from '../core/contract/prop-name';

/**
 * A SharedFileSystem's props read once: the secure defaults filled in, the combinations EFS refuses
 * refused, the risky choices warned about, and the file system policy they call for.
 */

/** The props that have a default, with it filled in. */
export interface FileSystemSettings {
  readonly throughputMode: efs.ThroughputMode;
  readonly performanceMode: efs.PerformanceMode;
  readonly tlsEnforced: boolean;
  readonly anonymousAccessAllowed: boolean;
  readonly encrypted: boolean;
  readonly backups: boolean;
  readonly removalPolicy: RemovalPolicy;
}

export function settingsOf(props: SharedFileSystemProps): FileSystemSettings {
  return {
    throughputMode: props.throughputMode ?? efs.ThroughputMode.ELASTIC,
    performanceMode: props.performanceMode ?? efs.PerformanceMode.GENERAL_PURPOSE,
    tlsEnforced: props.enforceTls ?? true,
    anonymousAccessAllowed: props.allowAnonymousAccess ?? false,
    encrypted: props.encrypted ?? true,
    backups: props.enableAutomaticBackups ?? true,
    removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
  };
}

/** The Sids of the secure defaults' statements, which added statements may not reuse. */
export const SECURE_DEFAULT_SIDS = ['DenyWithoutTls', 'AllowAnonymousMountAndWrite'];

/** Deny everything without TLS, and let anonymous clients mount and write only when asked. */
export function basePolicy(settings: FileSystemSettings): iam.PolicyDocument {
  const policy = new iam.PolicyDocument();
  if (settings.tlsEnforced) {
    policy.addStatements(new iam.PolicyStatement({
      sid: 'DenyWithoutTls',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['*'],
      conditions: { Bool: { 'aws:SecureTransport': 'false' } },
    }));
  }
  if (settings.anonymousAccessAllowed) {
    policy.addStatements(new iam.PolicyStatement({
      sid: 'AllowAnonymousMountAndWrite',
      principals: [new iam.AnyPrincipal()],
      actions: ['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite'],
      conditions: { Bool: { 'elasticfilesystem:AccessedViaMountTarget': 'true' } },
    }));
  }
  return policy;
}

/** Throws on a combination EFS refuses, naming the props. */
export function validateProps(scope: IConstruct, props: SharedFileSystemProps, settings: FileSystemSettings): void {
  const WHERE = `SharedFileSystem(${scope.node.path})`;
  const { throughputMode, performanceMode, encrypted } = settings;
  const provisioned = throughputMode === efs.ThroughputMode.PROVISIONED;
  if (provisioned && !props.provisionedThroughputPerSecond) {
    throw new ValidationError(`${WHERE}: ${propName('throughputMode')} PROVISIONED needs ${propName('provisionedThroughputPerSecond')} (e.g. Size.mebibytes(100)), got undefined.`, scope);
  }
  if (!provisioned && props.provisionedThroughputPerSecond) {
    throw new ValidationError(`${WHERE}: ${propName('provisionedThroughputPerSecond')} is only allowed with ${propName('throughputMode')} PROVISIONED, got throughputMode ${throughputMode}.`, scope);
  }
  const mibps = props.provisionedThroughputPerSecond?.toMebibytes({ rounding: SizeRoundingBehavior.NONE });
  if (mibps !== undefined) check(mibps >= 1, WHERE, 'provisionedThroughputPerSecond (MiB/s)', mibps, 'must be at least 1', scope);
  if (performanceMode === efs.PerformanceMode.MAX_IO) {
    if (throughputMode === efs.ThroughputMode.ELASTIC) {
      throw new ValidationError(`${WHERE}: ${propName('performanceMode')} MAX_IO does not support ${propName('throughputMode')} ELASTIC (the default); use GENERAL_PURPOSE, or set throughputMode to BURSTING or PROVISIONED, got performanceMode maxIO.`, scope);
    }
    if (props.oneZone) throw new ValidationError(`${WHERE}: ${propName('performanceMode')} MAX_IO is not available for One Zone file systems (${propName('oneZone')} true), got performanceMode maxIO.`, scope);
  }
  if (props.replicationConfiguration && props.replicationOverwriteProtection === efs.ReplicationOverwriteProtection.DISABLED) {
    throw new ValidationError(`${WHERE}: ${propName('replicationOverwriteProtection')} DISABLED makes a file system a replication destination, which cannot replicate itself; drop one of ${propName('replicationConfiguration')} and replicationOverwriteProtection.`, scope);
  }
  if (!encrypted && props.kmsKey) throw new ValidationError(`${WHERE}: ${propName('kmsKey')} is given but encrypted is false; drop one of them.`, scope);
  if (!props.vpcSubnets && props.vpc.privateSubnets.length === 0 && props.vpc.isolatedSubnets.length === 0) {
    throw new ValidationError(`${WHERE}: vpc has no private or isolated subnets for the mount targets; add some, or pass ${propName('vpcSubnets')} explicitly.`, scope);
  }
}

/** Allowed but risky choices, each an acknowledgeable warning. */
export function warnAboutRiskyChoices(scope: IConstruct, props: SharedFileSystemProps, p: FileSystemSettings): void {
  const warn = (id: string, message: string) => Annotations.of(scope).addWarningV2(`cdk-efs-kit:${id}`, message);
  if (p.removalPolicy === RemovalPolicy.DESTROY) warn('removalPolicyDestroy', 'removalPolicy DESTROY deletes the file system and all its data when it leaves the stack.');
  if (!p.backups) warn('backupsDisabled', 'enableAutomaticBackups is false: nothing can be restored after a bad deploy or a deletion.');
  if (p.throughputMode === efs.ThroughputMode.BURSTING) {
    warn('burstingThroughput', 'throughputMode BURSTING ties throughput to stored size (50 KiB/s per GiB) and drops to 1 MiB/s when burst credits run out; monitor BurstCreditBalance. The mode can be changed once per 24 hours.');
  }
  if (p.performanceMode === efs.PerformanceMode.MAX_IO) warn('maxIoPerformanceMode', 'performanceMode MAX_IO has higher per-operation latency than General Purpose and cannot be changed later.');
  if (!p.encrypted) warn('unencrypted', 'encrypted is false: data at rest is not encrypted, and this cannot be changed after creation.');
  if (!p.tlsEnforced) warn('tlsNotEnforced', 'enforceTls is false: clients may mount without encryption in transit.');
  if (p.anonymousAccessAllowed) warn('anonymousAccess', 'allowAnonymousAccess is true: any client that reaches a mount target can mount and write without IAM authorization.');
  if (props.vpcSubnets) {
    const publicIds = new Set(props.vpc.publicSubnets.map((s) => s.subnetId));
    if (props.vpc.selectSubnets(props.vpcSubnets).subnetIds.some((id) => publicIds.has(id))) {
      warn('publicSubnets', 'vpcSubnets selects public subnets for mount targets; keep them in private or isolated subnets.');
    }
  }
}
