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

/** The temporary file of a manifest save: a random hex part (a save killed before its rename leaves it). */
const saveTempName = () => `${MANIFEST}.${randomBytes(6).toString('hex')}.tmp`;
const SAVE_TEMP = new RegExp(`^${MANIFEST.replace(/\./g, '\\.')}\\.[0-9a-f]+\\.tmp$`);

/**
 * At the end of a complete run, removes from the state directory what only a running seed needs
 * (names matching `transient`) and what killed saves of the manifest left; the manifest stays.
 */
export async function tidyStateDirectory(target: string, transient: RegExp): Promise<void> {
  const dir = path.join(target, STATE_DIR);
  const names = (await fs.promises.readdir(dir).catch(() => [] as string[])).filter((n) => transient.test(n) || SAVE_TEMP.test(n));
  // Never through a symlink planted in place of the state directory: that would lead outside the target.
  if (names.length === 0 || !(await fs.promises.lstat(dir).catch(() => undefined))?.isDirectory()) return;
  await Promise.all(names.map((n) => fs.promises.rm(path.join(dir, n), { recursive: true, force: true })));
}

/** Writes the manifest atomically (temporary file, then rename). */
export async function saveManifest(target: string, manifest: Manifest): Promise<void> {
  const dir = await makeStateDirectory(target);
  const tmp = path.join(dir, saveTempName());
  await fs.promises.writeFile(tmp, JSON.stringify({ version: 1, files: Object.fromEntries(manifest) }));
  await fs.promises.rename(tmp, path.join(dir, MANIFEST));
}
