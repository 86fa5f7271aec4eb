import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as kms from 'aws-cdk-lib/aws-kms';
import { SharedFileSystem } from '../../../lib';
import { cfnLintErrors, nagErrors } from '../../helpers/checks';

const SOURCE_ACCOUNT = '111111111111';
const DESTINATION_ACCOUNT = '222222222222';
const REPLICA_ARN = `arn:aws:elasticfilesystem:us-west-2:${DESTINATION_ACCOUNT}:file-system/fs-0123456789abcdef0`;

let stack: Stack;
let vpc: ec2.Vpc;

function newStack(env?: { account: string; region: string }): void {
  stack = new Stack(new App(), 'Source', { env });
  vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
}

beforeEach(() => newStack({ account: SOURCE_ACCOUNT, region: 'us-east-1' }));

const sourceFileSystem = () => {
  const found = Object.entries(Template.fromStack(stack).findResources('AWS::EFS::FileSystem'))
    .filter(([id]) => id.startsWith('Files'));
  expect(found).toHaveLength(1);
  return found[0][1].Properties;
};

const importedByArn = (arn: string) => efs.FileSystem.fromFileSystemAttributes(stack, 'Replica', {
  fileSystemArn: arn,
  securityGroup: ec2.SecurityGroup.fromSecurityGroupId(stack, 'ReplicaSg', 'sg-0123456789abcdef0'),
});

describe('to a new file system', () => {
  test('Regional, in the stack\'s Region by default', () => {
    new SharedFileSystem(stack, 'Files', { vpc, replicationConfiguration: efs.ReplicationConfiguration.regionalFileSystem() });
    expect(sourceFileSystem().ReplicationConfiguration).toEqual({ Destinations: [{ Region: 'us-east-1' }] });
  });

  test('Regional, in another Region with a KMS key', () => {
    const key = new kms.Key(stack, 'Key');
    new SharedFileSystem(stack, 'Files', { vpc, replicationConfiguration: efs.ReplicationConfiguration.regionalFileSystem('eu-west-1', key) });
    expect(sourceFileSystem().ReplicationConfiguration).toEqual({
      Destinations: [{ Region: 'eu-west-1', KmsKeyId: stack.resolve(key.keyArn) }],
    });
  });

  test('One Zone, in the zone given', () => {
    new SharedFileSystem(stack, 'Files', { vpc, replicationConfiguration: efs.ReplicationConfiguration.oneZoneFileSystem('us-west-2', 'us-west-2b') });
    expect(sourceFileSystem().ReplicationConfiguration).toEqual({ Destinations: [{ Region: 'us-west-2', AvailabilityZoneName: 'us-west-2b' }] });
  });

  test('fails when the One Zone destination\'s zone is not in its Region', () => {
    expect(() => new SharedFileSystem(stack, 'Files', {
      vpc, replicationConfiguration: efs.ReplicationConfiguration.oneZoneFileSystem('us-west-2', 'eu-west-1a'),
    })).toThrow('SharedFileSystem(Source/Files): replicationConfiguration: availabilityZone (availability_zone) must be a zone of the destination Region us-west-2, got "eu-west-1a".');
  });

  test('no role and no extra policy statement within one account', () => {
    new SharedFileSystem(stack, 'Files', { vpc, replicationConfiguration: efs.ReplicationConfiguration.regionalFileSystem() });
    Template.fromStack(stack).resourceCountIs('AWS::IAM::Role', 0);
    expect(sourceFileSystem().FileSystemPolicy.Statement.map((s: any) => s.Sid)).toEqual(['DenyWithoutTls']);
  });
});

describe('to an existing file system', () => {
  test('in this app: by its id, in its Region', () => {
    const replica = new SharedFileSystem(stack, 'Replica', { vpc, replicationOverwriteProtection: efs.ReplicationOverwriteProtection.DISABLED });
    const files = new SharedFileSystem(stack, 'Files', { vpc, replicationConfiguration: efs.ReplicationConfiguration.existingFileSystem(replica) });
    expect(sourceFileSystem().ReplicationConfiguration).toEqual({
      Destinations: [{ FileSystemId: stack.resolve(replica.fileSystemId), Region: 'us-east-1' }],
    });
    expect(files.replicationDestinationFileSystemId).toBe(replica.fileSystemId);
    Template.fromStack(stack).hasResourceProperties('AWS::EFS::FileSystem', { FileSystemProtection: { ReplicationOverwriteProtection: 'DISABLED' } });
  });

  test('imported by ARN in another Region: the Region of the ARN, not the stack\'s', () => {
    const arn = `arn:aws:elasticfilesystem:eu-west-1:${SOURCE_ACCOUNT}:file-system/fs-0123456789abcdef0`;
    new SharedFileSystem(stack, 'Files', { vpc, replicationConfiguration: efs.ReplicationConfiguration.existingFileSystem(importedByArn(arn)) });
    expect(sourceFileSystem().ReplicationConfiguration).toEqual({ Destinations: [{ FileSystemId: 'fs-0123456789abcdef0', Region: 'eu-west-1' }] });
  });

  test('fails when the destination in this app keeps its overwrite protection', () => {
    const replica = new SharedFileSystem(stack, 'Replica', { vpc });
    expect(() => new SharedFileSystem(stack, 'Files', { vpc, replicationConfiguration: efs.ReplicationConfiguration.existingFileSystem(replica) }))
      .toThrow(/the destination file system Source\/Replica must have replicationOverwriteProtection \(replication_overwrite_protection\) DISABLED .*, got ENABLED\./);
  });
});

describe('across accounts (EFS User Guide, "Replicating EFS file systems across AWS accounts")', () => {
  beforeEach(() => {
    new SharedFileSystem(stack, 'Files', { vpc, replicationConfiguration: efs.ReplicationConfiguration.existingFileSystem(importedByArn(REPLICA_ARN)) });
  });

  test('names the destination by its ARN, with the role EFS assumes', () => {
    const role = Object.keys(Template.fromStack(stack).findResources('AWS::IAM::Role'))[0];
    expect(sourceFileSystem().ReplicationConfiguration).toEqual({
      Destinations: [{ FileSystemId: REPLICA_ARN, Region: 'us-west-2', RoleArn: { 'Fn::GetAtt': [role, 'Arn'] } }],
    });
  });

  test('the role trusts EFS, may replicate into the destination and read this account\'s file systems', () => {
    Template.fromStack(stack).hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: { Statement: [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'elasticfilesystem.amazonaws.com' } }] },
      Policies: [{
        PolicyName: 'Replication',
        PolicyDocument: {
          Statement: [
            {
              Effect: 'Allow',
              Action: [
                'elasticfilesystem:DescribeFileSystems', 'elasticfilesystem:CreateReplicationConfiguration',
                'elasticfilesystem:DescribeReplicationConfigurations', 'elasticfilesystem:DeleteReplicationConfiguration',
                'elasticfilesystem:ReplicationWrite',
              ],
              Resource: REPLICA_ARN,
            },
            {
              Effect: 'Allow',
              Action: ['elasticfilesystem:ReplicationRead', 'elasticfilesystem:DescribeFileSystems'],
              Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:elasticfilesystem:us-east-1:${SOURCE_ACCOUNT}:file-system/*`]] },
            },
          ],
        },
      }],
    });
  });

  test('the source\'s policy lets the destination account end the replication, behind the TLS deny', () => {
    expect(sourceFileSystem().FileSystemPolicy.Statement).toEqual([
      expect.objectContaining({ Sid: 'DenyWithoutTls' }),
      {
        Sid: 'AllowDestinationAccountToDeleteReplication',
        Effect: 'Allow',
        Principal: { AWS: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:iam::${DESTINATION_ACCOUNT}:root`]] } },
        Action: 'elasticfilesystem:DeleteReplicationConfiguration',
      },
    ]);
  });

  test('is cdk-nag and cfn-lint clean', () => {
    expect(nagErrors(stack.node.findChild('Files'))).toEqual([]);
    expect(cfnLintErrors(Template.fromStack(stack).toJSON())).toEqual([]);
  });
});

test('warns when the stack has no account to tell a cross-account destination by', () => {
  newStack();
  new SharedFileSystem(stack, 'Files', { vpc, replicationConfiguration: efs.ReplicationConfiguration.existingFileSystem(importedByArn(REPLICA_ARN)) });
  Annotations.fromStack(stack).hasWarning('/Source/Files', Match.stringLikeRegexp(`in account ${DESTINATION_ACCOUNT}, but this stack has no env.account.*replicationAccountUnknown`));
  Template.fromStack(stack).resourceCountIs('AWS::IAM::Role', 0);
});

describe('the destination\'s side', () => {
  test('acceptReplicationFrom lets the source account replicate into it', () => {
    const replica = new SharedFileSystem(stack, 'Files', { vpc, replicationOverwriteProtection: efs.ReplicationOverwriteProtection.DISABLED });
    replica.acceptReplicationFrom(DESTINATION_ACCOUNT);
    expect(sourceFileSystem().FileSystemPolicy.Statement[1]).toEqual({
      Sid: `AllowReplicationFrom${DESTINATION_ACCOUNT}`,
      Effect: 'Allow',
      Principal: { AWS: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:iam::${DESTINATION_ACCOUNT}:root`]] } },
      Action: [
        'elasticfilesystem:DescribeFileSystems', 'elasticfilesystem:CreateReplicationConfiguration',
        'elasticfilesystem:DescribeReplicationConfigurations', 'elasticfilesystem:DeleteReplicationConfiguration',
        'elasticfilesystem:ReplicationWrite',
      ],
    });
    expect(sourceFileSystem().FileSystemProtection).toEqual({ ReplicationOverwriteProtection: 'DISABLED' });
  });

  test('fails when the file system keeps its overwrite protection', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc });
    expect(() => files.acceptReplicationFrom(DESTINATION_ACCOUNT)).toThrow(/replicationOverwriteProtection \(replication_overwrite_protection\) is DISABLED, got ENABLED \(the default\)/);
  });

  test('fails when the source account is not an account id', () => {
    const files = new SharedFileSystem(stack, 'Files', { vpc, replicationOverwriteProtection: efs.ReplicationOverwriteProtection.DISABLED });
    expect(() => files.acceptReplicationFrom('prod')).toThrow('SharedFileSystem(Source/Files).acceptReplicationFrom: sourceAccount (source_account) must be a 12-digit AWS account id, got "prod".');
  });
});

test('fails when a file system both replicates and gives up its overwrite protection', () => {
  expect(() => new SharedFileSystem(stack, 'Files', {
    vpc,
    replicationConfiguration: efs.ReplicationConfiguration.regionalFileSystem(),
    replicationOverwriteProtection: efs.ReplicationOverwriteProtection.DISABLED,
  })).toThrow(/replicationOverwriteProtection \(replication_overwrite_protection\) DISABLED makes a file system a replication destination/);
});
