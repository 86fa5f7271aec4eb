import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { isNormalEntryPath } from './safety';

/**
 * What earlier seeds wrote into a target: each file's path -> identity of the source content, and
 * the directories seeds made. It makes a re-run incremental (unchanged entries are only looked for in
 * a listing of their directory) and lets `prune` and removal delete only what a seed wrote.
 * Kept inside the target, so it travels with the data; private to the seeding user.
 *
 * It is input, not truth: anyone who can write the target can edit it. Every key is checked as a
 * normal path before it is used; one that is not (absolute, '..', the seed's own names) is
 * reported and dropped, never deleted or followed.
 */
export const STATE_DIR = '.cdk-efs-kit';
const MANIFEST = 'seed-manifest.json';
/** A manifest larger than this was not written by a seed (a million entries take about 100 MB). */
const MAX_MANIFEST_BYTES = 512 * 1024 * 1024;
const NOFOLLOW = fs.constants.O_NOFOLLOW;

export interface Manifest {
  /** Path -> identity of the source content it was written from. */
  readonly files: Map<string, string>;
  /** Directories a seed made (never one that was there before): only these are ever removed. */
  readonly directories: Set<string>;
  /** What was wrong with the manifest as read (keys dropped, or the whole file ignored). */
  readonly problems: string[];
}

export const emptyManifest = (): Manifest => ({ files: new Map(), directories: new Set(), problems: [] });

/**
 * The state directory, if the target has one; never through a symlink planted in its place, which
 * would lead the seed's reads and writes outside the target.
 */
async function stateDirectory(target: string): Promise<string | undefined> {
  const dir = path.join(target, STATE_DIR);
  const stats = await fs.promises.lstat(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (stats && !stats.isDirectory()) throw new Error(`${dir} is not a directory (a symlink there is never followed); remove it and run the seed again`);
  return stats ? dir : undefined;
}

export async function loadManifest(target: string): Promise<Manifest> {
  const manifest = emptyManifest();
  const dir = await stateDirectory(target);
  if (!dir) return manifest;
  let text: string;
  try {
    const file = path.join(dir, MANIFEST);
    const handle = await fs.promises.open(file, fs.constants.O_RDONLY | NOFOLLOW);
    try {
      const { size } = await handle.stat();
      if (size > MAX_MANIFEST_BYTES) throw new Error(`it is ${size} bytes, more than a seed writes`);
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return manifest;
    // A manifest we cannot read only costs a full re-copy, never data: start over.
    manifest.problems.push(`ignored the manifest (${(err as NodeJS.ErrnoException).code === 'ELOOP' ? 'it is a symlink' : (err as Error).message}); every file is checked and rewritten`);
    return manifest;
  }
  let parsed: { files?: unknown; directories?: unknown };
  try {
    parsed = JSON.parse(text);
  } catch {
    manifest.problems.push('ignored the manifest (not valid JSON); every file is checked and rewritten');
    return manifest;
  }
  const refused: string[] = [];
  const files = parsed?.files !== null && typeof parsed?.files === 'object' ? Object.entries(parsed.files as object) : [];
  for (const [key, identity] of files) {
    if (isNormalEntryPath(key) && typeof identity === 'string') manifest.files.set(key, identity);
    else refused.push(key);
  }
  for (const key of Array.isArray(parsed?.directories) ? parsed.directories : []) {
    if (isNormalEntryPath(key)) manifest.directories.add(key);
    else refused.push(String(key));
  }
  if (refused.length > 0) {
    const shown = refused.slice(0, 5).map((k) => JSON.stringify(k.slice(0, 200))).join(', ');
    manifest.problems.push(`ignored ${refused.length} manifest entr${refused.length === 1 ? 'y' : 'ies'} that are not normal paths in the target (${shown}${refused.length > 5 ? ', ...' : ''}): nothing is deleted or written for them`);
  }
  return manifest;
}

/**
 * Makes the target's state directory, private to the seeding user, if it is missing; its path.
 * Refuses a symlink planted in its place.
 */
export async function makeStateDirectory(target: string): Promise<string> {
  const dir = path.join(target, STATE_DIR);
  await fs.promises.mkdir(dir, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
  // Opened without following a link, so the check and the chmod are of the same directory.
  const handle = await fs.promises.open(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | NOFOLLOW).catch((err: NodeJS.ErrnoException) => {
    throw ['ELOOP', 'ENOTDIR'].includes(err.code ?? '') ? new Error(`${dir} is not a directory (a symlink there is never followed); remove it and run the seed again`) : err;
  });
  try {
    // An earlier version made it world-writable.
    if (((await handle.stat()).mode & 0o077) !== 0) await handle.chmod(0o700);
  } finally {
    await handle.close();
  }
  return dir;
}

/** The temporary file of a manifest save: a random hex part (a save killed before its rename leaves it). */
const saveTempName = () => `${MANIFEST}.${randomBytes(6).toString('hex')}.tmp`;
const SAVE_TEMP = new RegExp(`^${MANIFEST.replace(/\./g, '\\.')}\\.[0-9a-f]+\\.tmp$`);

/**
 * At the end of a run, removes from the state directory what only a running seed needs (names
 * matching `transient`) and what killed saves of the manifest left; the manifest stays.
 */
export async function tidyStateDirectory(target: string, transient: RegExp): Promise<void> {
  const dir = await stateDirectory(target).catch(() => undefined);
  if (!dir) return;
  const names = (await fs.promises.readdir(dir).catch(() => [] as string[])).filter((n) => transient.test(n) || SAVE_TEMP.test(n));
  // rm never follows a link it meets, inside or at the top.
  await Promise.all(names.map((n) => fs.promises.rm(path.join(dir, n), { recursive: true, force: true })));
}

/** Writes the manifest atomically (a new private file, then a rename over the old one). */
export async function saveManifest(target: string, manifest: Manifest): Promise<void> {
  const dir = await makeStateDirectory(target);
  const tmp = path.join(dir, saveTempName());
  const body = JSON.stringify({ version: 2, files: Object.fromEntries(manifest.files), directories: [...manifest.directories] });
  await fs.promises.writeFile(tmp, body, { flag: fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | NOFOLLOW, mode: 0o600 });
  await fs.promises.rename(tmp, path.join(dir, MANIFEST));
}
