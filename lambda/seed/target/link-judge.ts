import * as path from 'path';
import { UnsafeEntryError } from '../../../lib/seed/contract/entry-path';
import { ManifestBook } from '../state/manifest-book';
import { removeWritten } from './removal';
import { LinkGraph, PathKind } from './link-graph';
import { keyOf } from './target-directories';
import { TargetTree } from '../boundary/target-tree';

/** What the judge needs of the run. */
export interface LinkJudgeRun {
  readonly tree: TargetTree;
  readonly book: ManifestBook;
  readonly concurrency: number;
  readonly dryRun: boolean;
  /** Files and links of the source, by path. */
  readonly seen: ReadonlySet<string>;
  /** The source's symlinks and their targets, by path. */
  readonly sourceLinks: ReadonlyMap<string, string>;
  readonly fail: (relative: string, err: unknown) => void;
  readonly warn: (message: string) => void;
}

const OTHER: PathKind = { kind: 'other' };

/**
 * Judges the links a copy leaves on the target, so that none resolves outside it: before writing,
 * against the target as it will be (the source's links, and those earlier seeds wrote that are still
 * recorded); after writing, against the target as it really is. A refused source link is not written,
 * or removed once written; one an earlier seed wrote is removed while it is still the link it wrote.
 */
export class LinkJudge {
  constructor(private readonly run: LinkJudgeRun) {}

  /** The source's links refused before writing (each failed); links earlier seeds wrote that would now leave the target are removed. */
  public async refuseBeforeWriting(): Promise<Set<string>> {
    const { seen, sourceLinks, book } = this.run;
    const earlier = book.recordedLinks().filter((relative) => !seen.has(relative));
    const graph = new LinkGraph((key) => this.plannedKind(key));
    const refused = await graph.refusals([...sourceLinks.keys(), ...earlier]);
    await this.removeEarlierLinks([...refused].filter(([relative]) => !seen.has(relative)));
    for (const [relative, err] of refused) if (seen.has(relative)) this.run.fail(relative, err);
    return new Set(refused.keys());
  }

  /**
   * Once every link is written (or failed): each is judged again against the target as it really is
   * now (a link whose write failed left whatever won the name; a directory may have been swapped
   * meanwhile), and one that leaves the target is removed, while it is still the link written.
   */
  public async judgeWritten(writtenLinks: string[]): Promise<void> {
    const { seen, book, tree, concurrency, fail } = this.run;
    const links = [...new Set([...writtenLinks, ...book.recordedLinks()])];
    if (links.length === 0) return;
    const refused = [...await new LinkGraph((key) => this.actualKind(key)).refusals(links)];
    await this.removeEarlierLinks(refused.filter(([relative]) => !seen.has(relative)));
    const own = refused.filter(([relative]) => seen.has(relative));
    if (own.length === 0) return;
    const { gone } = await removeWritten(tree, own.map(([relative]) => book.writtenEntry(relative)), concurrency, fail);
    for (const [relative, err] of own) {
      fail(relative, new UnsafeEntryError(relative, `${err.message.replace(/^refused "[^"]*": /, '')}, as the target is now${gone.includes(relative) ? '; removed' : ''}`));
      if (gone.includes(relative)) book.forget(relative);
    }
  }

  /** Removes links an earlier seed wrote that now lead out of the target (and reports them). */
  private async removeEarlierLinks(refused: Array<[string, UnsafeEntryError]>): Promise<void> {
    const { book, tree, concurrency, fail, warn } = this.run;
    if (refused.length === 0 || this.run.dryRun) return;
    const { gone, kept } = await removeWritten(tree, refused.map(([relative]) => book.writtenEntry(relative)), concurrency, fail);
    const reasons = new Map(refused);
    for (const relative of gone) {
      book.forget(relative);
      warn(`removed the link ${JSON.stringify(relative)} an earlier seed wrote: ${reasons.get(relative)!.message.replace(/^refused "[^"]*": /, '')}`);
    }
    for (const relative of kept) {
      book.forget(relative);
      warn(`kept ${JSON.stringify(relative)}: an earlier seed wrote a link there that would now lead out of the target, but it has changed since, so it is not the seed's any more`);
    }
  }

  /** What will be at `key` once this run is done: the source's link or file there, else what the target has. */
  private plannedKind(key: string): Promise<PathKind> | PathKind {
    const link = this.run.sourceLinks.get(key);
    if (link !== undefined) return { kind: 'link', target: link };
    if (this.run.seen.has(key)) return OTHER;
    return this.actualKind(key);
  }

  /** What the target has at `key` now: a link (and its target), or something else, or nothing. */
  private async actualKind(key: string): Promise<PathKind> {
    const { tree } = this.run;
    const parent = keyOf(path.posix.dirname(key));
    if (await tree.find(parent).catch(() => 'missing') !== 'real') return OTHER;
    return tree.using(parent, async (dir) => {
      const at = dir.at(path.posix.basename(key));
      const stats = await tree.calls.lstat(at).catch(() => undefined);
      return stats?.isSymbolicLink() ? { kind: 'link' as const, target: await tree.calls.readlink(at) } : OTHER;
    }).catch(() => OTHER);
  }
}
