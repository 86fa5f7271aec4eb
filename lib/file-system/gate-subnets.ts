import { Token } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { IConstruct } from 'constructs';
import { subnetFamilies } from '../core/subnets';
import { check } from '../core/validate';

/**
 * Checks the subnets a helper's function (the readiness gate's, the probe's, a mountOnLambda
 * client's) runs in, where the app defines them. Lambda
 * cannot run in IPv6-only subnets, and reaches an IPv6 address only from a dual-stack subnet (with
 * ipv6AllowedForDualStack), so a gate that must reach IPv6 mount targets needs dual-stack subnets:
 * for IPV6_ONLY mount targets, other subnets than theirs. The file system's name resolves only in
 * a zone with a mount target, so the subnets must be in such zones. `prop` is the one the user sets;
 * `scope` the construct a refusal is scoped to.
 */
export function checkGateSubnets(scope: IConstruct, where: string, prop: string, subnets: ec2.ISubnet[], reachesIpv6: boolean, mountTargetZones: Array<string | undefined> | undefined): void {
  const paths = subnets.map((s) => s.node.path);
  if (reachesIpv6) {
    const problems = subnets.flatMap((s) => {
      const families = subnetFamilies(s);
      if (!families) return [];
      if (families.ipv6Only) return [`${s.node.path} is IPv6-only`];
      return families.hasIpv6 ? [] : [`${s.node.path} has no IPv6 CIDR`];
    });
    check(problems.length === 0, where, prop, paths,
      `must be dual-stack subnets of the mount targets' VPC (Lambda cannot run in IPv6-only subnets, and reaches IPv6 mount targets only from dual-stack ones), but ${problems.join(', ')}`, scope);
  }
  const zones = mountTargetZones?.every((z): z is string => z !== undefined && !Token.isUnresolved(z)) ? mountTargetZones as string[] : undefined;
  if (!zones) return;
  const elsewhere = subnets.filter((s) => !Token.isUnresolved(s.availabilityZone) && !zones.includes(s.availabilityZone));
  check(elsewhere.length === 0, where, prop, paths,
    `must be in zones with a mount target (${zones.join(', ')}), where the file system's name resolves, but ${elsewhere.map((s) => `${s.node.path} is in ${s.availabilityZone}`).join(', ')}`, scope);
}
