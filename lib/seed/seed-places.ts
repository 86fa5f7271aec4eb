import { Annotations, CfnResource, Token } from 'aws-cdk-lib';
import * as efs from 'aws-cdk-lib/aws-efs';
import { IConstruct } from 'constructs';
import { propName } from '../core/contract/prop-name';
import { ValidationError } from '../core/validation-error';

/**
 * Two seeds on one place would take each other's files: one's prune and removeOnDelete would delete
 * what the other wrote. So each seed's place (its access point's root directory and its target path
 * under it, on its file system) is recorded here, and a seed whose place is equal to or nested in
 * another's fails synth, naming both; where an access point's root cannot be known (an imported one,
 * or a token), a warning says the places could not be compared.
 */
export interface SeedPlace {
  /** The seed, for messages. */
  readonly seed: IConstruct;
  readonly fileSystem: IConstruct;
  readonly accessPoint: efs.IAccessPoint;
  /** '' for the access point's root, else 'a/b'. */
  readonly targetSubPath: string;
}

const placesByFileSystem = new WeakMap<IConstruct, SeedPlace[]>();

/** Records `place`, refusing it where it overlaps a place recorded before (warning where that cannot be told). */
export function claimSeedPlace(place: SeedPlace, where: string): void {
  const places = placesByFileSystem.get(place.fileSystem) ?? [];
  placesByFileSystem.set(place.fileSystem, places);
  for (const other of places) {
    const overlap = overlapOf(place, other);
    if (overlap === 'apart') continue;
    const both = `${where} and FileSystemSeed(${other.seed.node.path})`;
    if (overlap === 'unknown') {
      Annotations.of(place.seed).addWarningV2('cdk-efs-kit:seedPlaces', `${both} write through different access points of one file system whose root directories `
        + 'are not known here, so whether their places overlap cannot be told: two seeds on one place (equal, or one inside the other) would delete each other\'s files.');
      continue;
    }
    throw new ValidationError(`${both} both write to ${describe(place)} on the same file system, ${overlap === 'equal' ? 'the same place' : 'one place inside the other'}: `
      + `a seed's prune and ${propName('removeOnDelete')} would take the other's files. Give each seed a place of its own (another ${propName('targetPath')}, or an access point with another root directory).`, place.seed);
  }
  places.push(place);
}

/**
 * The seeds recorded on `fileSystem` whose place a client mounting `accessPoint` sees (the whole
 * file system where undefined): through the same access point, or through one whose root directory
 * overlaps the seed's place. Where that cannot be told (an imported access point), the seed is left out.
 */
export function seedsSeenThrough(fileSystem: IConstruct, accessPoint: efs.IAccessPoint | undefined): IConstruct[] {
  const places = placesByFileSystem.get(fileSystem) ?? [];
  if (!accessPoint) return places.map((place) => place.seed);
  const view: SeedPlace = { seed: fileSystem, fileSystem, accessPoint, targetSubPath: '' };
  return places.filter((place) => { const overlap = overlapOf(view, place); return overlap === 'equal' || overlap === 'nested'; }).map((place) => place.seed);
}

type Overlap = 'apart' | 'equal' | 'nested' | 'unknown';

function overlapOf(a: SeedPlace, b: SeedPlace): Overlap {
  const sameAccessPoint = a.accessPoint === b.accessPoint
    || (!Token.isUnresolved(a.accessPoint.accessPointId) && a.accessPoint.accessPointId === b.accessPoint.accessPointId);
  const [first, second] = sameAccessPoint ? [a.targetSubPath, b.targetSubPath] : [fullPath(a), fullPath(b)];
  if (first === undefined || second === undefined) return 'unknown';
  if (first === second) return 'equal';
  return inside(first, second) || inside(second, first) ? 'nested' : 'apart';
}

const inside = (child: string, parent: string) => parent === '' || child.startsWith(`${parent}/`);

/** The place's path from the file system's root ('a/b'), where its access point's root directory is known. */
function fullPath(place: SeedPlace): string | undefined {
  const cfn = place.accessPoint.node.defaultChild;
  if (!CfnResource.isCfnResource(cfn) || cfn.cfnResourceType !== 'AWS::EFS::AccessPoint') return undefined;
  const root = (cfn as efs.CfnAccessPoint).rootDirectory;
  if (Token.isUnresolved(root)) return undefined;
  const rootPath = (root as efs.CfnAccessPoint.RootDirectoryProperty | undefined)?.path ?? '/';
  if (Token.isUnresolved(rootPath)) return undefined;
  return [rootPath, place.targetSubPath].join('/').split('/').filter(Boolean).join('/');
}

function describe(place: SeedPlace): string {
  const full = fullPath(place);
  return full === undefined ? `targetPath /${place.targetSubPath} of ${place.accessPoint.node.path}` : `/${full}`;
}
