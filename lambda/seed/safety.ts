import * as path from 'path';

/**
 * Entry names come from archives, buckets and directories we do not control: a name that is
 * absolute, climbs out with '..', or would land anywhere but under the target is refused.
 */
export class UnsafeEntryError extends Error {
  constructor(readonly entryPath: string, reason: string) {
    super(`refused ${JSON.stringify(entryPath)}: ${reason}`);
    this.name = 'UnsafeEntryError';
  }
}

const MAX_NAME_BYTES = 255; // EFS (and most file systems) limit a name to 255 bytes
const MAX_DEPTH = 1000; // EFS's directory depth limit

/**
 * A path that is normal already: relative, no empty, '.' or '..' part, no backslash or NUL, no drive
 * letter, and parts of at most 85 characters (so at most 255 bytes in UTF-8) and few enough for the
 * depth limit. Nearly every entry is one, and is then checked by one regular expression ([^] and not
 * '.', which stops at a newline, a legal character in a name).
 */
const NORMAL = /^(?![A-Za-z]:)(?!(?:[^]*\/)?\.\.?(?:\/|$))[^/\\\0]{1,85}(?:\/[^/\\\0]{1,85})*$/;

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

/** Refuses a symlink at `linkPath` (relative) whose target would resolve outside the target root. */
export function checkSymlinkTarget(linkPath: string, target: string): void {
  if (target.includes('\0')) throw new UnsafeEntryError(linkPath, 'the link target contains a NUL byte');
  if (path.posix.isAbsolute(target)) throw new UnsafeEntryError(linkPath, `the link points to an absolute path (${target})`);
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(linkPath), target));
  if (resolved === '..' || resolved.startsWith('../')) {
    throw new UnsafeEntryError(linkPath, `the link points outside the target (${target})`);
  }
}
