import * as path from 'path';
import { FileSystemCalls } from '../boundary/file-system-calls';
import { removeMadeDirectories } from '../target/made-directories';
import { SeedResourceProperties } from '../../../lib/seed/contract/resource-properties';
import { placeId } from '../../../lib/seed/contract/seed-place';
import { PlaceClaim, StateDirectory } from '../state/state-directory';
import { MadeDirectory, TargetTree } from '../boundary/target-tree';

/**
 * The place a seed owns: a directory of one file system, reached through one access point (the
 * handler sees it at its mount path). A seed's physical id names it, so a seed moved to another
 * place is a replacement, whose Delete concerns the old place only; and each place says which
 * deploy request it is for, so that a newer request (a rollback, another deploy, a Delete) stops an
 * older one's run.
 */
export function physicalIdOf(props: SeedResourceProperties): string {
  // A resource of a version that did not pass the file system and access point is known by its path.
  if (!props.FileSystemId || !props.AccessPointId) return `seed:${path.join(props.MountPath, props.TargetSubPath)}`;
  return placeId(props.FileSystemId, props.AccessPointId, props.TargetSubPath);
}

export function placeOf(props: Pick<SeedResourceProperties, 'MountPath' | 'TargetSubPath'>): Place {
  return new Place(props.MountPath, props.TargetSubPath);
}

export class Place {
  constructor(private readonly mountPath: string, readonly subPath: string) {}

  get where(): string {
    return path.join(this.mountPath, this.subPath);
  }

  /**
   * Claims the place for `request` of the resource `resource` (its identity), stopping any other
   * request's run; the place and its state directory are made where missing with `create` (else
   * there is nothing to claim). A released claim lets another resource take the place.
   */
  async claim(request: string, resource: string, create = true, released = false, previous?: string): Promise<void> {
    await this.withState(create, async (state) => state?.claim({ request, resource, ...released ? { released } : {}, ...previous ? { previous } : {} }));
  }

  /** The claim the place holds, if any. */
  async claimed(): Promise<PlaceClaim | undefined> {
    return this.withState(false, async (state) => state?.claimed());
  }

  /** Whether the place is (still) claimed for `request`: false once a newer request claimed it. */
  async claimedFor(request: string): Promise<boolean> {
    return this.withState(false, async (state) => (await state?.claimed())?.request === request);
  }

  /** The place's tree and state directory (made with `create`; undefined where there is none), for `use`. */
  async withState<T>(create: boolean, use: (state: StateDirectory | undefined, tree: TargetTree | undefined) => Promise<T>): Promise<T> {
    const tree = await TargetTree.open(new FileSystemCalls(FileSystemCalls.TARGET), this.mountPath, this.subPath, create);
    try {
      const state = tree && await StateDirectory.open(tree, create);
      // What this open made of the place's path is the seed's to remove once the place is empty.
      if (state && tree.made.length > 0) await state.recordMadePlace(tree.made);
      return await use(state, tree);
    } finally {
      await tree?.close();
    }
  }

  /**
   * The directories of the place's path the seed made (the state recorded them; its removal passes
   * them), and those above that another seed made (made-directories.ts): what is now empty and still
   * the one made is removed, deepest first.
   */
  removeMadeDirectories(made: MadeDirectory[]): Promise<string[]> {
    return removeMadeDirectories(this.mountPath, this.subPath, made);
  }
}
