import { Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { IConstruct } from 'constructs';
import { defaultPrivateSubnets } from '../core/subnets';
import { ValidationError } from '../core/validation-error';
import { propName } from '../core/contract/prop-name';

/** What decides where the mount targets go. */
export interface MountTargetPlacement {
  readonly vpc: ec2.IVpc;
  readonly vpcSubnets?: ec2.SubnetSelection;
  readonly oneZone?: boolean;
  readonly availabilityZone?: string;
}

/**
 * The subnets of the mount targets. A One Zone file system lives in one zone, which aws-cdk wants
 * named in the selection: `availabilityZone`, else the one zone of `vpcSubnets.availabilityZones`,
 * else the VPC's first.
 */
export function mountTargetSubnets(scope: IConstruct, props: MountTargetPlacement): ec2.SubnetSelection {
  const WHERE = `SharedFileSystem(${scope.node.path})`;
  const subnets = props.vpcSubnets ?? defaultPrivateSubnets(props.vpc);
  if (!props.oneZone) {
    if (props.availabilityZone !== undefined) {
      throw new ValidationError(`${WHERE}: ${propName('availabilityZone')} applies to One Zone file systems only (${propName('oneZone')} true), got availabilityZone ${JSON.stringify(props.availabilityZone)} without oneZone.`, scope);
    }
    return subnets;
  }
  const named = subnets.availabilityZones;
  if (named && named.length !== 1) {
    throw new ValidationError(`${WHERE}: a One Zone file system lives in one zone, so ${propName('vpcSubnets.availabilityZones')} must name exactly one, got ${JSON.stringify(named)}.`, scope);
  }
  if (named && props.availabilityZone !== undefined && named[0] !== props.availabilityZone) {
    throw new ValidationError(`${WHERE}: ${propName('availabilityZone')} ${JSON.stringify(props.availabilityZone)} and ${propName('vpcSubnets.availabilityZones')} ${JSON.stringify(named)} disagree; give one of them.`, scope);
  }
  const zone = props.availabilityZone ?? named?.[0] ?? props.vpc.availabilityZones[0];
  const zones = props.vpc.availabilityZones;
  if (!Token.isUnresolved(zone) && !zones.some((z) => Token.isUnresolved(z)) && !zones.includes(zone)) {
    throw new ValidationError(`${WHERE}: ${propName('availabilityZone')} must be one of the VPC's zones (${zones.join(', ')}), got ${JSON.stringify(zone)}.`, scope);
  }
  const selection = { ...subnets, availabilityZones: [zone] };
  if (props.vpc.selectSubnets(selection).subnetIds.length === 0) {
    throw new ValidationError(`${WHERE}: the subnet selection has no subnet in ${zone} for the One Zone file system's mount target; select subnets of that zone.`, scope);
  }
  return selection;
}
