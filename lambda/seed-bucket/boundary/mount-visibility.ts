import * as fs from 'fs';
import * as path from 'path';

/**
 * The check that the seeded files are visible through an S3 Files mount of the bucket (`mount` is
 * the directory the seeded prefix appears at). S3 Files imports a directory's entries on its first
 * listing or lookup, and a change in the bucket reaches a directory imported already about 30 s
 * later: so each file is looked up by its path (an lstat: the lookup imports its directory, the
 * lstat never follows a link at the end) and must be a regular file of the source's size. Content
 * is not read: a read would import the data (small files) or stream it from S3 (128 KiB and more),
 * at a cost per file; the size is what the import brings with the metadata. Files not yet right are
 * looked up again every `intervalMs` until `timeoutMs` has passed.
 *
 * Paths are the seed's entry paths (normal, relative, checked before they were written); the mount
 * is the one path the caller names and is trusted as the target root is on EFS.
 */
export interface VisibilityOptions {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
  /** Lookups in flight at once. @default 64 */
  readonly concurrency?: number;
  readonly onRound?: (visible: number, total: number) => void;
}

export interface VisibilityResult {
  readonly visible: number;
  /** Files still not visible as written at the deadline, with what the mount showed, by path. */
  readonly missing: Array<{ readonly path: string; readonly reason: string }>;
  readonly seconds: number;
  readonly rounds: number;
}

/** A file that should show through the mount: its path under the mounted directory, and its size in bytes. */
export interface VisibleFile {
  readonly path: string;
  readonly size: number;
}

export async function waitUntilVisible(mount: string, files: ReadonlyArray<VisibleFile>, options: VisibilityOptions = {}): Promise<VisibilityResult> {
  const started = Date.now();
  const deadline = started + (options.timeoutMs ?? 120_000);
  const interval = options.intervalMs ?? 1000;
  const concurrency = options.concurrency ?? 64;
  let pending = files.map((f) => ({ ...f, reason: 'not looked up yet' }));
  let rounds = 0;
  for (;;) {
    rounds++;
    const next: typeof pending = [];
    let i = 0;
    const lookUp = async () => {
      while (i < pending.length) {
        const file = pending[i++];
        const reason = await mismatch(path.join(mount, ...file.path.split('/')), file.size);
        if (reason) next.push({ ...file, reason });
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, pending.length) }, lookUp));
    pending = next;
    options.onRound?.(files.length - pending.length, files.length);
    if (pending.length === 0 || Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(interval, Math.max(0, deadline - Date.now()))));
  }
  return { visible: files.length - pending.length, missing: pending.map(({ path: p, reason }) => ({ path: p, reason })).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), seconds: (Date.now() - started) / 1000, rounds };
}

/** Why the file at `file` is not yet the seeded one (undefined when it is). */
async function mismatch(file: string, size: number): Promise<string | undefined> {
  try {
    const stats = await fs.promises.lstat(file);
    if (!stats.isFile()) return 'not a regular file in the mount';
    return stats.size === size ? undefined : `${stats.size} bytes in the mount, ${size} in the source`;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not in the mount' : (err as Error).message;
  }
}
