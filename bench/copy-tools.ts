/**
 * Copy tools side by side on the EFS latency emulator (tools/efs-sim), in one run, each onto a
 * freshly mounted file system, each copy verified byte for byte on the emulator's backing store:
 *
 *   npx tsx bench/copy-tools.ts            # default workloads, well under 10 minutes here
 *   npx tsx bench/copy-tools.ts --full     # adds the kernel-like tree (54K files, 762 MB)
 *   npx tsx bench/copy-tools.ts --profile efs-2016 --only small-files-2000
 *
 * Prints markdown tables and writes bench/out/copy-tools.json. Needs root, /dev/fuse, `npm run build`
 * and the tools (tools/setup.sh installs rsync, parallel, fpart/fpsync, cpio, rclone).
 */
import { execFileSync, execSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { withEfsSim } from '../tools/efs-sim/mount';
import { kernelTree, megabyteFiles, ownCloudTree, smallFileTree, Workload } from './lib/workloads';

const ROOT = path.join(__dirname, '..');
const CLI = path.join(ROOT, 'dist', 'bin', 'cdk-efs-kit.js');
const args = process.argv.slice(2);
const flag = (name: string) => { const i = args.indexOf(name); return i === -1 ? undefined : args[i + 1]; };
const PROFILE = flag('--profile') ?? 'efs-gp';
const ONLY = flag('--only');
const SEED_CONCURRENCY = 64;

/** A way to copy `src` (a directory, or with `archive` a .tar.gz) into `dst` (an existing, empty directory). */
export interface CopyTool {
  readonly name: string;
  /** Files in flight at once, for the ceiling: concurrency / per-file latency. */
  readonly concurrency: number;
  /** The shell command; $SRC, $DST and $ARCHIVE are set. */
  readonly command: string;
  /** Extracts the workload's archive instead of copying its tree. */
  readonly fromArchive?: boolean;
}

const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
/** The seeder's command line, its output dropped (the copy is verified separately). */
/** The seed CLI's command line; it prints its JSON summary. */
const seedJson = (src: string, dst: string, concurrency = SEED_CONCURRENCY) => `node ${q(CLI)} seed ${src} ${dst} --concurrency ${concurrency} --json`;
const seedCommand = (src: string, dst: string, concurrency = SEED_CONCURRENCY) => `${seedJson(src, dst, concurrency)} >/dev/null`;
const mkdirs = 'cd "$SRC" && find . -type d -print0 | (cd "$DST" && xargs -0 mkdir -p)';

/** The tools users reach for (seed 001, seed 003), then the project's own seeder. Adding one is one entry. */
export const TOOLS: CopyTool[] = [
  { name: 'cp -r', concurrency: 1, command: 'cp -r "$SRC"/. "$DST"/' },
  { name: 'rsync -r', concurrency: 1, command: 'rsync -r "$SRC"/ "$DST"/' },
  { name: 'tar | tar', concurrency: 1, command: 'tar -C "$SRC" -cf - . | tar -C "$DST" -xf -' },
  // fpsync's default of 2,000 files per rsync job split seed 003's 5,000 files into 3 jobs; keep that ratio.
  { name: 'fpsync (32)', concurrency: 32, command: 'fpsync -n 32 -f "$FPSYNC_FILES_PER_JOB" -t "$WORK/fpsync" "$SRC"/ "$DST"/ >/dev/null' },
  { name: 'cp + GNU parallel (32)', concurrency: 32, command: `${mkdirs} && cd "$SRC" && find . -type f -print0 | parallel -0 --will-cite -j 32 cp {} "$DST"/{}` },
  { name: 'fpart + cpio + parallel (32)', concurrency: 32, command: `cd "$SRC" && fpart -n 32 -o "$WORK/part" . >/dev/null && ls "$WORK"/part.* | parallel --will-cite -j 32 'cpio -pdm --quiet "$DST" < {}'` },
  { name: 'rclone copy (32)', concurrency: 32, command: 'rclone copy --transfers 32 --checkers 32 --local-no-set-modtime "$SRC" "$DST" 2>/dev/null' },
  { name: 'xargs -P32 cp', concurrency: 32, command: `${mkdirs} && cd "$SRC" && find . -type f -print0 | xargs -0 -P 32 -n 16 cp --parents -t "$DST"` },
  { name: 'cdk-efs-kit seed (64)', concurrency: SEED_CONCURRENCY, command: seedCommand('"$SRC"', '"$DST"') },
  { name: 'tar -xzf', concurrency: 1, fromArchive: true, command: 'tar -C "$DST" -xzf "$ARCHIVE"' },
  { name: 'cdk-efs-kit seed .tar.gz (64)', concurrency: SEED_CONCURRENCY, fromArchive: true, command: seedCommand('"$ARCHIVE"', '"$DST"') },
];

interface Row { workload: string; tool: string; seconds: number; filesPerSecond: number; mbPerSecond: number; ofCeiling: number; ofBest?: number; verified: boolean }

/** Runs shorter than this are repeated (median of 3). */
const REPEAT_UNDER_SECONDS = 5;

function sh(command: string, env: Record<string, string> = {}): void {
  execSync(command, { shell: '/bin/bash', stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
}

function withMount<T>(fn: (mount: string, backing: string) => T, profile = PROFILE): T {
  return withEfsSim({ profile }, fn);
}

function timed(fn: () => void): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

function verify(src: string, copy: string): boolean {
  try {
    execFileSync('diff', ['-r', '-q', '--exclude=.cdk-efs-kit', src, copy], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Seconds one file costs on this profile, written alone where the workload's files go (a new
 * subdirectory, or the target itself): the latency in the ceiling. It is the difference between
 * seeds of 20 and 60 files, so what a run pays once (its directories, its manifest) cancels out.
 */
function perFileSeconds(workload: Workload, sample: string): number {
  const names = fs.readdirSync(sample, { withFileTypes: true }).filter((d) => d.isFile()).map((d) => d.name);
  const cost = (count: number) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-sample-'));
    const into = path.join(dir, path.relative(workload.dir, sample));
    fs.mkdirSync(into, { recursive: true });
    for (let i = 0; i < count; i++) fs.copyFileSync(path.join(sample, names[i % names.length]), path.join(into, `${i}-${names[i % names.length]}`));
    const alone = (mount: string) => timed(() => sh(seedCommand(q(dir), q(mount + '/x'), 1), ASYNC_CALLS));
    const seconds = withMount(alone) - withMount(alone, 'local');
    fs.rmSync(dir, { recursive: true, force: true });
    return seconds;
  };
  return Math.max(cost(60) - cost(20), 0) / 40;
}

/**
 * The seeder's calls all on the thread pool, as on efs-gp, where they are slow: on the local
 * profile, whose calls take microseconds, it would otherwise make them one at a time (see
 * lambda/seed/boundary/file-system-calls.ts), which measures FUSE's round trip, not the CPU.
 */
const ASYNC_CALLS = { CDK_EFS_KIT_SYNC_CALLS: '0' };

/**
 * Files/s the seeder reaches with no latency at all: this machine's CPU ceiling. The best of 3
 * runs, each on a fresh mount: a ceiling is what the machine allows, and noise only slows a run.
 */
function cpuFilesPerSecond(workload: Workload): number {
  const runs = Array.from({ length: 3 }, () => withMount((mount) => workload.files / timed(() => sh(seedCommand(q(workload.dir), q(mount + '/x')), ASYNC_CALLS)), 'local'));
  return Math.max(...runs);
}

function run(workload: Workload): { rows: Row[]; notes: string[] } {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-work-'));
  const sampleDir = path.dirname(execSync(`find ${q(workload.dir)} -type f | head -1`, { encoding: 'utf8' }).trim());
  const latency = perFileSeconds(workload, sampleDir);
  const cpu = cpuFilesPerSecond(workload);
  const notes = [`per-file latency on ${PROFILE}: ${(latency * 1000).toFixed(1)} ms; CPU ceiling (seed on the local profile): ${cpu.toFixed(0)} files/s`];
  const rows: Row[] = [];
  for (const tool of TOOLS) {
    if ((tool.fromArchive && !workload.archive) || workload.skipTools?.includes(tool.name)) continue;
    // The app trees are about first boots that unpack an archive: tar -xzf is their baseline (a cp -r
    // of the ownCloud tree alone would take another minute and a half).
    if (!tool.fromArchive && workload.archive && !tool.name.startsWith('cdk-efs-kit')) continue;
    const once = () => withMount((mount, backing) => {
      const dst = path.join(mount, 'dst');
      fs.mkdirSync(dst);
      fs.rmSync(work, { recursive: true, force: true });
      fs.mkdirSync(work);
      const seconds = timed(() => sh(tool.command, { SRC: workload.dir, DST: dst, ARCHIVE: workload.archive ?? '', WORK: work,
        FPSYNC_FILES_PER_JOB: String(Math.ceil((workload.files * 2000) / 5000)) }));
      return { seconds, verified: verify(workload.dir, path.join(backing, 'dst')) };
    });
    const runs = [once()];
    // A run of a few seconds is as noisy as the machine: take the median of 3.
    const repeats = runs[0].seconds < REPEAT_UNDER_SECONDS ? 3 : workload.repeats ?? 1;
    while (runs.length < repeats) runs.push(once());
    const seconds = runs.map((r) => r.seconds).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
    const ceiling = Math.min(tool.concurrency / latency, cpu);
    const row: Row = {
      workload: workload.name, tool: tool.name, seconds,
      filesPerSecond: workload.files / seconds, mbPerSecond: workload.bytes / 1e6 / seconds,
      ofCeiling: workload.files / seconds / ceiling, verified: runs.every((r) => r.verified),
    };
    console.error(`  ${workload.name}: ${row.tool} ${row.seconds.toFixed(1)} s${row.verified ? '' : ' (COPY DIFFERS)'}`);
    rows.push(row);
  }
  // The seeder's unchanged re-run, on the same mount as its first run: the command's wall time, which
  // includes Node's start (about 0.1 s) each time, and the copy's own (the summary's seconds), which
  // is what a Lambda, already started, spends.
  withMount((mount) => {
    const seedOnce = () => {
      let copy = 0;
      const wall = timed(() => {
        const out = execSync(seedJson(q(workload.dir), q(path.join(mount, 'dst'))), { shell: '/bin/bash', encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
        copy = (JSON.parse(out) as { seconds: number }).seconds;
      });
      return { wall, copy };
    };
    const first = seedOnce();
    const second = seedOnce();
    const times = (a: number, b: number) => `${b.toFixed(2)} s vs ${a.toFixed(2)} s first (${(a / b).toFixed(1)}x faster)`;
    notes.push(`cdk-efs-kit seed unchanged re-run: ${times(first.wall, second.wall)}; the copy alone: ${times(first.copy, second.copy)}`);
  });
  const best = Math.max(...rows.map((r) => r.filesPerSecond));
  rows.forEach((r) => { r.ofBest = r.filesPerSecond / best; });
  notes.push(...seederRatios(rows));
  fs.rmSync(work, { recursive: true, force: true });
  return { rows, notes };
}

/** The seeder against each tool in the same run: how many times faster, from the same files/s. */
function seederRatios(rows: Row[]): string[] {
  const rate = (tool: string) => rows.find((r) => r.tool === tool)?.filesPerSecond;
  const versus = (seeder: string, others: string[]) => {
    const own = rate(seeder);
    if (!own) return [];
    const against = others.filter((t) => rate(t)).map((t) => `${(own / rate(t)!).toFixed(1)}x ${t}`);
    const ceiling = rows.find((r) => r.tool === seeder)!.ofCeiling;
    return [`${seeder}: ${(ceiling * 100).toFixed(0)}% of its ceiling${against.length ? `; ${against.join(', ')}` : ''}`];
  };
  return [
    ...versus(`cdk-efs-kit seed (${SEED_CONCURRENCY})`, TOOLS.filter((t) => !t.fromArchive && !t.name.startsWith('cdk-efs-kit')).map((t) => t.name)),
    ...versus(`cdk-efs-kit seed .tar.gz (${SEED_CONCURRENCY})`, ['tar -xzf']),
  ];
}

/** Seed 003 task 1: touch 1,024 files single-threaded, 128 threads in one directory, 32 directories in parallel. */
function touchTest(): string[] {
  return withMount((mount) => {
    sh(`mkdir -p ${q(mount)}/one ${q(mount)}/many/{1..32}`);
    const single = timed(() => sh(`for i in $(seq 1 1024); do touch ${q(mount)}/single-$i; done`));
    const oneDir = timed(() => sh(`seq 1 1024 | parallel --will-cite -j 128 touch ${q(mount)}/one/f-{}`));
    const manyDirs = timed(() => sh(`seq 1 32 | parallel --will-cite -j 32 'for i in $(seq 1 32); do touch ${mount}/many/{}/f-$i; done'`));
    return [
      '| touch 1,024 files | seconds | files/s | AWS EFS performance lab (EFS) |',
      '|---|---:|---:|---:|',
      `| single thread | ${single.toFixed(2)} | ${(1024 / single).toFixed(0)} | 8.8 s, 116/s |`,
      `| 128 threads, one directory | ${oneDir.toFixed(2)} | ${(1024 / oneDir).toFixed(0)} | 4.5 s, 227/s |`,
      `| 32 threads, 32 directories | ${manyDirs.toFixed(2)} | ${(1024 / manyDirs).toFixed(0)} | 0.9 s, 1,129/s |`,
    ];
  });
}

function table(rows: Row[]): string[] {
  return [
    '| workload | tool | seconds | files/s | MB/s | of ceiling | of best | verified |',
    '|---|---|---:|---:|---:|---:|---:|---|',
    // A tool's name may hold a pipe ('tar | tar'): escaped, it stays in its cell.
    ...rows.map((r) => `| ${r.workload} | ${r.tool.replace(/\|/g, '\\|')} | ${r.seconds.toFixed(2)} | ${r.filesPerSecond.toFixed(0)} | ${r.mbPerSecond.toFixed(1)} | ${(r.ofCeiling * 100).toFixed(0)}% | ${(r.ofBest! * 100).toFixed(0)}% | ${r.verified ? 'yes' : 'NO'} |`),
  ];
}

function main(): void {
  if (!fs.existsSync(CLI)) throw new Error('run `npm run build` first');
  const data = path.join(os.tmpdir(), 'cdk-efs-kit-bench-data');
  const workloads = [smallFileTree(data), megabyteFiles(data), ownCloudTree(data), ...(args.includes('--full') ? [kernelTree(data)] : [])]
    .filter((w) => !ONLY || w.name === ONLY);
  const started = Date.now();
  const out: string[] = [`# Copy tools on efs-sim (${PROFILE})`, '', `Machine: ${os.cpus().length} x ${os.cpus()[0].model}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.release()}; node ${process.version}`, ''];
  out.push(...touchTest(), '');
  const all: Row[] = [];
  for (const w of workloads) {
    console.error(`${w.name}: ${w.description}`);
    const { rows, notes } = run(w);
    all.push(...rows);
    out.push(`## ${w.name}: ${w.description} (${w.files} files, ${(w.bytes / 1e6).toFixed(1)} MB)`, '', ...table(rows), '', ...notes.map((n) => `- ${n}`), '');
  }
  out.push(`Total benchmark time: ${((Date.now() - started) / 1000).toFixed(0)} s.`);
  console.log(out.join('\n'));
  fs.mkdirSync(path.join(__dirname, 'out'), { recursive: true });
  fs.writeFileSync(path.join(__dirname, 'out', 'copy-tools.json'), JSON.stringify({ profile: PROFILE, rows: all }, null, 2));
}

main();
