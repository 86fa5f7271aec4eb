import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { prng } from '../../lambda/probe/io';

/**
 * Deterministic workloads for the copy benchmarks (a seeded PRNG: the same tree on every run):
 * the file trees the source documents copy onto EFS.
 */
export interface Workload {
  readonly name: string;
  readonly description: string;
  /** The tree to copy. */
  readonly dir: string;
  /** A .tar.gz of the same tree, when the workload is about extracting an archive. */
  readonly archive?: string;
  readonly files: number;
  readonly bytes: number;
  /** Times each tool runs; its median counts (one run on a small shared machine is noisy). @default 1 */
  readonly repeats?: number;
  /** Tools not worth their minutes on this workload. */
  readonly skipTools?: readonly string[];
}

/** Content: slices of one pseudo-random pool at random offsets, so files differ and compress poorly. */
const POOL_BYTES = 8 * 1024 * 1024;
let pool: Buffer | undefined;
function fill(file: string, size: number, random: () => number): void {
  if (!pool) {
    const r = prng(42);
    pool = Buffer.alloc(POOL_BYTES);
    for (let i = 0; i < POOL_BYTES; i += 4) pool.writeUInt32LE((r() * 4294967296) >>> 0, i);
  }
  const chunks: Buffer[] = [];
  for (let left = size; left > 0;) {
    const n = Math.min(left, POOL_BYTES / 2);
    const offset = Math.floor(random() * (POOL_BYTES - n));
    chunks.push(pool.subarray(offset, offset + n));
    left -= n;
  }
  fs.writeFileSync(file, Buffer.concat(chunks, size));
}

function count(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const d of fs.readdirSync(dir, { withFileTypes: true, recursive: true }) as fs.Dirent[]) {
    if (!d.isFile()) continue;
    files++;
    bytes += fs.statSync(path.join((d as any).parentPath ?? (d as any).path, d.name)).size;
  }
  return { files, bytes };
}

function cached(root: string, name: string, make: (dir: string) => void): string {
  const dir = path.join(root, name);
  const done = `${dir}.done`;
  if (!fs.existsSync(done)) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    make(dir);
    fs.writeFileSync(done, '');
  }
  return dir;
}

/** ~2,000 files of 4-16 KB over 50 directories: web assets, a CMS's uploads. */
export function smallFileTree(root: string, files = 2000, dirs = 50): Workload {
  const dir = cached(root, `small-${files}-${dirs}`, (d) => {
    const random = prng(1);
    for (let i = 0; i < files; i++) {
      const sub = path.join(d, `dir-${String(i % dirs).padStart(2, '0')}`);
      fs.mkdirSync(sub, { recursive: true });
      fill(path.join(sub, `file-${i}.dat`), 4096 + Math.floor(random() * 12288), random);
    }
  });
  return { name: `small-files-${files}`, description: `${files} files of 4-16 KB in ${dirs} directories`, dir, ...count(dir) };
}

/** Files of 1 MiB in one directory: seed 003's 5,000 x 1 MB copy (scaled). */
export function megabyteFiles(root: string, files = 500): Workload {
  const dir = cached(root, `mb-${files}`, (d) => {
    const random = prng(2);
    for (let i = 0; i < files; i++) fill(path.join(d, `blob-${i}.bin`), 1024 * 1024, random);
  });
  // Seed 003's workload (5,000 x 1 MB): its point is the order of its tools, so each runs 3 times;
  // tar | tar, not among them, would add a minute.
  return {
    name: `1MiB-files-${files}`, description: `${files} files of 1 MiB in one directory (median of 3 runs)`, dir, ...count(dir),
    repeats: 3, skipTools: ['tar | tar'],
  };
}

/**
 * An ownCloud-like tree (seed 000: 11,000 files, 98 MB): app directories a few levels deep, most
 * files small (log-normal sizes around 3 KB) and a few large, plus the .tar.gz a first boot untars.
 */
export function ownCloudTree(root: string, files = 11000, totalBytes = 98e6): Workload {
  const dir = cached(root, `owncloud-${files}`, (d) => buildTree(d, files, totalBytes, 1100, 7, 3));
  return { name: `owncloud-${files}`, description: `${files} files (${(totalBytes / 1e6).toFixed(0)} MB) in an app-like tree`, dir, archive: tarGz(dir), ...count(dir) };
}

/** A Linux-kernel-like tree (seed 002: 54K files, 3,657 directories, 762 MB). */
export function kernelTree(root: string): Workload {
  const dir = cached(root, 'kernel-54k', (d) => buildTree(d, 54000, 762e6, 3657, 9, 4));
  return { name: 'kernel-54k', description: '54,000 files (762 MB) in 3,657 directories', dir, archive: tarGz(dir), ...count(dir) };
}

function buildTree(root: string, files: number, totalBytes: number, dirCount: number, maxDepth: number, seed: number): void {
  const random = prng(seed);
  const dirs = [''];
  while (dirs.length < dirCount) {
    const parent = dirs[Math.floor(random() * dirs.length)];
    if (parent.split('/').length >= maxDepth) continue;
    dirs.push(path.posix.join(parent, `d${dirs.length}`));
  }
  for (const d of dirs) fs.mkdirSync(path.join(root, d), { recursive: true });
  // Log-normal sizes (median ~3 KB), scaled so the tree adds up to totalBytes.
  const raw = Array.from({ length: files }, () => Math.exp(8 + 1.6 * gaussian(random)));
  const scale = totalBytes / raw.reduce((a, b) => a + b, 0);
  raw.forEach((r, i) => fill(path.join(root, dirs[Math.floor(random() * dirs.length)], `f${i}.php`), Math.max(1, Math.round(r * scale)), random));
}

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

function tarGz(dir: string): string {
  const archive = `${dir}.tar.gz`;
  if (!fs.existsSync(archive)) execFileSync('tar', ['czf', archive, '-C', dir, '.']);
  return archive;
}
