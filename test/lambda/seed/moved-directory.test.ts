import { execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { makeSentinel, snapshot } from '../../helpers/sentinel';
import { makeTar, TarMember, tempDir } from '../../helpers/seed-fixtures';

// A directory of the target that its owner moves out of the target while a seed writes into it (a
// rename to elsewhere on the same file system, which the seed's held descriptor survives): the run
// stops writing there at its next check (each heartbeat starts one), names the directory in its
// summary, and is not complete. Runs the built command line on a real local disk, its source an
// archive read from a FIFO fed in two parts, so that the move falls between them.

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'bin', 'cdk-efs-kit.js');
/** How long the test waits for the run to write the first part, or to keep its lock alive once. */
const WAIT_MS = 40_000;

let work: string;
beforeEach(() => {
  work = tempDir('moved-directory-');
});
afterEach(() => execFileSync('rm', ['-rf', work]));

async function until(done: () => boolean): Promise<boolean> {
  for (let waited = 0; waited < WAIT_MS && !done(); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  return done();
}

test('a directory moved out of the target mid-run receives nothing after the next check, and the summary names it', async () => {
  const members: TarMember[] = [{ name: 'd0/', type: 'directory' }];
  for (let f = 0; f < 100; f++) members.push({ name: `d0/f${f}`, content: `file ${f}` });
  const archive = path.join(work, 'source.tar');
  await makeTar(archive, members);
  // The directory's header and its first 50 files (a header and a block each).
  const half = 512 + 50 * 1024;
  const target = path.join(work, 't');
  fs.mkdirSync(path.join(target, 'd0'), { recursive: true });
  const moved = path.join(work, 'moved');
  const outside = path.join(work, 'outside');
  makeSentinel(outside);
  const fifo = path.join(work, 'source-fifo.tar');
  const go = path.join(work, 'go');
  execFileSync('mkfifo', [fifo, go]);
  const feeder = spawn('sh', ['-c', 'exec > "$FIFO"; head -c "$HALF" "$TAR"; read line < "$GO"; tail -c "+$((HALF + 1))" "$TAR"'], {
    env: { ...process.env, FIFO: fifo, GO: go, TAR: archive, HALF: String(half) }, stdio: 'ignore',
  });
  const run = spawn(process.execPath, [CLI, 'seed', fifo, target, '--workers', '0', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  run.stdout.on('data', (chunk) => { stdout += chunk; });
  run.stderr.on('data', () => undefined);
  const exit = new Promise<number | null>((resolve) => run.on('close', resolve));
  try {
    const firstPart = () => fs.readdirSync(path.join(target, 'd0')).filter((n) => /^f\d+$/.test(n)).length === 50;
    expect(await until(firstPart)).toBe(true);
    const lock = path.join(target, '.cdk-efs-kit', 'lock');
    const keptAlive = fs.statSync(lock).mtimeMs;
    const before = snapshot(outside);

    // The owner moves it out; the run's next heartbeat starts a round of checks.
    fs.renameSync(path.join(target, 'd0'), moved);
    expect(await until(() => fs.statSync(lock).mtimeMs !== keptAlive)).toBe(true);
    fs.writeFileSync(go, 'go\n');

    expect(await exit).toBe(1);
    const summary = JSON.parse(stdout);
    expect(summary.complete).toBe(false);
    expect(summary.failed).toContainEqual({
      path: 'd0', error: 'd0: moved out of the target during the run; nothing more written there (the 50 files this run wrote in it went with it)',
    });
    expect(summary.failed).toContainEqual({
      path: 'd0/f50', error: 'd0/f50: the directory "d0" was moved out of the target during the run; nothing more written there',
    });
    // The 50 files written before the move, and nothing since (no file, no temporary name).
    expect(fs.readdirSync(moved).sort()).toEqual(Array.from({ length: 50 }, (_, f) => `f${f}`).sort());
    expect(snapshot(outside)).toEqual(before);
  } finally {
    run.kill('SIGKILL');
    feeder.kill('SIGKILL');
  }
}, 120_000);
