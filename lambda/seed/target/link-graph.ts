import * as path from 'path';
import { UnsafeEntryError } from '../../../lib/seed/contract/entry-path';

/** Linux's limit on a symlink's target (PATH_MAX, 4 KiB, less the terminating NUL). */
export const MAX_LINK_TARGET_BYTES = 4095;
/** Links followed in one resolution before giving up, as Linux does (ELOOP). */
const MAX_LINK_HOPS = 40;
/** A name of the seed's own (RESERVED_NAME's single-part form): no link may point into one. */
const RESERVED_PART = /^\.cdk-efs-kit($|-)/;

/** Refuses a symlink target that no resolution could keep inside: NUL, absolute, or longer than Linux allows. */
export function checkLinkTargetShape(linkPath: string, target: string): void {
  if (target === '') throw new UnsafeEntryError(linkPath, 'the link target is empty');
  if (target.includes('\0')) throw new UnsafeEntryError(linkPath, 'the link target contains a NUL byte');
  if (Buffer.byteLength(target) > MAX_LINK_TARGET_BYTES) throw new UnsafeEntryError(linkPath, `the link target is longer than ${MAX_LINK_TARGET_BYTES} bytes (Linux's limit)`);
  if (path.posix.isAbsolute(target)) throw new UnsafeEntryError(linkPath, `the link points to an absolute path (${target})`);
}

/** What is at a path of the target, as far as resolving a link through it goes. */
export type PathKind = { readonly kind: 'link'; readonly target: string } | { readonly kind: 'other' };

/** Tells what is at a path (a key relative to the target, '/'-separated): a link with its target, or anything else. */
export type PathLookup = (key: string) => PathKind | Promise<PathKind>;

/** A path in the tree of names a resolution walks, with its parent for '..'. */
class PathNode {
  private children?: Map<string, PathNode>;
  kind?: PathKind | Promise<PathKind>;

  constructor(readonly key: string, readonly parent?: PathNode) {}

  child(name: string): PathNode {
    this.children ??= new Map();
    let node = this.children.get(name);
    if (!node) {
      node = new PathNode(this.key === '' ? name : `${this.key}/${name}`, this);
      this.children.set(name, node);
    }
    return node;
  }
}

/** Why a link is refused; `deep` when only because of how deep in a chain it was reached (not remembered). */
class Refusal {
  constructor(readonly reason: string, readonly deep = false) {}
}

type Resolution = PathNode | Refusal;

/**
 * Judges where symlinks resolve, as a reader of the target would: following every link on the way,
 * chains included, not name by name (`a/l -> ..` makes `x -> a/l/a/l/../../etc` climb out although
 * each name looks harmless), against what `lookup` says is at each path: the links the seed writes
 * and the target's own (read from it), never an assumed directory. A name that is not a link is
 * taken as one that could be a directory (a file or a missing name could become one), so `..` after
 * it climbs lexically: the judgment errs on the side of refusing.
 *
 * A link is refused when it resolves above the target root, into the seed's own state, through more
 * than 40 nested links or a loop, or through a refused link. Each link's resolution is worked out
 * once and reused, so judging costs time linear in the total length of the link targets.
 */
export class LinkGraph {
  private readonly root = new PathNode('');
  private readonly resolved = new Map<PathNode, Resolution | 'resolving'>();
  /** Path components walked: linear in the links' total length (tests hold it to that). */
  steps = 0;

  constructor(private readonly lookup: PathLookup) {}

  /** The links among `links` that must not stay in the target, with the reason. */
  async refusals(links: Iterable<string>): Promise<Map<string, UnsafeEntryError>> {
    const refused = new Map<string, UnsafeEntryError>();
    for (const linkPath of links) {
      const result = await this.resolveLink(this.nodeOf(linkPath), 0);
      if (result instanceof Refusal) refused.set(linkPath, new UnsafeEntryError(linkPath, result.reason));
    }
    return refused;
  }

  private nodeOf(key: string): PathNode {
    let node = this.root;
    for (const part of key.split('/')) node = node.child(part);
    return node;
  }

  private async kindOf(node: PathNode): Promise<PathKind> {
    node.kind ??= this.lookup(node.key);
    return node.kind;
  }

  /** Where the link at `node` leads (worked out once), or why it is refused; a name that is not a link leads to itself. */
  private async resolveLink(node: PathNode, depth: number): Promise<Resolution> {
    const known = this.resolved.get(node);
    if (known === 'resolving') return new Refusal('the link leads through a loop of links');
    if (known) return known;
    const kind = await this.kindOf(node);
    if (kind.kind !== 'link') return node;
    if (depth > MAX_LINK_HOPS) return new Refusal(`the link leads through more than ${MAX_LINK_HOPS} links (a loop?)`, true);
    this.resolved.set(node, 'resolving');
    let result: Resolution;
    try {
      checkLinkTargetShape(node.key, kind.target);
      result = await this.walk(node.parent!, kind.target, depth);
    } catch (err) {
      result = new Refusal((err as Error).message.replace(/^refused "[^"]*": /, ''));
    }
    // A refusal that depends on how deep the chain was reached is not this link's own.
    if (result instanceof Refusal && result.deep) this.resolved.delete(node);
    else this.resolved.set(node, result);
    return result;
  }

  /** Resolves `target` from the directory `from`. */
  private async walk(from: PathNode, target: string, depth: number): Promise<Resolution> {
    let node = from;
    for (const part of target.split('/')) {
      this.steps++;
      if (part === '' || part === '.') continue;
      if (part === '..') {
        if (!node.parent) return new Refusal(`the link points outside the target (${target})`);
        node = node.parent;
        continue;
      }
      if (RESERVED_PART.test(part)) return new Refusal(`the link points into the seed's own state (${target})`);
      const child = node.child(part);
      const next = await this.resolveLink(child, depth + 1);
      if (next instanceof Refusal) {
        return next.deep ? next : new Refusal(`the link leads through the link ${JSON.stringify(child.key)}, which leaves the target or is refused`);
      }
      node = next;
    }
    return node;
  }
}
