import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';

/**
 * A tree outside a seed's target that an attack would aim at, and a snapshot of it: every path's
 * type, permission bits, owner, size, modification time and content (or link target). Any create,
 * write, truncate, rename, chmod, chown or unlink under it changes the snapshot.
 */
export function makeSentinel(dir: string): void {
  fs.mkdirSync(path.join(dir, 'sub', 'deeper'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'v'), 'old');
  fs.writeFileSync(path.join(dir, 'file'), 'keep me');
  fs.writeFileSync(path.join(dir, 'secret'), 'not for the seed', { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'sub', 'deeper', 'file'), 'deep');
  fs.symlinkSync('v', path.join(dir, 'link'));
}

export function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    const full = path.join(root, rel);
    const s = fs.lstatSync(full);
    const head = `${(s.mode & 0o170000).toString(8)} ${(s.mode & 0o7777).toString(8)} ${s.uid}:${s.gid}`;
    if (s.isSymbolicLink()) out[rel || '.'] = `${head} -> ${fs.readlinkSync(full)}`;
    else if (s.isFile()) out[rel || '.'] = `${head} ${s.size} ${s.mtimeMs} ${createHash('sha256').update(fs.readFileSync(full)).digest('hex')}`;
    else {
      out[rel || '.'] = `${head} dir`;
      for (const name of fs.readdirSync(full).sort()) walk(rel ? `${rel}/${name}` : name);
    }
  };
  walk('');
  return out;
}

/**
 * A .tar.gz that expands to `gib` GiB of zeros in one member, about 2 MB on disk: gzip members of
 * 64 MiB of zeros, compressed once and repeated (gunzip reads concatenated members as one stream).
 */
export function makeTarGzBomb(file: string, gib: number): void {
  const size = gib * 1024 ** 3;
  const header = Buffer.alloc(512);
  header.write('zeros.bin', 0);
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  header.write('00000000000\0', 136);
  header.write('0', 156);
  header.write('ustar\x0000', 257);
  header.fill(' ', 148, 156);
  header.write(`${header.reduce((sum, byte) => sum + byte, 0).toString(8).padStart(6, '0')}\0 `, 148);
  const zeros = zlib.gzipSync(Buffer.alloc(64 * 1024 ** 2), { level: 9 });
  const parts = [zlib.gzipSync(header), ...Array(gib * 16).fill(zeros), zlib.gzipSync(Buffer.alloc(1024))];
  fs.writeFileSync(file, Buffer.concat(parts));
}

/** A .zip with one member of `gib` GiB of zeros (deflated by Python's zipfile, streamed: a few seconds). */
export function makeZipBomb(file: string, gib: number): void {
  execFileSync('python3', ['-c', `
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED, compresslevel=1) as z:
    with z.open('zeros.bin', 'w', force_zip64=True) as f:
        chunk = bytes(16 << 20)
        for _ in range(${gib} * 64): f.write(chunk)
`, file]);
}
