import * as fs from 'fs';
import * as zlib from 'zlib';

/**
 * What an archive file's first bytes say it is, so that synth refuses a local file whose name and
 * content disagree instead of the seed failing on it at deploy. The signatures: a zip starts with a
 * local file header (`PK\x03\x04`) or, empty, with its end-of-central-directory record
 * (`PK\x05\x06`); gzip with `1f 8b`; a tar's first 512-byte header has `ustar` at offset 257
 * (POSIX `ustar\0`, GNU `ustar `), or, written by a pre-POSIX (v7) tar, no magic but a valid checksum.
 */

const TAR_BLOCK = 512;
/** Enough of a gzip stream to inflate a tar's first header from, whatever the compression level. */
const GZIP_HEAD_BYTES = 64 * 1024;

type Kind = 'zip' | 'gzip' | 'tar' | 'empty tar' | 'v7 tar';

/** Why the file at `file` is not an archive of `format` ('zip', 'tar' or 'tar.gz'), or undefined when it is. */
export function archiveBytesProblem(file: string, format: string): string | undefined {
  const head = readHead(file, format === 'tar.gz' ? GZIP_HEAD_BYTES : TAR_BLOCK);
  const kind = kindOf(head);
  if (format === 'zip') return kind === 'zip' ? undefined : `is not a zip archive: ${whatItIs(head, kind)}`;
  if (format === 'tar') return tarProblem(head, kind, 'is');
  if (kind !== 'gzip') return `is not gzip: ${whatItIs(head, kind)}`;
  let inflated: Buffer;
  try {
    // A stream cut short inflates as far as it goes, with no error for the missing end.
    inflated = zlib.gunzipSync(head, { finishFlush: zlib.constants.Z_SYNC_FLUSH }).subarray(0, TAR_BLOCK);
  } catch (error) {
    return `is not a readable gzip stream (${(error as Error).message})`;
  }
  return tarProblem(inflated, kindOf(inflated), 'the gzip holds');
}

function tarProblem(head: Buffer, kind: Kind | undefined, holder: string): string | undefined {
  if (kind === 'tar' || kind === 'empty tar') return undefined;
  // The seed reads POSIX and GNU tar headers only (lambda/seed/sources/tar-header.ts).
  if (kind === 'v7 tar') return `${holder} a pre-POSIX (v7) tar, which the seed does not read: write it again with GNU tar or bsdtar`;
  return holder === 'is' ? `is not a tar archive: ${whatItIs(head, kind)}` : `${holder} no tar archive: ${whatItIs(head, kind)}`;
}

function readHead(file: string, bytes: number): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(bytes);
    return head.subarray(0, fs.readSync(fd, head, 0, bytes, 0));
  } finally {
    fs.closeSync(fd);
  }
}

function kindOf(head: Buffer): Kind | undefined {
  if (head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6))) return 'zip';
  if (head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  if (head.length < TAR_BLOCK) return undefined;
  const block = head.subarray(0, TAR_BLOCK);
  if (block.toString('latin1', 257, 262) === 'ustar') return 'tar';
  // An archive with no members is its end marker: zero blocks.
  if (block.every((byte) => byte === 0)) return 'empty tar';
  return checksumHolds(block) ? 'v7 tar' : undefined;
}

/** The header's checksum field (octal, at 148) is the sum of its bytes, with the field itself counted as spaces. */
function checksumHolds(block: Buffer): boolean {
  const field = block.toString('latin1', 148, 156).replace(/[\0 ]+$/, '').trim();
  if (!/^[0-7]{1,7}$/.test(field)) return false;
  let sum = 0;
  for (let i = 0; i < TAR_BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i];
  return parseInt(field, 8) === sum;
}

function whatItIs(head: Buffer, kind: Kind | undefined): string {
  const hex = (n: number) => [...head.subarray(0, n)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  if (head.length === 0) return 'the file is empty';
  switch (kind) {
    case 'zip': return `its first bytes are a zip archive's (${hex(4)})`;
    case 'gzip': return `its first bytes are gzip's (${hex(2)})`;
    case 'tar': case 'empty tar': return 'its first bytes are a tar archive\'s';
    case 'v7 tar': return 'its first bytes are a pre-POSIX (v7) tar archive\'s';
    default: return `its first bytes are ${hex(4)}, no archive's`;
  }
}
