/**
 * How a seed's place (a directory of one file system, through one access point) is named, for the
 * construct and the handlers alike: the single-function engine's physical id, the other engines'
 * `Target`, and the Metadata every seed's resource carries, which another seed resource's Delete
 * reads (CloudFormation's DescribeStackResource) to leave a place a live seed of its stack serves.
 */

/** `<file system id>:<access point id>:/<sub-path>`. */
export function placeTarget(fileSystemId: string, accessPointId: string, targetSubPath: string): string {
  return `${fileSystemId}:${accessPointId}:/${targetSubPath}`;
}

/** The place as the single-function engine's physical id names it, and as the Metadata says it. */
export function placeId(fileSystemId: string, accessPointId: string, targetSubPath: string): string {
  return `seed:${placeTarget(fileSystemId, accessPointId, targetSubPath)}`;
}

/** The Metadata key whose value is the resource's placeId. */
export const SEED_PLACE_METADATA = 'cdk-efs-kit:seedPlace';

/** The custom resource types of the three engines. */
export const SEED_RESOURCE_TYPES: readonly string[] = ['Custom::CdkEfsKitSeed', 'Custom::CdkEfsKitDistributedMapSeed', 'Custom::CdkEfsKitDataSyncSeed'];

/** The engines whose copy writes no claim in the place (a single-function seed's claim says who owns it). */
export const CLAIMLESS_SEED_RESOURCE_TYPES: readonly string[] = ['Custom::CdkEfsKitDistributedMapSeed', 'Custom::CdkEfsKitDataSyncSeed'];

/**
 * Whether two place ids share files: the same file system and access point, and one sub-path the
 * other or beneath it. Places through different access points are not compared (their roots are
 * not in the id); an id of another form (an earlier version's) overlaps nothing.
 */
export function placesOverlap(a: string, b: string): boolean {
  const [x, y] = [parsePlaceId(a), parsePlaceId(b)];
  if (!x || !y || x.root !== y.root) return false;
  const within = (inner: string, outer: string) => outer === '' || inner === outer || inner.startsWith(`${outer}/`);
  return within(x.subPath, y.subPath) || within(y.subPath, x.subPath);
}

function parsePlaceId(id: string): { root: string; subPath: string } | undefined {
  const match = /^seed:([^:/]+:[^:/]+):\/(.*)$/.exec(id);
  return match ? { root: match[1], subPath: match[2] } : undefined;
}
