/**
 * CPU per file: the seeder and the copy tools users reach for copying the same trees, in one run,
 * onto a tmpfs target (no latency: what a copy costs the CPU) and onto efs-sim's `local` profile
 * (FUSE without added latency), the source on tmpfs too so reads come from memory. CPU is user +
 * system of the whole process tree; for the seeder, Node's start-up (before the command runs) is
 * reported apart and left out of its per-file figure. Then the seeder's wall time on tmpfs with 0,
 * 1 and 2 worker threads.
 *
 *   npx tsx bench/seed-cpu.ts [--rounds 3] [--baseline <other build>/dist/bin/cdk-efs-kit.js]
 *
 * Needs root (tmpfs mounts), /dev/fuse, rclone (tools/setup.sh) and `npm run build`.
 */
import { execFileSync, execSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { withEfsSim } from '../tools/efs-sim/mount';
import { ownCloudTree, smallFileTree, Workload } from './lib/workloads';

const args = process.argv.slice(2);
const flag = (name: string) => { const i = args.indexOf(name); return i === -1 ? undefined : args[i + 1]; };
const ROUNDS = Number(flag('--rounds') ?? 3);
const BASELINE = flag('--baseline');
const CLI = path.join(__dirname, '..', 'dist', 'bin', 'cdk-efs-kit.js');
const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/** CPU seconds of a shell command's whole process tree (RUSAGE_CHILDREN counts every waited-for descendant), and its wall time and output. */
function measure(command: string): { cpu: number; wall: number; stdout: string } {
  const script = 'import resource, subprocess, sys, time\n'
    + 't = time.monotonic(); p = subprocess.run(["bash", "-c", sys.argv[1]], capture_output=True, text=True); w = time.monotonic() - t\n'
    + 'r = resource.getrusage(resource.RUSAGE_CHILDREN)\n'
    + 'sys.stderr.write(p.stderr)\n'
    + 'print(f"{r.ru_utime + r.ru_stime} {w} {p.returncode}"); print(p.stdout, end="")';
  const out = execFileSync('python3', ['-c', script, command], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const [head, ...rest] = out.split('\n');
  const [cpu, wall, code] = head.split(' ').map(Number);
  if (code !== 0) throw new Error(`${command} exited with ${code}`);
  return { cpu, wall, stdout: rest.join('\n') };
}

interface Tool {
  readonly name: string;
  /** $SRC (a tree) or $ARCHIVE (its .tar.gz) into $DST. */
  readonly command: string;
  readonly fromArchive?: boolean;
  /** A seeder: its JSON says its start-up CPU. */
  readonly seeder?: boolean;
}

/** The seed CLI of this build (`workers` threads) or of a baseline build (which may predate --workers). */
const seeder = (name: string, cli: string, from: string, workers?: number): Tool => ({
  name, seeder: true, fromArchive: from === '$ARCHIVE', command: `node ${q(cli)} seed "${from}" "$DST" --json${workers === undefined ? '' : ` --workers ${workers}`}`,
});
const TOOLS: Tool[] = [
  { name: 'cp -r', command: 'cp -r "$SRC"/. "$DST"/' },
  { name: 'tar -c | tar -x', command: 'tar -C "$SRC" -cf - . | tar -C "$DST" -xf -' },
  { name: 'rclone copy (32)', command: 'rclone copy --transfers 32 --checkers 32 --local-no-set-modtime "$SRC" "$DST" 2>/dev/null' },
  seeder('cdk-efs-kit seed, 0 workers', CLI, '$SRC', 0),
  ...(BASELINE ? [seeder('cdk-efs-kit seed, baseline build', BASELINE, '$SRC')] : []),
  { name: 'tar -xzf', command: 'tar -C "$DST" -xzf "$ARCHIVE"', fromArchive: true },
  seeder('cdk-efs-kit seed .tar.gz, 0 workers', CLI, '$ARCHIVE', 0),
  ...(BASELINE ? [seeder('cdk-efs-kit seed .tar.gz, baseline build', BASELINE, '$ARCHIVE')] : []),
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** A fresh tmpfs for the duration of `fn`. */
function withTmpfs<T>(fn: (dir: string) => T): T {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'seed-cpu-'));
  execSync(`mount -t tmpfs -o size=8g seed-cpu ${q(dir)}`);
  try {
    return fn(dir);
  } finally {
    execSync(`umount ${q(dir)}`);
    fs.rmdirSync(dir);
  }
}

interface Run { cpu: number; startup: number; wall: number }

/** One tool's runs on one workload: onto a fresh directory of `target` each round, median of each figure. */
function runTool(tool: Tool, workload: Workload, target: (fn: (dst: string) => void) => void): Run {
  const runs: Run[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    target((dst) => {
      const env = `SRC=${q(workload.dir)} ARCHIVE=${q(workload.archive ?? '')} DST=${q(dst)}`;
      const { cpu, wall, stdout } = measure(`mkdir -p "$DST" 2>/dev/null; export ${env}; mkdir -p "$DST" && ${tool.command}`);
      const startup = tool.seeder ? (JSON.parse(stdout) as { cpu?: { startupSeconds: number } }).cpu?.startupSeconds ?? 0 : 0;
      runs.push({ cpu, startup, wall });
    });
  }
  return { cpu: median(runs.map((r) => r.cpu)), startup: median(runs.map((r) => r.startup)), wall: median(runs.map((r) => r.wall)) };
}

function table(title: string, workloads: Workload[], target: (fn: (dst: string) => void) => void): void {
  console.log(`## ${title}`);
  console.log();
  console.log('| workload | tool | CPU s | of which start-up | CPU ms per 1,000 files | x cp -r (or tar -xzf) | wall s |');
  console.log('|---|---|---|---|---|---|---|');
  for (const workload of workloads) {
    let reference: number | undefined;
    let referenceArchive: number | undefined;
    for (const tool of TOOLS.filter((t) => !t.fromArchive || workload.archive)) {
      const run = runTool(tool, workload, target);
      const perThousand = ((run.cpu - run.startup) / workload.files) * 1000 * 1000;
      if (tool.name === 'cp -r') reference = perThousand;
      if (tool.name === 'tar -xzf') referenceArchive = perThousand;
      const base = tool.fromArchive ? referenceArchive : reference;
      const ratio = base ? `${(perThousand / base).toFixed(1)}x` : '-';
      console.log(`| ${workload.name} (${workload.files} files) | ${tool.name.replace(/\|/g, '\\|')} | ${run.cpu.toFixed(2)} | ${tool.seeder ? run.startup.toFixed(2) : '-'} | ${perThousand.toFixed(0)} | ${ratio} | ${run.wall.toFixed(2)} |`);
      console.error(`  ${title}: ${workload.name} ${tool.name}: ${run.cpu.toFixed(2)} CPU-s, ${run.wall.toFixed(2)} s`);
    }
  }
  console.log();
}

function scaling(workloads: Workload[]): void {
  console.log(`## Worker threads: the seeder's wall time on tmpfs (${os.availableParallelism()} vCPUs here)`);
  console.log();
  console.log('| workload | 0 workers (all on the main thread) | 1 worker | 2 workers | 2 workers / 1 |');
  console.log('|---|---|---|---|---|');
  for (const workload of workloads) {
    const from = '$SRC';
    const walls = [0, 1, 2].map((n) => withTmpfs((tmp) => runTool(seeder(`${n} workers`, CLI, from, n), workload, (fn) => {
      fs.rmSync(path.join(tmp, 'dst'), { recursive: true, force: true });
      fn(path.join(tmp, 'dst'));
    }).wall));
    console.log(`| ${workload.name} (${workload.files} files) | ${walls[0].toFixed(2)} s | ${walls[1].toFixed(2)} s | ${walls[2].toFixed(2)} s | ${(walls[1] / walls[2]).toFixed(2)}x faster |`);
  }
  console.log();
}

function main(): void {
  withTmpfs((sources) => {
    // The sources on tmpfs: every read comes from memory, whatever the machine's page cache does.
    const workloads = [smallFileTree(sources), smallFileTree(sources, 10_000, 250), ownCloudTree(sources)];
    console.log(`# CPU per file (\`npx tsx bench/seed-cpu.ts\`), ${ROUNDS} rounds, medians`);
    console.log();
    withTmpfs((tmp) => table('Onto tmpfs', workloads, (fn) => {
      fs.rmSync(path.join(tmp, 'dst'), { recursive: true, force: true });
      fn(path.join(tmp, 'dst'));
    }));
    table('Onto efs-sim, local profile (FUSE, no added latency)', workloads, (fn) => withEfsSim({ profile: 'local' }, (mount) => fn(path.join(mount, 'dst'))));
    scaling(workloads);
  });
}

main();
