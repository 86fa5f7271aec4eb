import type { SeedRequest } from '../copy/copy-options';
import type { RequestAdditions } from '../state/manifest';
import { ManifestBook } from '../state/manifest-book';
import { parentsOf, removeMadeDirectories, removeWritten } from './removal';
import { TargetTree } from '../boundary/target-tree';

/**
 * What a complete run removes that its source no longer has: with `prune`, what earlier seeds wrote;
 * always, what an unfinished earlier request added. Only what is still as the seed wrote it goes;
 * past the deadline, the rest waits for the next slice (the run is then not complete).
 */

/** What removing leftovers needs of the run. */
export interface LeftoversRun {
  readonly tree: TargetTree;
  readonly book: ManifestBook;
  readonly concurrency: number;
  readonly deadline?: number;
  /** Files and links of the source, by path. */
  readonly seen: ReadonlySet<string>;
  readonly fail: (relative: string, err: unknown) => void;
  readonly failures: () => number;
  readonly warn: (message: string) => void;
}

/**
 * Once the run is complete, its request's additions are the seed's for good, and recorded as the
 * last complete request's; what an unfinished earlier request added that this source does not have
 * is removed (while still as written), and so is what the last complete request added when this one
 * goes back to the source before it (CloudFormation's rollback Update after a finished forward one),
 * prune or not: a rolled-back or cancelled deploy leaves nothing at a final name.
 * @returns false when some is left for the next slice
 */
export async function commitRequest(run: LeftoversRun, request: SeedRequest, sourceDirectories: Iterable<string>): Promise<boolean> {
  const { pending, committed } = run.book.manifest;
  if (!pending) return true;
  const keep = withParents(sourceDirectories);
  if (!await removeAdditions(run, pending, keep, 'an unfinished earlier deploy of this seed added')) return false;
  const back = request.source && committed && committed.request !== request.id && committed.to === request.source.from && committed.from === request.source.to;
  if (back && !await removeAdditions(run, committed, keep, 'the deploy this one goes back from added')) return false;
  run.book.manifest.committed = { ...pending, from: request.source?.from, to: request.source?.to };
  run.book.manifest.pending = undefined;
  run.book.changed = true;
  return true;
}

/** Removes what `additions` holds that this source does not have: files and links while as written, then its directories left empty. */
async function removeAdditions(run: LeftoversRun, additions: RequestAdditions, keep: ReadonlySet<string>, who: string): Promise<boolean> {
  const { book, seen } = run;
  const files = [...additions.added].filter((relative) => !seen.has(relative) && book.manifest.files.has(relative));
  if (files.length > 0) {
    const { gone, kept } = await removeWritten(run.tree, files.map((relative) => book.writtenEntry(relative)), run.concurrency, run.fail, run.deadline);
    [...gone, ...kept].forEach((relative) => book.forget(relative));
    if (gone.length + kept.length < files.length) return false; // the deadline, or failures: the next slice goes on
    if (gone.length > 0) run.warn(`removed ${gone.length} file${gone.length === 1 ? '' : 's'} ${who}, which this source does not have`);
  }
  const directories = [...additions.directories].filter((directory) => !keep.has(directory));
  const { gone, finished } = await removeMadeDirectories(run.tree, directories, book.manifest.directories, run.deadline);
  book.forgetDirectories(gone);
  return finished;
}

/**
 * Deletes files and links an earlier seed wrote that the source no longer has, while they are still
 * as written (the others are kept, reported, and are no longer the seed's), then the directories a
 * seed made that it no longer has (`sourceDirectories`: those the source has or holds entries in).
 */
export async function pruneStale(run: LeftoversRun, sourceDirectories: Iterable<string>): Promise<{ pruned: number; kept: string[]; done: boolean }> {
  const { book, seen } = run;
  const stale = [...book.manifest.files.keys()].filter((relative) => !seen.has(relative));
  const failures = run.failures();
  const { gone, kept } = await removeWritten(run.tree, stale.map((relative) => book.writtenEntry(relative)), run.concurrency, run.fail, run.deadline);
  // A file whose unlink failed stays in the manifest, for the next prune; past the deadline the rest waits for the next slice.
  [...gone, ...kept].forEach((relative) => book.forget(relative));
  let done = gone.length + kept.length + run.failures() - failures >= stale.length;
  if (kept.length > 0) {
    run.warn(`kept ${kept.length} file${kept.length === 1 ? '' : 's'} changed since seeded (${kept.slice(0, 5).map((k) => JSON.stringify(k)).join(', ')}${kept.length > 5 ? ', ...' : ''}): `
      + 'the source no longer has them, but they are not as the seed wrote them, so they are left, and no longer recorded as the seed\'s');
  }
  // Then the directories, once nothing else is left in them.
  const keep = withParents(sourceDirectories);
  const dropped = [...book.manifest.directories].filter((directory) => !keep.has(directory));
  const { gone: removed, finished } = await removeMadeDirectories(run.tree, dropped, book.manifest.directories, run.deadline);
  book.forgetDirectories(removed);
  // Past the deadline, the directories left wait for the next slice.
  if (!finished) done = false;
  return { pruned: gone.length, kept, done };
}

/** Every directory in `directories` and all those above them ('.' is the root). */
function withParents(directories: Iterable<string>): Set<string> {
  const all = new Set<string>();
  for (const directory of directories) {
    if (all.has(directory)) continue;
    all.add(directory);
    for (const parent of parentsOf(directory)) {
      if (all.has(parent)) break;
      all.add(parent);
    }
  }
  return all;
}
