import { Annotations, CfnResource, Token } from 'aws-cdk-lib';
import * as efs from 'aws-cdk-lib/aws-efs';
import { IConstruct } from 'constructs';
import { propName } from '../core/contract/prop-name';
import { ValidationError } from '../core/validation-error';
import { isSharedFileSystem } from '../file-system/shared-file-system-brand';

/**
 * Two seeds on one place would take each other's files: one's prune and removeOnDelete would delete
 * what the other wrote. So each seed's place (its access point's root directory and its target path
 * under it, on its file system) is recorded here for the whole app, every stack of it, and a seed
 * whose place is equal to or nested in another's fails synth, naming both; where an access point's
 * root cannot be known (an imported one, or a token), a warning says the places could not be
 * compared. Two stacks importing one file system by its id (blue/green) share its places.
 */
export interface SeedPlace {
  /** The seed, for messages. */
  readonly seed: IConstruct;
  readonly fileSystem: IConstruct & { readonly fileSystemId: string };
  readonly accessPoint: efs.IAccessPoint;
  /** '' for the access point's root, else 'a/b'. */
  readonly targetSubPath: string;
}

/** The places of each file system in an app (keyed by the app's root construct). */
const placesInApp = new WeakMap<IConstruct, Map<IConstruct | string, SeedPlace[]>>();

/** Records `place`, refusing it where it overlaps a place recorded before (warning where that cannot be told). */
export function claimSeedPlace(place: SeedPlace, where: string): void {
  const places = placesOn(place.fileSystem);
  if (Token.isUnresolved(place.fileSystem.fileSystemId) && !isSharedFileSystem(place.fileSystem)) {
    Annotations.of(place.seed).addInfo(`${where} writes to an imported file system whose id is not known at synth, so its place is compared only with `
      + 'the other seeds on that import: make sure no seed of another stack or app writes to the same place (two seeds on one place delete each other\'s files).');
  }
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
export function seedsSeenThrough(fileSystem: SeedPlace['fileSystem'], accessPoint: efs.IAccessPoint | undefined): IConstruct[] {
  // The seeds on this very construct, not on another import of the same file system.
  const places = placesOn(fileSystem).filter((place) => place.fileSystem === fileSystem);
  if (!accessPoint) return places.map((place) => place.seed);
  const view: SeedPlace = { seed: fileSystem, fileSystem, accessPoint, targetSubPath: '' };
  return places.filter((place) => { const overlap = overlapOf(view, place); return overlap === 'equal' || overlap === 'nested'; }).map((place) => place.seed);
}

/**
 * The places recorded on `fileSystem`: one this app makes is itself; an imported one is the file
 * system its literal id names, whichever stack imports it; an import by a token is only itself.
 */
function placesOn(fileSystem: SeedPlace['fileSystem']): SeedPlace[] {
  const app = fileSystem.node.root;
  const byFileSystem = placesInApp.get(app) ?? new Map<IConstruct | string, SeedPlace[]>();
  placesInApp.set(app, byFileSystem);
  const key = Token.isUnresolved(fileSystem.fileSystemId) ? fileSystem : fileSystem.fileSystemId;
  const places = byFileSystem.get(key) ?? [];
  byFileSystem.set(key, places);
  return places;
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
