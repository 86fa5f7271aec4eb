import { execFileSync } from 'child_process';
import { createHash, randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as zlib from 'zlib';
import * as tar from 'tar-stream';
import { FileSystemCalls } from '../../lambda/seed/boundary/file-system-calls';
import { HeldName } from '../../lambda/seed/boundary/held-name';

/** Real trees and archives, generated per test (nothing committed). */

export function tempDir(prefix = 'seed-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** `dirs` directories of `filesPerDir` random files of 4-16 KB (the small-file tree of the benchmarks). */
export function makeTree(root: string, dirs: number, filesPerDir: number, sizes: [number, number] = [4096, 16384]): void {
  for (let d = 0; d < dirs; d++) {
    const dir = path.join(root, `dir-${d}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let f = 0; f < filesPerDir; f++) {
      const size = sizes[0] + Math.floor(Math.random() * (sizes[1] - sizes[0]));
      fs.writeFileSync(path.join(dir, `file-${f}.dat`), randomBytes(size));
    }
  }
}

/** path -> sha256 of every regular file under root (the seed's own state excluded), symlink targets, and empty directories. */
export function treeDigest(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    const dirents = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
    if (rel && dirents.length === 0) out[`${rel}/`] = 'empty directory';
    for (const d of dirents) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (r === '.cdk-efs-kit') continue;
      const full = path.join(root, r);
      if (d.isDirectory()) walk(r);
      else if (d.isSymbolicLink()) out[r] = `-> ${fs.readlinkSync(full)}`;
      else out[r] = createHash('sha256').update(fs.readFileSync(full)).digest('hex');
    }
  };
  walk('');
  return out;
}

export interface TarMember {
  readonly name: string;
  readonly content?: Buffer | string;
  readonly type?: 'file' | 'directory' | 'symlink' | 'link' | 'fifo' | 'character-device';
  readonly linkname?: string;
  readonly mode?: number;
}

/** A .tar (or .tar.gz) with exactly these members, whatever their names. */
export async function makeTar(file: string, members: TarMember[], gzip = file.endsWith('gz')): Promise<void> {
  const pack = tar.pack();
  const out = fs.createWriteStream(file);
  const done = new Promise<void>((resolve, reject) => out.on('close', () => resolve()).on('error', reject));
  (gzip ? (pack as any).pipe(zlib.createGzip()) : pack as any).pipe(out);
  for (const m of members) {
    const content = typeof m.content === 'string' ? Buffer.from(m.content) : m.content ?? Buffer.alloc(0);
    const isFile = (m.type ?? 'file') === 'file';
    await new Promise<void>((resolve, reject) => pack.entry(
      { name: m.name, type: m.type ?? 'file', linkname: m.linkname, mode: m.mode, size: isFile ? content.length : 0 },
      isFile ? content : '',
      (err) => (err ? reject(err) : resolve()),
    ));
  }
  pack.finalize();
  await done;
}

/** A .zip built by Python's zipfile, which writes any name we give it; `symlinks` are stored as Unix links. */
export function makeZip(file: string, members: Array<{ name: string; content: string; symlink?: boolean }>): void {
  const script = `
import json, sys, zipfile
members = json.loads(sys.argv[2])
with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
    for m in members:
        info = zipfile.ZipInfo(m['name'])
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = ((0o120777 if m.get('symlink') else 0o100644) << 16)
        z.writestr(info, m['content'])
`;
  execFileSync('python3', ['-c', script, file, JSON.stringify(members)]);
}

/** Rewrites a zip's recorded uncompressed sizes (local header and central directory) to `size`: a zip that lies. */
export function lieAboutZipSizes(file: string, size: number): void {
  const buf = fs.readFileSync(file);
  for (let i = 0; i < buf.length - 4; i++) {
    const sig = buf.readUInt32LE(i);
    if (sig === 0x04034b50) buf.writeUInt32LE(size, i + 22); // local file header: uncompressed size
    if (sig === 0x02014b50) buf.writeUInt32LE(size, i + 24); // central directory: uncompressed size
  }
  fs.writeFileSync(file, buf);
}

/**
 * A path the seed used, as the file system saw it: the seed names everything in the target as
 * /proc/self/fd/<fd>/<name> (relative to a directory it holds open), which is resolved here, at the
 * time of the call (the descriptor may be closed and its number reused later).
 */
export function realPathOf(file: string): string {
  return file.replace(/^\/proc\/self\/fd\/(\d+)/, (_, fd) => fs.readlinkSync(`/proc/self/fd/${fd}`));
}

/** Records the calls of FileSystemCalls.prototype[method] (paths resolved with realPathOf at call time) and lets them through. */
export function recordPathCalls(method: 'rename' | 'unlink' | 'open' | 'mkdir'): { calls: string[][]; restore: () => void } {
  const calls: string[][] = [];
  const original = FileSystemCalls.prototype[method] as (...args: unknown[]) => Promise<unknown>;
  const spy = jest.spyOn(FileSystemCalls.prototype, method).mockImplementation(function (this: FileSystemCalls, ...args: unknown[]) {
    calls.push(args.map((a) => a instanceof HeldName ? a.path : a).filter((a): a is string => typeof a === 'string').map(realPathOf));
    return original.apply(this, args);
  } as never);
  return { calls, restore: () => spy.mockRestore() };
}

/**
 * A target's seed manifest, parsed. Read to its end, then closed with close()'s error ignored: read
 * through efs-sim while a seed runs (or was just killed), a close has failed, and Node 20's
 * readFileSync(path, 'utf8') aborts the whole process on that (an assertion), where a test wants an
 * error to catch, or none once every byte is read.
 */
export function readManifest(target: string): { running?: boolean; files: string[] } {
  const fd = fs.openSync(path.join(target, '.cdk-efs-kit', 'seed-manifest.json'), 'r');
  try {
    const chunks: Buffer[] = [];
    for (let chunk = Buffer.alloc(1 << 20), n; (n = fs.readSync(fd, chunk)) > 0; chunk = Buffer.alloc(1 << 20)) chunks.push(chunk.subarray(0, n));
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } finally {
    try { fs.closeSync(fd); } catch { /* every byte was read */ }
  }
}

/** The paths a target's seed manifest records (its files: a flat list of path, source identity, written identity). */
export function manifestPaths(target: string): string[] {
  return readManifest(target).files.filter((_, i) => i % 3 === 0);
}
