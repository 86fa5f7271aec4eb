import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

/**
 * What earlier seeds wrote into a target: path -> identity of the source content. It makes a re-run
 * incremental (unchanged entries are only looked for in a listing of their directory) and lets
 * `prune` delete only files a seed wrote.
 * Kept inside the target, so it travels with the data.
 */
export const STATE_DIR = '.cdk-efs-kit';
const MANIFEST = 'seed-manifest.json';

export type Manifest = Map<string, string>;

export async function loadManifest(target: string): Promise<Manifest> {
  try {
    const text = await fs.promises.readFile(path.join(target, STATE_DIR, MANIFEST), 'utf8');
    return new Map(Object.entries(JSON.parse(text).files as Record<string, string>));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    // A manifest we cannot read only costs a full re-copy, never data: start over.
    console.warn(`cdk-efs-kit seed: ignoring an unreadable manifest (${(err as Error).message}); every file is checked and rewritten`);
    return new Map();
  }
}

/**
 * Makes the target's state directory if it is missing; its path. Refuses a symlink planted in its
 * place, which would lead the seed's writes outside the target.
 */
export async function makeStateDirectory(target: string): Promise<string> {
  const dir = path.join(target, STATE_DIR);
  await fs.promises.mkdir(dir, { recursive: true });
  if (!(await fs.promises.lstat(dir)).isDirectory()) throw new Error(`${STATE_DIR} is not a directory (a symlink is never followed)`);
  return dir;
}

/** Writes the manifest atomically (temporary file, then rename). */
export async function saveManifest(target: string, manifest: Manifest): Promise<void> {
  const dir = await makeStateDirectory(target);
  const tmp = path.join(dir, `${MANIFEST}.${randomBytes(6).toString('hex')}.tmp`);
  await fs.promises.writeFile(tmp, JSON.stringify({ version: 1, files: Object.fromEntries(manifest) }));
  await fs.promises.rename(tmp, path.join(dir, MANIFEST));
}
