import { Stack } from 'aws-cdk-lib';
import type { CustomResource } from 'aws-cdk-lib';
import { IConstruct } from 'constructs';
import { propName } from '../core/contract/prop-name';
import { ValidationError } from '../core/validation-error';

/**
 * The S3 Files seeds of each file system, and its clients: two seeds on one place (equal, or one
 * inside the other) would take each other's objects, so the second fails synth, naming both; and
 * every client mounted with the file system's mountOn* helpers starts after every seed on it,
 * whichever was declared first (S3 Files access points are not compared: any of them may see the
 * seed's place, and a wait on a seed that finished costs nothing).
 */
interface Seeded {
  readonly seeds: Array<{ readonly seed: IConstruct & { readonly resource?: CustomResource }; readonly subPath: string }>;
  readonly clients: IConstruct[];
}

const byFileSystem = new WeakMap<IConstruct, Seeded>();

function seededOf(fileSystem: IConstruct): Seeded {
  const seeded = byFileSystem.get(fileSystem) ?? { seeds: [], clients: [] };
  byFileSystem.set(fileSystem, seeded);
  return seeded;
}

/** Records the seed's place, refusing one that overlaps a place recorded before on the same file system. */
export function claimS3FilesSeedPlace(seed: IConstruct, where: string, fileSystem: IConstruct, subPath: string): void {
  const seeded = seededOf(fileSystem);
  const inside = (child: string, parent: string) => parent === '' || child === parent || child.startsWith(`${parent}/`);
  const other = seeded.seeds.find((s) => inside(subPath, s.subPath) || inside(s.subPath, subPath));
  if (other) {
    throw new ValidationError(`${where} and S3FilesSeed(${other.seed.node.path}) both write to /${subPath === other.subPath ? subPath : [subPath, other.subPath].sort().join(' and /')} `
      + `of ${fileSystem.node.path}, ${subPath === other.subPath ? 'the same place' : 'one place inside the other'}: a seed's prune and ${propName('removeOnDelete')} would take the other's objects. `
      + `Give each seed a ${propName('targetPath')} of its own.`, seed);
  }
  seeded.seeds.push({ seed, subPath });
}

/** `client` starts after every seed on `fileSystem`, made before or after this call. */
export function startAfterS3FilesSeeds(fileSystem: IConstruct, client: IConstruct): void {
  const seeded = seededOf(fileSystem);
  seeded.clients.push(client);
  for (const { seed } of seeded.seeds) dependOn(client, seed.resource);
}

/** The clients recorded so far start after `seed`, once it has its resource. */
export function startS3FilesClientsAfter(seed: IConstruct & { readonly resource: CustomResource }, fileSystem: IConstruct): void {
  for (const client of seededOf(fileSystem).clients) dependOn(client, seed.resource);
}

function dependOn(client: IConstruct, resource: CustomResource | undefined): void {
  // A seed still being built has no resource yet; one in another stack is left alone (a dependency could close a cycle of stacks).
  if (resource && Stack.of(resource) === Stack.of(client)) client.node.addDependency(resource);
}
