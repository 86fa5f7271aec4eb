import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { smallFileTree } from '../bench/lib/workloads';
import { efsSimUsable, withEfsSim } from '../tools/efs-sim/mount';

/**
 * Seeds a generated tree (2,000 small files in 50 directories) onto an efs-sim mount with the EFS
 * General Purpose profile, where FUSE is available (a temporary directory otherwise), and prints the
 * seeder's summary next to `cp -r` on the same kind of mount.
 */
const CLI = path.join(__dirname, '..', 'dist', 'bin', 'cdk-efs-kit.js');

/** efs-sim with EFS General Purpose latencies where it can run, a temporary directory otherwise. */
function onMount<T>(fn: (dir: string) => T): T {
  if (efsSimUsable()) return withEfsSim({ profile: 'efs-gp' }, fn);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-efs-'));
  try {
    return fn(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function seconds(fn: () => void): number {
  const start = Date.now();
  fn();
  return (Date.now() - start) / 1000;
}

export async function runSeedDemo(): Promise<void> {
  const tree = smallFileTree(path.join(os.tmpdir(), 'cdk-efs-kit-bench-data'));
  const where = efsSimUsable() ? 'efs-sim (EFS General Purpose latencies)' : 'a local temporary directory (no FUSE here, so no EFS latency)';
  console.log(`\n== Seeding ${tree.description} onto ${where}`);
  const run = (dir: string) => execFileSync(process.execPath, [CLI, 'seed', tree.dir, path.join(dir, 'www'), '--json'], { encoding: 'utf8' });
  const [first, second] = onMount((dir) => [JSON.parse(run(dir)), JSON.parse(run(dir))]);
  const cp = onMount((dir) => seconds(() => execFileSync('cp', ['-r', tree.dir, path.join(dir, 'www')])));
  console.log(`  cdk-efs-kit seed: ${first.written} files written in ${first.seconds.toFixed(2)} s (${(first.files / first.seconds).toFixed(0)} files/s, peak ${first.peakConcurrency} writes in flight)`);
  console.log(`  re-run, unchanged source: ${second.written} written, ${second.skipped} unchanged in ${second.seconds.toFixed(2)} s`);
  console.log(`  cp -r on the same kind of mount: ${cp.toFixed(2)} s (${(cp / first.seconds).toFixed(1)}x slower)`);
}
