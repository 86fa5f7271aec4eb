import { TEMP_PREFIX } from '../state/reserved-names';
import { StateDirectory } from '../state/state-directory';
import { TargetTree } from '../boundary/target-tree';

/** Scratch directories, so creates in them rarely queue on one lock (a rename holds its source's too). */
const SCRATCH_DIRECTORIES = 8;
/** The scratch directories' names in the state directory: a complete run removes them (StateDirectory.tidy). */
export const SCRATCH_NAME = /^scratch-\d+$/;

/**
 * Where to write temporary files for a directory every writer is busy in (one flat directory of many
 * files). A temporary file in the directory itself holds the directory's lock twice, for its create
 * and for its rename; made in a scratch directory of the seed's own and renamed across, it holds it
 * once, as `cp` does, and the directory takes files twice as fast. Renames across directories queue
 * on one lock of the whole file system, so this is only for a directory that has the pool to itself.
 * The scratch directories are in the target's state directory, and a complete run removes them; an
 * interrupted run's temporary files there are removed when the next run first uses one.
 */
export class ScratchDirectories {
  private readonly made = new Map<number, Promise<string | undefined>>();
  /** Per target directory (key): whether a rename from the scratch directories can reach it (same file system). */
  private readonly reachable = new Map<string, Promise<boolean>>();
  private next = 0;

  constructor(private readonly tree: TargetTree, private readonly state: StateDirectory) {}

  /** A scratch directory's key for a temporary file bound for `directory` (a key); undefined where a rename could not cross. */
  async for(directory: string): Promise<string | undefined> {
    let reachable = this.reachable.get(directory);
    if (!reachable) {
      reachable = this.tree.using(directory, (dir) => this.tree.calls.fstat(dir.fd)).then((s) => s.dev === this.tree.device, () => false);
      this.reachable.set(directory, reachable);
    }
    if (!await reachable) return undefined;
    const n = this.next++ % SCRATCH_DIRECTORIES;
    let made = this.made.get(n);
    if (!made) {
      // One that cannot be made only costs speed: the file goes through its own directory.
      made = this.make(n).catch(() => undefined);
      this.made.set(n, made);
    }
    return made;
  }

  private async make(n: number): Promise<string> {
    const key = await this.state.subdirectory(`scratch-${n}`);
    // A killed run's temporary files.
    await this.tree.using(key, async (dir) => {
      const names = (await this.tree.calls.readdir(dir.self)).filter((d) => d.name.startsWith(TEMP_PREFIX));
      await Promise.all(names.map((d) => this.tree.calls.unlink(dir.at(d.name)).catch(() => undefined)));
    });
    return key;
  }
}
