import * as path from 'path';
import { keyOf } from './target-directories';

/**
 * What is left to do in each directory of the target, so that a staged directory is published as
 * soon as its own work and its subdirectories' is done (renames in one parent are serial: left to
 * the end of the run, they would all queue there).
 */
/** Tasks queued or running, by directory, counting those in the directories below it. */
export class PendingWork {
  private readonly counts = new Map<string, number>();

  start(directory: string): void {
    for (const key of lineage(keyOf(directory))) this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** Counts a task in `directory` done; the directories (keys) that now have none left. */
  finish(directory: string): string[] {
    const done: string[] = [];
    for (const key of lineage(keyOf(directory))) {
      const left = this.counts.get(key)! - 1;
      if (left > 0) this.counts.set(key, left);
      else {
        this.counts.delete(key);
        done.push(key);
      }
    }
    return done;
  }

  idle(directory: string): boolean {
    return !this.counts.has(directory);
  }
}

/** A directory key and those of its parents, up to the root's (''). */
function lineage(key: string): string[] {
  const keys = [key];
  for (let k = key; k !== ''; ) {
    k = keyOf(path.posix.dirname(k));
    keys.push(k);
  }
  return keys;
}
