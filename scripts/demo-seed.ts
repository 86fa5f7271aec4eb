import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { smallFileTree } from '../bench/lib/workloads';
import { withEfsSim } from '../tools/efs-sim/mount';

/**
 * Seeds a generated tree (2,000 small files in 50 directories) with `cdk-efs-kit seed`, then again
 * unchanged, and copies it with `cp -r`: on efs-sim with EFS General Purpose latencies where it
 * runs, on a local temporary directory otherwise.
 */
const CLI = path.join(__dirname, '..', 'dist', 'bin', 'cdk-efs-kit.js');

function onTarget<T>(efsSim: boolean, fn: (dir: string) => T): T {
  if (efsSim) return withEfsSim({ profile: 'efs-gp' }, fn);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-seed-'));
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

export function runSeedDemo(efsSim: boolean): void {
  const tree = smallFileTree(path.join(os.tmpdir(), 'cdk-efs-kit-bench-data'));
  const where = efsSim ? 'efs-sim with EFS General Purpose latencies' : 'a local temporary directory (no EFS latency)';
  console.log(`\n== Seeding ${tree.description} onto ${where}`);
  const run = (dir: string) => execFileSync(process.execPath, [CLI, 'seed', tree.dir, path.join(dir, 'www'), '--json'], { encoding: 'utf8' });
  const [first, second] = onTarget(efsSim, (dir) => [JSON.parse(run(dir)), JSON.parse(run(dir))]);
  const cp = onTarget(efsSim, (dir) => seconds(() => execFileSync('cp', ['-r', tree.dir, path.join(dir, 'www')])));
  console.log(`  cdk-efs-kit seed:          ${first.written} files written in ${first.seconds.toFixed(2)} s (${(first.files / first.seconds).toFixed(0)} files/s, up to ${first.peakConcurrency} writes in flight)`);
  console.log(`  again, source unchanged:   ${second.written} written, ${second.skipped} unchanged, in ${second.seconds.toFixed(2)} s`);
  const ratio = cp / first.seconds;
  console.log(`  cp -r, one file at a time: ${cp.toFixed(2)} s, ${ratio >= 1
    ? `${ratio.toFixed(1)}x the seed's time`
    : `faster than the seed here: without EFS's round trip per file, writing in parallel gains nothing`}`);
}
