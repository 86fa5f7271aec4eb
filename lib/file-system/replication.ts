import { Annotations, Arn, ArnFormat, Stack, Token } from 'aws-cdk-lib';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { acknowledgeWildcard, nagResource } from '../core/nag';
import { check } from '../core/validate';
import { ValidationError } from '../core/validation-error';
import { propName } from '../core/contract/prop-name';

/**
 * A SharedFileSystem's `replicationConfiguration` turned into CloudFormation's replication
 * destination. Written here rather than left to efs.FileSystem because cross-account replication
 * needs what aws-cdk does not render (the destination's ARN and an IAM role, EFS User Guide
 * "Replicating EFS file systems across AWS accounts"), and because aws-cdk takes an existing
 * destination's Region from the importing stack, not from the ARN it was imported by.
 */

/** What EFS needs on the destination file system to replicate into it for another account (the User Guide's list). */
export const DESTINATION_REPLICATION_ACTIONS = [
  'elasticfilesystem:DescribeFileSystems',
  'elasticfilesystem:CreateReplicationConfiguration',
  'elasticfilesystem:DescribeReplicationConfigurations',
  'elasticfilesystem:DeleteReplicationConfiguration',
  'elasticfilesystem:ReplicationWrite',
];

/** The destination as CloudFormation takes it, and what the monitoring needs to know of it. */
export interface ReplicationPlan {
  readonly destination: efs.CfnFileSystem.ReplicationDestinationProperty;
  /** The destination's id when it exists already; a new destination's id is EFS's to pick at deploy time. */
  readonly destinationFileSystemId?: string;
  /** The destination's account, when replication crosses accounts. */
  readonly crossAccount?: string;
}

/** Where an existing destination lives: from its ARN when that is known at synth, else from its stack. */
interface DestinationPlace {
  readonly fileSystemId: string;
  readonly fileSystemArn: string;
  readonly account: string;
  readonly region: string;
}

function placeOf(source: Construct, where: string, destination: efs.IFileSystem): DestinationPlace {
  if (!Token.isUnresolved(destination.fileSystemArn)) {
    const arn = Arn.split(destination.fileSystemArn, ArnFormat.SLASH_RESOURCE_NAME);
    if (arn.service !== 'elasticfilesystem' || arn.resource !== 'file-system' || !arn.resourceName || !arn.account || !arn.region) {
      throw new ValidationError(`${where}: the destination's ARN must be an EFS file system's (arn:aws:elasticfilesystem:<region>:<account>:file-system/fs-...), got ${JSON.stringify(destination.fileSystemArn)}.`, source);
    }
    return { fileSystemId: arn.resourceName, fileSystemArn: destination.fileSystemArn, account: arn.account, region: arn.region };
  }
  return { fileSystemId: destination.fileSystemId, fileSystemArn: destination.fileSystemArn, account: destination.env.account, region: destination.env.region };
}

/** The replication overwrite protection a file system defined in this app declares, if it is visible. */
function declaredOverwriteProtection(fileSystem: efs.IFileSystem): string | undefined {
  let node = fileSystem.node.defaultChild;
  while (node && !efs.CfnFileSystem.isCfnFileSystem(node)) node = node.node.defaultChild;
  if (!node) return undefined;
  const protection = (node as efs.CfnFileSystem).fileSystemProtection as efs.CfnFileSystem.FileSystemProtectionProperty | undefined;
  return protection?.replicationOverwriteProtection ?? efs.ReplicationOverwriteProtection.ENABLED;
}

/**
 * The replication destination of `source`; for another account also the role EFS assumes and the
 * statement that lets the destination's account end the replication (`addToPolicy`).
 */
export function planReplication(source: Construct, config: efs.ReplicationConfiguration, addToPolicy: (s: iam.PolicyStatement) => void): ReplicationPlan {
  const stack = Stack.of(source);
  const where = `SharedFileSystem(${source.node.path}): replicationConfiguration`;
  const destination = config.destinationFileSystem;
  if (!destination) {
    const region = config.region ?? stack.region;
    const zone = config.availabilityZone;
    if (zone !== undefined && !Token.isUnresolved(region)) {
      check(zone.startsWith(region), where, 'availabilityZone', zone, `must be a zone of the destination Region ${region}`, source);
    }
    return { destination: { region, availabilityZoneName: zone, kmsKeyId: config.kmsKey?.keyArn } };
  }

  const place = placeOf(source, where, destination);
  const protection = declaredOverwriteProtection(destination);
  if (protection !== undefined && protection !== efs.ReplicationOverwriteProtection.DISABLED) {
    throw new ValidationError(`${where}: the destination file system ${destination.node.path} must have ${propName('replicationOverwriteProtection')} DISABLED (EFS replicates only into an unprotected file system, which then becomes read-only), got ${protection}.`, source);
  }
  const accountsKnown = !Token.isUnresolved(place.account) && !Token.isUnresolved(stack.account);
  if (!Token.isUnresolved(place.account) && Token.isUnresolved(stack.account)) {
    Annotations.of(source).addWarningV2('cdk-efs-kit:replicationAccountUnknown',
      `The replication destination is in account ${place.account}, but this stack has no env.account: if that is another account, set env.account so the role and policy of cross-account replication are added.`);
  }
  if (!accountsKnown || place.account === stack.account) {
    return { destination: { fileSystemId: place.fileSystemId, region: place.region }, destinationFileSystemId: place.fileSystemId };
  }
  const role = crossAccountRole(source, place);
  addToPolicy(new iam.PolicyStatement({
    sid: 'AllowDestinationAccountToDeleteReplication',
    principals: [new iam.AccountPrincipal(place.account)],
    actions: ['elasticfilesystem:DeleteReplicationConfiguration'],
  }));
  return {
    // Across accounts EFS takes the destination by its ARN, with the role that may write to it.
    destination: { fileSystemId: place.fileSystemArn, region: place.region, roleArn: role.roleArn },
    destinationFileSystemId: place.fileSystemId,
    crossAccount: place.account,
  };
}

/** The role EFS assumes to replicate into another account: write the destination, read the source. */
function crossAccountRole(source: Construct, destination: DestinationPlace): iam.Role {
  const stack = Stack.of(source);
  // The source's own ARN cannot be named: CloudFormation creates the replication with the file
  // system, so the role (which the file system references) exists first. Read-only actions on this
  // account's file systems in this Region are the tightest scope that breaks no cycle.
  const sources = stack.formatArn({ service: 'elasticfilesystem', resource: 'file-system', resourceName: '*' });
  const role = new iam.Role(source, 'ReplicationRole', {
    assumedBy: new iam.ServicePrincipal('elasticfilesystem.amazonaws.com'),
    description: `EFS replication of ${source.node.path} into account ${destination.account}`,
    inlinePolicies: {
      Replication: new iam.PolicyDocument({
        statements: [
          new iam.PolicyStatement({ actions: DESTINATION_REPLICATION_ACTIONS, resources: [destination.fileSystemArn] }),
          new iam.PolicyStatement({ actions: ['elasticfilesystem:ReplicationRead', 'elasticfilesystem:DescribeFileSystems'], resources: [sources] }),
        ],
      }),
    },
  });
  acknowledgeWildcard(role, nagResource(role, sources),
    'Read-only replication actions on this account\'s file systems in this Region: the source\'s own ARN would make a cycle, as CloudFormation creates the replication together with the file system.');
  return role;
}

/** The statement a destination file system needs to accept replication from `sourceAccount`. */
export function acceptReplicationStatement(destination: Construct, sourceAccount: string): iam.PolicyStatement {
  check(/^\d{12}$/.test(sourceAccount), `SharedFileSystem(${destination.node.path}).acceptReplicationFrom`, 'sourceAccount', sourceAccount, 'must be a 12-digit AWS account id', destination);
  return new iam.PolicyStatement({
    sid: `AllowReplicationFrom${Token.isUnresolved(sourceAccount) ? 'SourceAccount' : sourceAccount}`,
    principals: [new iam.AccountPrincipal(sourceAccount)],
    actions: DESTINATION_REPLICATION_ACTIONS,
  });
}
