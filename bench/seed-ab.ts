/**
 * This build's seeder against another build's, side by side on efs-sim, rounds alternating A and B
 * so that the machine's drift falls on both: the seed workloads of bench/copy-tools.ts (small files,
 * the ownCloud-like tree and its .tar.gz) and the unchanged re-run of the tree.
 *
 *   git worktree add /tmp/seed-base <commit> && (cd /tmp/seed-base && npm ci && npm run build)
 *   npx tsx bench/seed-ab.ts --baseline /tmp/seed-base/dist/bin/cdk-efs-kit.js [--rounds 5] [--profile efs-gp]
 *
 * Prints a markdown table of the medians (the copy's own seconds, from --json, and the command's wall
 * time with Node's start), this build's over the baseline's, and the copy's CPU seconds where both
 * builds report it (less disturbed than wall time by other work on the machine). Needs root,
 * /dev/fuse and `npm run build`.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { withEfsSim } from '../tools/efs-sim/mount';
import { ownCloudTree, smallFileTree } from './lib/workloads';

const args = process.argv.slice(2);
const flag = (name: string) => { const i = args.indexOf(name); return i === -1 ? undefined : args[i + 1]; };
const baseline = flag('--baseline');
if (!baseline || !fs.existsSync(baseline)) {
  console.error('usage: npx tsx bench/seed-ab.ts --baseline <other build>/dist/bin/cdk-efs-kit.js [--rounds N] [--profile P]');
  process.exit(2);
}
const ROUNDS = Number(flag('--rounds') ?? 3);
const PROFILE = flag('--profile') ?? 'efs-gp';
const builds = { this: path.join(__dirname, '..', 'dist', 'bin', 'cdk-efs-kit.js'), baseline };

interface Timing { readonly copy: number; readonly wall: number; readonly cpu?: number }

function seedOnce(cli: string, source: string, target: string): Timing {
  const started = process.hrtime.bigint();
  const out = execFileSync(process.execPath, [cli, 'seed', source, target, '--concurrency', '64', '--json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const summary = JSON.parse(out) as { seconds: number; failed: unknown[]; cpu?: { seedSeconds: number } };
  if (summary.failed.length > 0) throw new Error(`${cli} failed: ${JSON.stringify(summary.failed.slice(0, 3))}`);
  return { copy: summary.seconds, wall, cpu: summary.cpu?.seedSeconds };
}

/** One measurement on a fresh mount: a first seed, or (rerun) the second of two. */
function measure(cli: string, source: string, rerun: boolean): Timing {
  return withEfsSim({ profile: PROFILE }, (mount) => {
    const target = path.join(mount, 'dst');
    if (rerun) seedOnce(cli, source, target);
    return seedOnce(cli, source, target);
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function main(): void {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'seed-ab-'));
  const small = smallFileTree(work);
  const ownCloud = ownCloudTree(work);
  const cases = [
    { name: `${small.name} (${small.files} files)`, source: small.dir, rerun: false },
    { name: `${ownCloud.name} tree (${ownCloud.files} files)`, source: ownCloud.dir, rerun: false },
    { name: `${ownCloud.name} .tar.gz`, source: ownCloud.archive!, rerun: false },
    { name: `${ownCloud.name} unchanged re-run`, source: ownCloud.dir, rerun: true },
  ];
  console.log(`# Seeder A/B on efs-sim ${PROFILE}, ${ROUNDS} rounds, medians (baseline: ${baseline})`);
  console.log();
  console.log('| workload | this build: copy s | baseline: copy s | this/baseline | this build: wall s | baseline: wall s | this build: CPU s | baseline: CPU s |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const c of cases) {
    const times: Record<keyof typeof builds, Timing[]> = { this: [], baseline: [] };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which goes first, so a trend in the machine's speed is shared.
      const order = round % 2 === 0 ? ['this', 'baseline'] as const : ['baseline', 'this'] as const;
      for (const build of order) times[build].push(measure(builds[build], c.source, c.rerun));
    }
    const [a, b] = [times.this, times.baseline].map((t) => ({
      copy: median(t.map((x) => x.copy)), wall: median(t.map((x) => x.wall)), cpu: t[0].cpu === undefined ? undefined : median(t.map((x) => x.cpu!)),
    }));
    const cpu = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(2));
    console.log(`| ${c.name} | ${a.copy.toFixed(2)} | ${b.copy.toFixed(2)} | ${(a.copy / b.copy).toFixed(2)} | ${a.wall.toFixed(2)} | ${b.wall.toFixed(2)} | ${cpu(a.cpu)} | ${cpu(b.cpu)} |`);
    console.error(`  ${c.name}: this ${times.this.map((t) => t.copy.toFixed(2)).join(' ')}; baseline ${times.baseline.map((t) => t.copy.toFixed(2)).join(' ')}`);
  }
  fs.rmSync(work, { recursive: true, force: true });
}

main();
