import * as fs from 'fs';
import * as path from 'path';
import { forEachConcurrently } from './io';

/**
 * The probe's scratch space: one directory per run under the target, named with its start time so
 * that a run killed before it could clean up (a Lambda timeout) is swept by a later run.
 */
export const SCRATCH_PREFIX = '.cdk-efs-kit-probe-';
const STALE_AFTER_MS = 24 * 3600 * 1000;

export async function createScratchRoot(target: string): Promise<string> {
  const stat = await fs.promises.stat(target).catch(() => undefined);
  if (!stat?.isDirectory()) throw new Error(`the target ${target} is not a directory`);
  const root = path.join(target, `${SCRATCH_PREFIX}${Date.now()}-${process.pid}`);
  await fs.promises.mkdir(root);
  return root;
}

/** Removes scratch directories of earlier runs that are more than a day old (runs that were killed). */
export async function removeStaleScratch(target: string): Promise<string[]> {
  const names = await fs.promises.readdir(target).catch(() => [] as string[]);
  const stale = names.filter((n) => {
    const started = n.startsWith(SCRATCH_PREFIX) ? Number(/^(\d+)-\d+$/.exec(n.slice(SCRATCH_PREFIX.length))?.[1]) : NaN;
    return started > 0 && Date.now() - started > STALE_AFTER_MS;
  });
  for (const name of stale) await removeTree(path.join(target, name));
  return stale;
}

/**
 * Removes a directory tree with many unlinks in flight (a serial `rm -r` pays a round trip per
 * file on EFS). Never follows symlinks.
 */
export async function removeTree(dir: string, concurrency = 64): Promise<void> {
  const files: string[] = [];
  const directories: string[] = [];
  const walk = async (d: string): Promise<void> => {
    directories.push(d);
    const entries = await fs.promises.readdir(d, { withFileTypes: true }).catch(() => [] as fs.Dirent[]);
    const subdirectories: string[] = [];
    for (const e of entries) (e.isDirectory() ? subdirectories : files).push(path.join(d, e.name));
    await forEachConcurrently(subdirectories, concurrency, walk);
  };
  await walk(dir);
  await forEachConcurrently(files, concurrency, (f) => fs.promises.unlink(f).catch(ignoreMissing));
  // Deepest first, so each directory is empty when its turn comes.
  for (const d of directories.sort((a, b) => b.length - a.length)) await fs.promises.rmdir(d).catch(ignoreMissing);
}

function ignoreMissing(err: NodeJS.ErrnoException): void {
  if (err.code !== 'ENOENT') throw err;
}
