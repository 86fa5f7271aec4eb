/**
 * This build's seed beside another build's, on efs-sim's efs-gp profile (EFS General Purpose
 * latencies), in alternating rounds so that both meet the same machine: wall seconds of each round
 * and the ratio of the medians. For a change that must not cost speed, on a machine too busy for
 * bench/copy-tools.ts's absolute figures.
 *
 *   npx tsx bench/seed-baseline.ts --baseline <other build>/dist/bin/cdk-efs-kit.js [--rounds 5]
 *
 * Needs root, /dev/fuse and `npm run build`.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { withEfsSim } from '../tools/efs-sim/mount';
import { ownCloudTree, smallFileTree, Workload } from './lib/workloads';

const args = process.argv.slice(2);
const flag = (name: string) => { const i = args.indexOf(name); return i === -1 ? undefined : args[i + 1]; };
const BASELINE = flag('--baseline');
const ROUNDS = Number(flag('--rounds') ?? 5);
const CLI = path.join(__dirname, '..', 'dist', 'bin', 'cdk-efs-kit.js');
if (!BASELINE) throw new Error('usage: npx tsx bench/seed-baseline.ts --baseline <other build>/dist/bin/cdk-efs-kit.js [--rounds 5]');

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

let seeds = 0;

/** Wall seconds of one seed of `from` into a new directory of the mount. */
function seedOnce(cli: string, from: string, mount: string): number {
  const target = path.join(mount, `dst-${seeds++}`);
  const started = process.hrtime.bigint();
  execFileSync(process.execPath, [cli, 'seed', from, target, '--json'], { stdio: ['ignore', 'ignore', 'inherit'] });
  return Number(process.hrtime.bigint() - started) / 1e9;
}

const sources = fs.mkdtempSync(path.join(os.tmpdir(), 'seed-baseline-'));
const workloads: { name: string; from: string }[] = [smallFileTree(sources), ownCloudTree(sources)]
  .flatMap((w: Workload) => [{ name: w.name, from: w.dir }, ...(w.archive ? [{ name: `${w.name} .tar.gz`, from: w.archive }] : [])]);

console.log(`# This build's seed beside ${BASELINE}, on efs-sim efs-gp, ${ROUNDS} alternating rounds`);
console.log();
console.log('| workload | this build: median s (rounds) | baseline: median s (rounds) | this / baseline |');
console.log('|---|---|---|---|');
withEfsSim({ profile: 'efs-gp' }, (mount) => {
  for (const workload of workloads) {
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating which goes first, so that neither always meets a warmer cache.
      const order: [string, number[]][] = round % 2 === 0 ? [[CLI, ours], [BASELINE, theirs]] : [[BASELINE, theirs], [CLI, ours]];
      for (const [cli, into] of order) into.push(seedOnce(cli, workload.from, mount));
    }
    const list = (values: number[]) => values.map((v) => v.toFixed(2)).join(', ');
    console.log(`| ${workload.name} | ${median(ours).toFixed(2)} (${list(ours)}) | ${median(theirs).toFixed(2)} (${list(theirs)}) | ${(median(ours) / median(theirs)).toFixed(2)} |`);
  }
});
fs.rmSync(sources, { recursive: true, force: true });
