import { Arn, ArnFormat, Token } from 'aws-cdk-lib';
import * as efs from 'aws-cdk-lib/aws-efs';
import { ReplicationWatch } from './replication-row';

/** What a file system defined in this app (SharedFileSystem or efs.FileSystem) declares, if visible. */
export interface DeclaredSettings {
  readonly throughputMode?: efs.ThroughputMode;
  readonly performanceMode?: efs.PerformanceMode;
  readonly provisionedMibps?: number;
  /** Unknown for a file system not defined in this app. */
  readonly oneZone?: boolean;
  /** Set when it replicates. */
  readonly replication?: ReplicationWatch;
}

export function declaredSettings(fileSystem: efs.IFileSystem): DeclaredSettings {
  const cfn = fileSystem.node.defaultChild;
  if (!efs.CfnFileSystem.isCfnFileSystem(cfn)) return {};
  return {
    replication: declaredReplication(cfn),
    // CloudFormation's default is Bursting.
    throughputMode: (cfn.throughputMode as efs.ThroughputMode | undefined) ?? efs.ThroughputMode.BURSTING,
    performanceMode: (cfn.performanceMode as efs.PerformanceMode | undefined) ?? efs.PerformanceMode.GENERAL_PURPOSE,
    provisionedMibps: cfn.provisionedThroughputInMibps,
    // A One Zone file system names its Availability Zone.
    oneZone: cfn.availabilityZoneName !== undefined,
  };
}

/** The replication a file system defined in this app declares; the destination by its id, also when it is named by its ARN (cross-account). */
function declaredReplication(cfn: efs.CfnFileSystem): ReplicationWatch | undefined {
  const config = cfn.replicationConfiguration as efs.CfnFileSystem.ReplicationConfigurationProperty | undefined;
  const destinations = config?.destinations as efs.CfnFileSystem.ReplicationDestinationProperty[] | undefined;
  if (!destinations || destinations.length === 0) return undefined;
  const id = destinations[0].fileSystemId;
  if (id === undefined || Token.isUnresolved(id) || !id.startsWith('arn:')) return { destinationFileSystemId: id };
  return { destinationFileSystemId: Arn.split(id, ArnFormat.SLASH_RESOURCE_NAME).resourceName };
}
