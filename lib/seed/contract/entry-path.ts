// The seed's rules for entry paths: what the construct accepts as a target path, and what the
// handlers accept from archives, buckets, directories and manifests. Imports nothing of either side.

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
/** EFS's directory depth limit: no entry the seed writes is deeper. */
export const MAX_DEPTH = 1000;
/** Linux's PATH_MAX: no entry's path is longer (it bounds what judging links and removing can cost). */
const MAX_PATH_BYTES = 4096;

/**
 * A path that is normal already: relative, no empty, '.' or '..' part, no backslash or NUL, no drive
 * letter, and parts of at most 85 characters (so at most 255 bytes in UTF-8) and few enough for the
 * depth limit. Nearly every entry is one, and is then checked by one regular expression ([^] and not
 * '.', which stops at a newline, a legal character in a name).
 */
const NORMAL = /^(?![A-Za-z]:)(?!(?:[^]*\/)?\.\.?(?:\/|$))[^/\\\0]{1,85}(?:\/[^/\\\0]{1,85})*$/;

/** The seed's own names in the target: its state, temporary files and directories not yet published. */
export const RESERVED_NAME = /(^|\/)\.cdk-efs-kit($|[-/])/;

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
