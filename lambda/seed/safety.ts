import * as path from 'path';

/**
 * Entry names come from archives, buckets, directories and manifests we do not control: a name that
 * is absolute, climbs out with '..', or would land anywhere but under the target is refused.
 */
export class UnsafeEntryError extends Error {
  constructor(readonly entryPath: string, reason: string) {
    super(`refused ${JSON.stringify(entryPath)}: ${reason}`);
    this.name = 'UnsafeEntryError';
  }
}

const MAX_NAME_BYTES = 255; // EFS (and most file systems) limit a name to 255 bytes
const MAX_DEPTH = 1000; // EFS's directory depth limit
/** Linux's PATH_MAX: no entry's path is longer (it bounds what judging links and removing can cost). */
const MAX_PATH_BYTES = 4096;
/** Linux's limit on a symlink's target (PATH_MAX, 4 KiB, less the terminating NUL). */
export const MAX_LINK_TARGET_BYTES = 4095;
/** Links followed in one resolution before giving up, as Linux does (ELOOP). */
const MAX_LINK_HOPS = 40;

/**
 * A path that is normal already: relative, no empty, '.' or '..' part, no backslash or NUL, no drive
 * letter, and parts of at most 85 characters (so at most 255 bytes in UTF-8) and few enough for the
 * depth limit. Nearly every entry is one, and is then checked by one regular expression ([^] and not
 * '.', which stops at a newline, a legal character in a name).
 */
const NORMAL = /^(?![A-Za-z]:)(?!(?:[^]*\/)?\.\.?(?:\/|$))[^/\\\0]{1,85}(?:\/[^/\\\0]{1,85})*$/;

/** The seed's own names in the target: its state, temporary files and directories not yet published. */
export const RESERVED_NAME = /(^|\/)\.cdk-efs-kit($|[-/])/;
const RESERVED_PART = /^\.cdk-efs-kit($|-)/;

/** The entry's path, normalised to 'a/b/c' (no leading './', no trailing '/'; '' for the root itself), or an UnsafeEntryError. */
export function safeRelativePath(raw: string): string {
  // At most 3 bytes per UTF-16 unit: short enough for the limit whatever it holds.
  if (raw.length <= MAX_PATH_BYTES / 3 && NORMAL.test(raw)) return raw;
  if (Buffer.byteLength(raw) > MAX_PATH_BYTES) throw new UnsafeEntryError(raw.slice(0, 200), `the path is longer than ${MAX_PATH_BYTES} bytes (Linux's limit)`);
  if (raw.includes('\0')) throw new UnsafeEntryError(raw, 'the name contains a NUL byte');
  const unified = raw.replace(/\\/g, '/');
  if (unified.startsWith('/') || /^[A-Za-z]:\//.test(unified)) throw new UnsafeEntryError(raw, 'absolute paths are not allowed');
  const parts = unified.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..')) throw new UnsafeEntryError(raw, "'..' is not allowed");
  if (parts.length === 0) return '';
  if (parts.length > MAX_DEPTH) throw new UnsafeEntryError(raw, `deeper than ${MAX_DEPTH} directories (the EFS limit)`);
  const long = parts.find((p) => Buffer.byteLength(p) > MAX_NAME_BYTES);
  if (long) throw new UnsafeEntryError(raw, `a name is longer than ${MAX_NAME_BYTES} bytes`);
  return parts.join('/');
}

/** `safeRelativePath`, and not one of the seed's own names (its state, staging and temporary files). */
export function safeEntryPath(raw: string): string {
  const relative = safeRelativePath(raw);
  if (RESERVED_NAME.test(relative)) throw new UnsafeEntryError(raw, 'names starting with .cdk-efs-kit are reserved for the seed\'s own state');
  return relative;
}

/**
 * A path someone else wrote down for the seed (a manifest key, a target sub-path): it must already
 * be in normal form and not the seed's own, because it is used as it is, to delete as well as to write.
 */
export function isNormalEntryPath(relative: unknown): relative is string {
  if (typeof relative !== 'string' || relative === '') return false;
  try {
    return safeEntryPath(relative) === relative;
  } catch {
    return false;
  }
}

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
