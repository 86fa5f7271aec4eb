import type { Directory } from '../boundary/held-name';

/**
 * Where and how one entry goes: its name in a directory the seed holds open, and for a file, in place
 * or through a temporary name (in `tempDir`). The directories stay open until the copy settles.
 */
export interface Placement {
  readonly dir: Directory;
  readonly name: string;
  /** In a directory no reader sees yet: written at its name, with no temporary name. */
  readonly inPlace: boolean;
  readonly tempDir?: Directory;
}
