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
  if (raw.length < 2 * MAX_DEPTH && NORMAL.test(raw)) return raw;
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

/**
 * The symlinks a seed leaves in its target (those it writes, and those earlier seeds wrote), to
 * judge where each resolves as a reader would: following every link on the way, chains included, not
 * name by name (`a/l -> ..` makes `x -> a/l/a/l/../../etc` climb out although each name looks harmless).
 * The target's directories are taken to be real directories: the seed never writes through a link.
 */
export class LinkGraph {
  private readonly links = new Map<string, string>();

  /** Records the link at `linkPath` (normal, relative to the target) pointing to `target`. */
  add(linkPath: string, target: string): void {
    this.links.set(linkPath, target);
  }

  has(linkPath: string): boolean {
    return this.links.has(linkPath);
  }

  /**
   * The links that resolve outside the target or into the seed's own state, with the reason. Each
   * refused link is left out and the rest judged again (a link may be safe only through another).
   */
  refusals(): Map<string, UnsafeEntryError> {
    const refused = new Map<string, UnsafeEntryError>();
    for (let changed = true; changed;) {
      changed = false;
      for (const linkPath of this.links.keys()) {
        try {
          this.check(linkPath);
        } catch (err) {
          refused.set(linkPath, err as UnsafeEntryError);
          this.links.delete(linkPath);
          changed = true;
        }
      }
    }
    return refused;
  }

  private check(linkPath: string): void {
    const target = this.links.get(linkPath)!;
    checkLinkTargetShape(linkPath, target);
    let hops = 0;
    const resolve = (from: string[], linkTarget: string): string[] => {
      if (path.posix.isAbsolute(linkTarget)) throw new UnsafeEntryError(linkPath, `the link leads through a link to an absolute path (${linkTarget})`);
      const parts = [...from];
      for (const part of linkTarget.split('/')) {
        if (part === '' || part === '.') continue;
        if (part === '..') {
          if (parts.length === 0) throw new UnsafeEntryError(linkPath, `the link points outside the target (${target})`);
          parts.pop();
          continue;
        }
        if (RESERVED_PART.test(part)) throw new UnsafeEntryError(linkPath, `the link points into the seed's own state (${target})`);
        parts.push(part);
        const next = this.links.get(parts.join('/'));
        if (next !== undefined) {
          if (++hops > MAX_LINK_HOPS) throw new UnsafeEntryError(linkPath, `the link leads through more than ${MAX_LINK_HOPS} links (a loop?)`);
          parts.pop();
          parts.splice(0, parts.length, ...resolve(parts, next));
        }
      }
      return parts;
    };
    const parent = path.posix.dirname(linkPath);
    resolve(parent === '.' ? [] : parent.split('/'), target);
  }
}
