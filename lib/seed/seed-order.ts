import type * as efs from 'aws-cdk-lib/aws-efs';
import { Stack } from 'aws-cdk-lib';
import { IConstruct } from 'constructs';
import type { FileSystemSeed } from './file-system-seed';
import { SeedPlace, seedsSeenThrough } from './seed-places';

/**
 * Clients start after the content they mount. A mount helper records its client here and a seed
 * records itself once built; whichever comes second adds the dependency, so the order an app
 * declares them in does not matter. The dependency is on the seed's custom resource, which
 * CloudFormation counts as created when the content is in place (or, with `waitForCompletion: false`,
 * when the copy has started). The seed's own functions and the readiness gate are not clients.
 */
interface SeedClient {
  readonly client: IConstruct;
  /** Undefined: the whole file system. */
  readonly accessPoint?: efs.IAccessPoint;
}

const clientsByFileSystem = new WeakMap<IConstruct, SeedClient[]>();

/** `client` starts after every seed, made before or after this call, whose place it sees through `accessPoint`. */
export function startAfterSeeds(fileSystem: SeedPlace['fileSystem'], client: IConstruct, accessPoint: efs.IAccessPoint | undefined): void {
  const clients = clientsByFileSystem.get(fileSystem) ?? [];
  clientsByFileSystem.set(fileSystem, clients);
  clients.push({ client, accessPoint });
  for (const seed of seedsSeenThrough(fileSystem, accessPoint)) dependOn(client, seed);
}

/** The clients recorded so far that see `seed`'s place start after it. */
export function startClientsAfter(seed: FileSystemSeed, fileSystem: SeedPlace['fileSystem']): void {
  for (const { client, accessPoint } of clientsByFileSystem.get(fileSystem) ?? []) {
    if (seedsSeenThrough(fileSystem, accessPoint).includes(seed)) dependOn(client, seed);
  }
}

function dependOn(client: IConstruct, seed: IConstruct): void {
  // A seed still being built has no resource yet; it calls startClientsAfter once it has.
  const resource = (seed as FileSystemSeed).resource as FileSystemSeed['resource'] | undefined;
  // A seed in another stack than its client's is left alone: its stack may depend on the client's
  // (through the file system), and the dependency would close a cycle of stacks.
  if (resource && Stack.of(resource) === Stack.of(client)) client.node.addDependency(resource);
}
