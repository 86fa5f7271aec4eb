import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

// `cdk-efs-kit seed`'s progress as users see it: the built CLI in its own process, its standard
// error a pipe (a line every 5 s, CI logs) or a terminal (a bar; util-linux's `script` gives it one).
const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'bin', 'cdk-efs-kit.js');
let work: string;
beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'seed-cli-'));
  for (let d = 0; d < 10; d++) {
    fs.mkdirSync(path.join(work, 'src', `d${d}`), { recursive: true });
    for (let f = 0; f < 30; f++) fs.writeFileSync(path.join(work, 'src', `d${d}`, `f${f}`), `${d}/${f}\n`);
  }
});
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

test('progress in lines ends on the final count, right before the summary', () => {
  const r = spawnSync(process.execPath, [CLI, 'seed', path.join(work, 'src'), path.join(work, 'dst')], { encoding: 'utf8' });
  expect(r.status).toBe(0);
  const progress = r.stderr.trimEnd().split('\n');
  expect(progress[progress.length - 1]).toMatch(/^seed: 300\/300 files, 0\.0 MiB found, \d+ files\/s$/);
  expect(r.stdout).toMatch(/^300 files \(0\.0 MiB\) in [\d.]+ s: wrote 300, unchanged 0, pruned 0, failed 0\n$/);
});

test('the progress bar on a terminal ends on the final count', () => {
  const command = [process.execPath, CLI, 'seed', path.join(work, 'src'), path.join(work, 'dst')].map((a) => `'${a}'`).join(' ');
  const r = spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8' });
  expect(r.status).toBe(0);
  // The bar redraws in place: its last drawing is what stays on the screen.
  const drawings = r.stdout.split(/\r|\x1b\[1G/).filter((d) => d.startsWith('seed ['));
  expect(drawings[drawings.length - 1]).toMatch(/\| 300\/300 files \|/);
});
