import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/**
 * What a test runs as another user (`setpriv --reuid=nobody ...`) must be reachable by that user:
 * every directory above it searchable, the files readable. A checkout need not be (a `mktemp -d`
 * clone, a home directory of mode 0700) and the test run's temporary directory is private, so these
 * open a temporary directory to other users and copy there what they run.
 */

const ROOT = path.join(__dirname, '..', '..');

/** Lets other users reach `dir`: it, and each directory above it up to the system's temporary directory, become searchable. */
export function openToOtherUsers(dir: string): void {
  for (let d = dir; d !== path.dirname(d) && d.startsWith(os.tmpdir()); d = path.dirname(d)) fs.chmodSync(d, fs.statSync(d).mode | 0o711);
}

let copied: string | undefined;

/**
 * The built command line, copied where any user can run it (once per test file), laid out as in the
 * package: dist/bin, the seed's worker script it starts from dist/handlers/seed, and package.json,
 * whose version it reads. Needs `npm run build`.
 */
export function cliForOtherUsers(): string {
  if (!copied) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-for-others-'));
    for (const part of ['package.json', path.join('dist', 'bin'), path.join('dist', 'handlers', 'seed')]) {
      fs.cpSync(path.join(ROOT, part), path.join(dir, part), { recursive: true });
    }
    readableByAll(dir);
    openToOtherUsers(dir);
    copied = path.join(dir, 'dist', 'bin', 'cdk-efs-kit.js');
  }
  return copied;
}

/** Directories searchable and files readable by everyone under `dir`, whatever the umask they were made with. */
function readableByAll(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) readableByAll(full);
    fs.chmodSync(full, entry.isDirectory() ? 0o755 : 0o644);
  }
}
