import { CfnResource, Size, Token } from 'aws-cdk-lib';
import * as efs from 'aws-cdk-lib/aws-efs';
import { copyWorkersFor, SEED_WORKERS_ENV } from '../contract/copy-workers';
import type { SeedFunctionSize } from './distributed-map-seed-run';
import type { SeedFunctionPlacement } from './seed-function-placement';
import type { SeedWiringContext } from './seed-wiring';
import { LAMBDA_MAX_MEMORY_MIB, LAMBDA_MAX_VCPUS, LAMBDA_MIB_PER_VCPU } from '../../core/contract/lambda-cpu';
import { check } from '../../core/validate';
import { requireRoute, RouteNeed } from '../../core/service-route';
import { SeedSourceFormat } from '../seed-source';
import { ValidationError } from '../../core/validation-error';
import { propName } from '../../core/contract/prop-name';

/** What more than one engine asks of the seed's props, its source and its network. */

const DEFAULT_SEED_MEMORY_MIB = 2048;

export const S3_ROUTE: RouteNeed = {
  service: 's3', name: 'S3', does: 'read the source from S3', endpoint: 'an S3 endpoint on their route tables',
  fix: 'add an S3 gateway endpoint to the VPC (free): vpc.addGatewayEndpoint(\'S3\', { service: ec2.GatewayVpcEndpointAwsService.S3 })',
  warningId: 'cdk-efs-kit:seedS3Route',
};

export const CLOUDFORMATION_ROUTE: RouteNeed = {
  service: 'cloudformation', name: 'CloudFormation', endpoint: 'a CloudFormation interface endpoint',
  does: `read the stack's resources from CloudFormation (with ${propName('removeOnDelete')}, a Delete leaves the place when another live seed resource of the stack serves it, as after an engine change)`,
  fix: 'add a CloudFormation interface endpoint to the VPC: vpc.addInterfaceEndpoint(\'CloudFormation\', { service: ec2.InterfaceVpcEndpointAwsService.CLOUDFORMATION })',
  otherwise: `leave ${propName('removeOnDelete')} unset`,
  warningId: 'cdk-efs-kit:seedCloudFormationRoute',
};

/** The seed's functions read their source from S3 (an asset is an S3 object too): their subnets must reach it. */
export function requireS3Route(context: SeedWiringContext, who: string, placement: SeedFunctionPlacement): void {
  requireSeedRoute(context, who, placement, S3_ROUTE);
}

/** A single-function seed's Delete, with removeOnDelete, asks CloudFormation which seeds of its stack are live. */
export function requireCloudFormationRoute(context: SeedWiringContext, who: string, placement: SeedFunctionPlacement): void {
  requireSeedRoute(context, who, placement, CLOUDFORMATION_ROUTE);
}

function requireSeedRoute(context: SeedWiringContext, who: string, placement: SeedFunctionPlacement, need: RouteNeed): void {
  requireRoute({
    scope: context.seed, where: context.where, vpc: context.props.fileSystem.vpc, subnets: placement.subnets,
    runsIn: `${who} run in ${placement.given ? 'the seed\'s vpcSubnets' : 'the file system\'s subnets'}`,
    other: placement.given ? 'give the seed vpcSubnets with egress' : 'give the file system vpcSubnets with egress',
  }, need);
}

/**
 * DataSync mounts as root and writes through the access point as its POSIX user; without
 * ClientRootAccess (not granted), that user must not be root: EFS needs ClientRootAccess for an
 * access point user of uid or gid 0 (https://docs.aws.amazon.com/efs/latest/ug/enforce-identity-access-points.html),
 * and squashes root without it. Checked for access points defined in the app; an imported one is trusted.
 */
export function requireNonRootUser(context: SeedWiringContext): void {
  const accessPoint = context.props.accessPoint;
  const cfn = accessPoint.node.defaultChild;
  if (!CfnResource.isCfnResource(cfn) || cfn.cfnResourceType !== 'AWS::EFS::AccessPoint') return;
  const user = (cfn as efs.CfnAccessPoint).posixUser;
  if (Token.isUnresolved(user)) return;
  const { uid, gid } = (user ?? {}) as Partial<efs.CfnAccessPoint.PosixUserProperty>;
  if (Token.isUnresolved(uid) || Token.isUnresolved(gid)) return;
  const problem = user === undefined ? 'enforces no POSIX user' : uid === '0' || gid === '0' ? `enforces uid ${uid} and gid ${gid} (root)` : undefined;
  if (!problem) return;
  throw new ValidationError(`${context.where}: ${propName('accessPoint')} ${accessPoint.node.path} ${problem}; ${context.engine} writes through the access point as its POSIX user `
    + 'and is not granted ClientRootAccess, so that user must not be root: give the access point a non-root posixUser, '
    + 'e.g. AccessPointPreset.applicationUser(path).', context.seed);
}

/** Engines that copy S3 objects as they are refuse archive sources. */
export function requireObjects(context: SeedWiringContext): void {
  const { source, engine, where } = context;
  if (source.format !== SeedSourceFormat.S3_OBJECTS) {
    throw new ValidationError(`${where}: ${engine} copies S3 objects as they are and cannot extract archives; use SeedSource.s3(bucket, prefix), or SeedEngine.singleFunction() for ${source.format} sources.`, context.seed);
  }
}

/**
 * A seed function's memory (as given, or sized for `vcpus`: Lambda allots a vCPU per 1,769 MB, 6 at
 * most), and the copy workers it runs for its vCPUs, told through its environment.
 */
export function functionSize(context: Pick<SeedWiringContext, 'seed' | 'where' | 'engine'>, options: { readonly memorySize?: Size; readonly vcpus?: number }): SeedFunctionSize {
  const { where, engine } = context;
  let memorySize = (options.memorySize ?? Size.mebibytes(DEFAULT_SEED_MEMORY_MIB)).toMebibytes();
  if (options.vcpus !== undefined) {
    if (options.memorySize !== undefined) throw new ValidationError(`${where}: ${engine} takes ${propName('memorySize')} or vcpus, not both (vcpus sizes the memory).`, context.seed);
    check(Number.isInteger(options.vcpus) && options.vcpus >= 1 && options.vcpus <= LAMBDA_MAX_VCPUS, where, 'vcpus', options.vcpus, `must be an integer from 1 to ${LAMBDA_MAX_VCPUS} (Lambda's most)`, context.seed);
    memorySize = Math.min(LAMBDA_MAX_MEMORY_MIB, options.vcpus * LAMBDA_MIB_PER_VCPU);
  }
  const vcpus = options.vcpus ?? Math.max(1, Math.round(memorySize / LAMBDA_MIB_PER_VCPU));
  return { memorySize, environment: { [SEED_WORKERS_ENV]: String(copyWorkersFor(vcpus)) } };
}
