import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { CANARY_REQUEST, S3_FILES_CANARY_REQUEST } from './contract/canary-requests';
import { ProbeRequest } from './probe-request';
import { PROBE_THREAD_POOL_SIZE } from './contract/limits';
import { acknowledgeWildcard, nagResource } from '../core/nag';
import { requireRoute, RouteNeed } from '../core/service-route';
import { ValidationError } from '../core/validation-error';
import { propName } from '../core/contract/prop-name';
import { AccessPointPreset } from '../file-system/access-point-preset';
import { FileSystemKind, IMountableFileSystem } from '../file-system/mountable-file-system';
import { isSharedFileSystemLike } from '../file-system/shared-file-system-brand';
import type { ISharedFileSystem } from '../file-system/shared-file-system-base';
import { S3FilesAccessPoint } from '../s3-files/s3-files-access-point';
import type { IS3FilesFileSystem } from '../s3-files/s3-files-file-system-base';

/** The probe's S3 Files scenarios call S3 from its subnets. */
const S3_ROUTE: RouteNeed = {
  service: 's3', name: 'S3', does: 'its S3 Files scenarios call S3', endpoint: 'an S3 endpoint on their route tables',
  fix: 'add an S3 gateway endpoint to the VPC (free): vpc.addGatewayEndpoint(\'S3\', { service: ec2.GatewayVpcEndpointAwsService.S3 })',
  warningId: 'cdk-efs-kit:probeS3Route',
};

/** Where the probe's own access point roots it, and the key prefix that is on S3 Files. */
const PROBE_ROOT = '/cdk-efs-kit-probe';
export const PROBE_MOUNT_PATH = '/mnt/probe';

/** How a probe reaches one kind of file system: its access point, mount, grants and default canary. */
export interface ProbeMount {
  readonly fileSystemId: string;
  readonly accessPointId: string;
  /** What the handler needs to know of the mount (the access point's user; the bucket on S3 Files). */
  readonly environment: Record<string, string>;
  readonly canaryRequest: ProbeRequest;
  /** The function's group where the mount targets have IPv6: no outbound traffic but what the probe needs. */
  securityGroup(scope: Construct, vpc: ec2.IVpc): ec2.SecurityGroup;
  /** Mounts the access point on `fn` in `vpcSubnets`, with what else the kind needs there. */
  mountOn(fn: lambda.Function, vpcSubnets: ec2.SubnetSelection): void;
}

/** The probe's mount for an EFS (SharedFileSystem-like) or an S3 Files file system. */
export function probeMountOf(probe: Construct, where: string, files: IMountableFileSystem, accessPoint: efs.IAccessPoint | undefined): ProbeMount {
  if (files.fileSystemKind === FileSystemKind.S3_FILES) return s3FilesMount(probe, where, files as IS3FilesFileSystem, accessPoint);
  if (!isSharedFileSystemLike(files)) {
    throw new ValidationError(`${where}: ${propName('fileSystem')} must be a SharedFileSystem (wrap any efs.IFileSystem with SharedFileSystem.fromFileSystem) or an S3FilesFileSystem, got ${files.node.path}.`, probe);
  }
  return efsMount(probe, files, accessPoint);
}

const preset = () => AccessPointPreset.applicationUser(PROBE_ROOT).options;
const posixUserOf = (options: efs.AccessPointOptions) => `${options.posixUser!.uid}:${options.posixUser!.gid}`;
// The probe measures the file system, not the seeded content: it need not wait for seeds.
const MOUNT_OPTIONS = { mountPath: PROBE_MOUNT_PATH, threadPoolSize: PROBE_THREAD_POOL_SIZE, waitForSeeds: false };

function efsMount(probe: Construct, files: ISharedFileSystem, given: efs.IAccessPoint | undefined): ProbeMount {
  const options = preset();
  const accessPoint = given ?? new efs.AccessPoint(probe, 'AccessPoint', { fileSystem: files, ...options });
  return {
    fileSystemId: files.fileSystemId,
    accessPointId: accessPoint.accessPointId,
    // The handler checks its uid/gid against the access point's user: known only for the one made here.
    environment: given ? {} : { PROBE_ACCESS_POINT_ID: accessPoint.accessPointId, PROBE_ACCESS_POINT_POSIX_USER: posixUserOf(options) },
    canaryRequest: CANARY_REQUEST,
    // The probe calls no AWS API on EFS: 2049 to the mount targets is all.
    securityGroup: (scope, vpc) => new ec2.SecurityGroup(scope, 'SecurityGroup', {
      vpc, allowAllOutbound: false, description: `cdk-efs-kit benchmark probe ${scope.node.path}: TCP 2049 to the mount targets`,
    }),
    mountOn: (fn) => files.mountOnLambda(fn, accessPoint, MOUNT_OPTIONS),
  };
}

/**
 * On S3 Files the probe makes its own access point, whose root is the key prefix
 * `<file system prefix>cdk-efs-kit-probe/`: its S3 Files scenarios put, list and delete objects
 * there (granted there only) through S3's API, so its subnets need a route to S3.
 */
function s3FilesMount(probe: Construct, where: string, files: IS3FilesFileSystem, given: efs.IAccessPoint | undefined): ProbeMount {
  if (given) {
    throw new ValidationError(`${where}: ${propName('accessPoint')} is an EFS access point and does not apply to S3 Files: the probe makes its own at ${PROBE_ROOT}, `
      + 'so that its grants on the bucket reach that prefix only; leave accessPoint unset.', probe);
  }
  const options = preset();
  const accessPoint = new S3FilesAccessPoint(probe, 'AccessPoint', { fileSystem: files, options });
  const keyPrefix = `${files.prefix}${PROBE_ROOT.slice(1)}/`;
  return {
    fileSystemId: files.fileSystemId,
    accessPointId: accessPoint.accessPointId,
    environment: {
      PROBE_ACCESS_POINT_ID: accessPoint.accessPointId,
      PROBE_ACCESS_POINT_POSIX_USER: posixUserOf(options),
      PROBE_BUCKET_URL: `s3://${files.bucket.bucketName}/${keyPrefix}`,
    },
    canaryRequest: S3_FILES_CANARY_REQUEST,
    securityGroup: (scope, vpc) => {
      const group = new ec2.SecurityGroup(scope, 'SecurityGroup', {
        vpc, allowAllOutbound: false, description: `cdk-efs-kit benchmark probe ${scope.node.path}: TCP 2049 to the mount targets, HTTPS to S3`,
      });
      group.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), 'S3 (the probe puts, lists and deletes its objects)');
      group.addEgressRule(ec2.Peer.anyIpv6(), ec2.Port.tcp(443), 'S3 (the probe puts, lists and deletes its objects)');
      return group;
    },
    mountOn: (fn, vpcSubnets) => {
      files.mountOnLambda(fn, accessPoint, MOUNT_OPTIONS);
      grantProbeObjects(fn, files, keyPrefix);
      requireRoute({
        scope: probe, where, vpc: files.vpc, subnets: files.vpc.selectSubnets(vpcSubnets).subnets,
        runsIn: 'the probe runs in its subnets', other: 'give the probe vpcSubnets with egress',
      }, S3_ROUTE);
    },
  };
}

/** Put, list and delete (exact versions) under the probe's key prefix, and nothing else of the bucket. */
function grantProbeObjects(fn: lambda.Function, files: IS3FilesFileSystem, keyPrefix: string): void {
  const objects = files.bucket.arnForObjects(`${keyPrefix}*`);
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:PutObject', 's3:DeleteObject', 's3:DeleteObjectVersion'], resources: [objects] }));
  fn.addToRolePolicy(new iam.PolicyStatement({
    actions: ['s3:ListBucket'], resources: [files.bucket.bucketArn], conditions: { StringLike: { 's3:prefix': `${keyPrefix}*` } },
  }));
  files.bucket.encryptionKey?.grantEncryptDecrypt(fn);
  acknowledgeWildcard(fn, nagResource(fn, objects), 'The probe puts and deletes objects of its own, under its own key prefix of the file system\'s bucket.');
}
