import { isNormalEntryPath } from '../../../lib/seed/contract/entry-path';

/**
 * What earlier seeds wrote into a target: each file's path -> identity of the source content and
 * identity of what was written (inode, size and modification time; a link's target), and the
 * directories seeds made. It makes a re-run incremental (unchanged entries are only looked for in a
 * listing of their directory) and lets `prune`, removal and link replacement delete only what a seed
 * wrote and what is still as it wrote it. Kept inside the target (see StateDirectory), so it travels
 * with the data; private to the seeding user.
 *
 * It is input, not truth: every key is checked as a normal path before it is used; one that is not
 * (absolute, '..', the seed's own names) is reported and dropped, never deleted or followed.
 */
export interface Manifest {
  /** Path -> identity of the source content it was written from. */
  readonly files: Map<string, string>;
  /** Path -> identity of the file as written (see writtenIdentity); links are known by their target. */
  readonly written: Map<string, string>;
  /** Directories a seed made (never one that was there before): only these are ever removed. */
  readonly directories: Set<string>;
  /** What was wrong with the manifest as read (keys dropped, or the whole file ignored). */
  readonly problems: string[];
  /**
   * A run was under way when this was saved and never ended cleanly: files it wrote since may hold
   * other content than the manifest says, so unchanged entries are checked file by file.
   */
  running: boolean;
  /** The resource whose seed this place is (a custom resource's physical id): another's Delete leaves it. */
  owner?: string;
  /**
   * A deploy request's run not yet complete, and the paths and directories it added (none of the
   * seed's before it): should a newer request take the place over, what the unfinished one added goes
   * (see CopyOptions.request).
   */
  pending?: RequestAdditions;
  /**
   * What the last complete deploy request added, and the sources it went from and to: an Update back
   * to the source before it (CloudFormation's rollback Update) removes what it added, prune or not.
   */
  committed?: RequestAdditions & { readonly from?: string; readonly to?: string };
}

/** The files, links and directories one deploy request added to the place. */
export interface RequestAdditions {
  readonly request: string;
  readonly added: Set<string>;
  readonly directories: Set<string>;
}

/**
 * The most files a manifest the seed reads may record: it holds three strings each (its path, its
 * source's identity, its identity as written), and the seed reads at most MAX_MANIFEST_STRINGS.
 * Parsed, a file costs about 250 bytes of memory however short its strings (the strings, two map
 * entries): a 20 MiB manifest of 1.5 million short keys took 568 MiB to read. A manifest with more
 * strings is ignored (every file is then checked and rewritten), never parsed; a run that records
 * more says so.
 */
export const MAX_MANIFEST_FILES = 1_000_000;
export const MAX_MANIFEST_STRINGS = 3 * MAX_MANIFEST_FILES;

/** How many strings the JSON text in `bytes` holds, counted without parsing it: one pass, allocating nothing. */
export function jsonStringCount(bytes: Uint8Array): number {
  let strings = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (!inString) {
      if (byte === QUOTE) {
        inString = true;
        strings++;
      }
    } else if (byte === BACKSLASH) {
      i++; // the escaped character, a quote included
    } else if (byte === QUOTE) {
      inString = false;
    }
  }
  return strings;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export const emptyManifest = (): Manifest => ({ files: new Map(), written: new Map(), directories: new Set(), problems: [], running: false });

/**
 * Version 3 records what was written, its files as one flat list of [path, source, written] (a link's
 * written identity is ''): half the time to parse of an object keyed by path, which is what version 2
 * (and none) kept, with the source's identity alone.
 */
const VERSION = 3;

/** The manifest as saved: one JSON object. */
export function serializeManifest(manifest: Manifest, running: boolean): string {
  const files: string[] = [];
  for (const [file, source] of manifest.files) files.push(file, source, manifest.written.get(file) ?? '');
  const { owner, pending, committed } = manifest;
  const additions = (a: RequestAdditions) => ({ request: a.request, added: [...a.added], directories: [...a.directories] });
  return JSON.stringify({
    version: VERSION, ...running ? { running: true } : {}, ...owner ? { owner } : {},
    ...pending ? { pending: additions(pending) } : {},
    ...committed ? { committed: { ...additions(committed), from: committed.from, to: committed.to } } : {},
    files, directories: [...manifest.directories],
  });
}

/** Parses what a manifest file holds; what cannot be trusted is dropped and reported in `problems`. */
export function parseManifest(text: string): Manifest {
  const manifest = emptyManifest();
  let parsed: { files?: unknown; directories?: unknown; running?: unknown; owner?: unknown; pending?: unknown; committed?: { from?: unknown; to?: unknown } };
  try {
    parsed = JSON.parse(text);
  } catch {
    manifest.problems.push('ignored the manifest (not valid JSON); every file is checked and rewritten');
    return manifest;
  }
  const refused: string[] = [];
  const add = (key: unknown, source: unknown, written: unknown) => {
    if (!isNormalEntryPath(key) || typeof source !== 'string' || typeof written !== 'string') {
      refused.push(String(key));
      return;
    }
    manifest.files.set(key, source);
    if (written !== '') manifest.written.set(key, written);
  };
  const files = parsed?.files;
  if (Array.isArray(files)) {
    for (let i = 0; i < files.length; i += 3) add(files[i], files[i + 1], files[i + 2]);
  } else if (files !== null && typeof files === 'object') {
    for (const [key, source] of Object.entries(files)) add(key, source, '');
  }
  for (const key of Array.isArray(parsed?.directories) ? parsed.directories : []) {
    if (isNormalEntryPath(key)) manifest.directories.add(key);
    else refused.push(String(key));
  }
  manifest.running = parsed?.running === true;
  if (typeof parsed?.owner === 'string') manifest.owner = parsed.owner;
  manifest.pending = additionsOf(parsed?.pending, manifest);
  const committed = additionsOf(parsed?.committed, manifest);
  if (committed) {
    const { from, to } = parsed.committed!;
    manifest.committed = { ...committed, ...typeof from === 'string' ? { from } : {}, ...typeof to === 'string' ? { to } : {} };
  }
  if (refused.length > 0) {
    const shown = refused.slice(0, 5).map((k) => JSON.stringify(k.slice(0, 200))).join(', ');
    manifest.problems.push(`ignored ${refused.length} manifest entr${refused.length === 1 ? 'y' : 'ies'} that are not normal paths in the target (${shown}${refused.length > 5 ? ', ...' : ''}): nothing is deleted or written for them`);
  }
  return manifest;
}

/** A request's additions as saved, keeping only paths the manifest records (anything else is never removed for it). */
function additionsOf(saved: unknown, manifest: Manifest): RequestAdditions | undefined {
  const { request, added, directories } = (saved ?? {}) as { request?: unknown; added?: unknown; directories?: unknown };
  if (typeof request !== 'string' || !Array.isArray(added)) return undefined;
  return {
    request,
    added: new Set(added.filter((key) => manifest.files.has(key as string)) as string[]),
    directories: new Set((Array.isArray(directories) ? directories : []).filter((key) => manifest.directories.has(key as string)) as string[]),
  };
}
