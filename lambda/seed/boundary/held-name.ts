/**
 * Where this process's descriptors are reachable as paths (each worker thread shares them): /proc/self,
 * never /proc/<pid>, whose pid is this process's only in the pid namespace /proc belongs to (under
 * `unshare --pid --fork` without a /proc of its own, /proc/1 is another process).
 */
export const FD_DIRECTORY = '/proc/self/fd';

/**
 * One name in a directory the seed holds open: what the boundary's calls take instead of a path. The
 * name is one component ('' for the directory itself), so a call on it resolves nothing above the
 * directory: the addon makes it on the descriptor, and Node's fallback on `path`, which Linux
 * resolves inside the directory whatever has been renamed since.
 */
export class HeldName {
  /** Makes the type nominal: only this constructor, which checks the name, makes one (never read). */
  declare private readonly nominal: never;

  constructor(readonly dirFd: number, readonly name: string) {
    if (name.includes('/') || name.includes('\0') || name === '.' || name === '..') {
      throw new Error(`internal: ${JSON.stringify(name)} is not one name in a directory`);
    }
  }

  /** The name through /proc/self/fd: for Node's calls where the addon is not built, and for messages. */
  get path(): string {
    return this.name ? `${FD_DIRECTORY}/${this.dirFd}/${this.name}` : `${FD_DIRECTORY}/${this.dirFd}`;
  }
}

/** A directory the seed holds open: `at(name)` a name in it, `self` the directory itself. */
export class Directory {
  readonly self: HeldName;

  constructor(readonly fd: number) {
    this.self = new HeldName(fd, '');
  }

  /** The directory through /proc/self/fd (for messages). */
  get path(): string {
    return this.self.path;
  }

  at(name: string): HeldName {
    return new HeldName(this.fd, name);
  }
}
