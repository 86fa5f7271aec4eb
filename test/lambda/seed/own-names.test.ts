import { execFileSync, spawn, spawnSync } from 'child_process';
import { randomUUID } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { makeSentinel, snapshot } from '../../helpers/sentinel';
import { makeTar, TarMember, tempDir } from '../../helpers/seed-fixtures';

// The seed's own names and its state directory, attacked: entries named like its staging
// (.cdk-efs-kit-new-*) and temporary (.cdk-efs-kit-tmp-*) entries that a user made or renamed,
// which the seed must neither delete nor adopt nor write into (it removes only what carries a run
// token its state records, owned by the user it writes as); and a state directory renamed away under
// a running seed, so that a second run makes a new one beside it. Each runs the built command line as
// root (or the bundled handler, in a process of its own) on a real local disk, and checks that the
// planted entries and a sentinel tree outside the target are unchanged.

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'bin', 'cdk-efs-kit.js');
const HANDLER = path.join(ROOT, 'dist', 'handlers', 'seed', 'index.js');
const rootTest = process.getuid?.() === 0 ? test : test.skip;
/** A run that takes longer than this is taken as hung. */
const HUNG_MS = 60_000;
/** A run token as a seed's state would record it. */
const RECORDED = 'fedcba9876543210';

let work: string;
let source: string;
let target: string;
let outside: string;
beforeEach(() => {
  work = tempDir('own-names-');
  source = path.join(work, 'src');
  fs.mkdirSync(path.join(source, 'd'), { recursive: true });
  fs.writeFileSync(path.join(source, 'a.txt'), 'a');
  fs.writeFileSync(path.join(source, 'd', 'b.txt'), 'b');
  target = path.join(work, 'mnt', 't');
  outside = path.join(work, 'outside');
  makeSentinel(outside);
});
afterEach(() => execFileSync('rm', ['-rf', work]));

interface Run { readonly status: number | null; readonly output: string }

function cli(args: string[]): Run {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: HUNG_MS });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The bundled handler's onEvent, in a process of its own, with S3 pointed at a closed loopback port. */
function handler(event: Record<string, unknown>): Run {
  const script = `
    const handler = require(process.argv[1]);
    handler.onEvent(JSON.parse(process.argv[2]), { getRemainingTimeInMillis: () => 900000 })
      .then((r) => console.log('RESULT ' + JSON.stringify(r)), (e) => { console.log('ERROR ' + e.message); process.exitCode = 1; });`;
  const result = spawnSync(process.execPath, ['-e', script, HANDLER, JSON.stringify(event)], {
    encoding: 'utf8', timeout: HUNG_MS,
    env: { ...process.env, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_ENDPOINT_URL: 'http://127.0.0.1:9' },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/**
 * A co-user's trees and files under the seed's reserved names, in the target and in a directory the
 * source has: with no token, with a token no state records, and (`recorded`) with the token the
 * state records; each owned by nobody, as renamed there by someone who could not delete them.
 */
function plantUsersEntries(): string[] {
  const planted = [
    '.cdk-efs-kit-new-d', `.cdk-efs-kit-new-0123456789abcdef-d`, `.cdk-efs-kit-new-${RECORDED}-d`, '.cdk-efs-kit-new-x',
    'd/.cdk-efs-kit-tmp-1-0-0', `d/.cdk-efs-kit-tmp-${RECORDED}-1-0-0`, '.cdk-efs-kit-tmp-y',
  ];
  for (const name of planted) {
    const at = path.join(target, name);
    fs.mkdirSync(path.dirname(at), { recursive: true });
    if (name.includes('-tmp-')) fs.writeFileSync(at, 'her notes');
    else {
      fs.mkdirSync(path.join(at, 'work'), { recursive: true });
      fs.writeFileSync(path.join(at, 'work', 'b.txt'), 'her thesis');
      fs.chownSync(path.join(at, 'work', 'b.txt'), 65534, 65534);
      fs.chownSync(path.join(at, 'work'), 65534, 65534);
    }
    fs.chownSync(at, 65534, 65534);
  }
  return planted;
}

/** Records RECORDED in the target's state, as an interrupted run of the seed leaves it. */
function recordToken(): void {
  const state = path.join(target, '.cdk-efs-kit');
  fs.mkdirSync(state, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(state, 'run-tokens.json'), JSON.stringify({ tokens: { [RECORDED]: ['staging', 'temporary'] } }), { mode: 0o600 });
}

const snapshots = (names: string[]) => Object.fromEntries(names.map((name) => [name, snapshot(path.join(target, name))]));

describe('entries a user gave the seed\'s reserved names', () => {
  rootTest('through the CLI as root: none is deleted, adopted or written into; each is reported, and the seed writes its own', () => {
    expect(cli(['seed', source, target])).toMatchObject({ status: 0 });
    const planted = plantUsersEntries();
    recordToken();
    const before = { planted: snapshots(planted), outside: snapshot(outside) };
    fs.writeFileSync(path.join(source, 'd', 'b.txt'), 'b, new');
    fs.mkdirSync(path.join(source, 'x'));
    fs.writeFileSync(path.join(source, 'x', 'c.txt'), 'c');
    const run = cli(['seed', source, target, '--workers', '2', '--json']);
    expect(run.status).toBe(0);
    // Even a recorded token proves nothing of an entry another user owns: all 7 are left.
    expect({ planted: snapshots(planted), outside: snapshot(outside) }).toEqual(before);
    const summary = JSON.parse(run.output);
    expect(summary).toMatchObject({ failed: [], complete: true });
    expect(summary.warnings.join('\n')).toMatch(/left 7 entries named like the seed's own staging or temporary entries that it cannot prove it made/);
    expect(fs.readFileSync(path.join(target, 'd', 'b.txt'), 'utf8')).toBe('b, new');
    expect(fs.readFileSync(path.join(target, 'x', 'c.txt'), 'utf8')).toBe('c');
  });

  test('through the bundled handler\'s Delete: what the seed wrote goes, the user\'s entries stay, and are reported', () => {
    expect(cli(['seed', source, target])).toMatchObject({ status: 0 });
    const planted = plantUsersEntries();
    recordToken();
    const before = { planted: snapshots(planted), outside: snapshot(outside) };
    const at = `/mnt/cdk-efs-kit-own-names-${process.pid}-${randomUUID().slice(0, 8)}`;
    fs.symlinkSync(path.dirname(target), at);
    try {
      const run = handler({
        RequestType: 'Delete', RequestId: randomUUID(), PhysicalResourceId: `seed:${at}/t`,
        ResourceProperties: { MountPath: at, TargetSubPath: 't', RemoveOnDelete: 'true', Bucket: 'sources', Key: 'k', Format: 'zip' },
      });
      expect({ planted: snapshots(planted), outside: snapshot(outside) }).toEqual(before);
      expect(run.output).toContain('RESULT');
      expect(run.output).toMatch(/left 7 entries named like the seed's own staging or temporary entries that it cannot prove it made/);
    } finally {
      fs.rmSync(at);
    }
    expect(fs.existsSync(path.join(target, 'a.txt'))).toBe(false);
    expect(fs.existsSync(path.join(target, 'd', 'b.txt'))).toBe(false);
  });
});

describe('a state directory renamed away under a running seed', () => {
  rootTest('a second run neither deletes nor adopts the first run\'s staging directories, and the first stops, saying why', async () => {
    // The first run reads its source from a FIFO fed in two parts: between them it has staged d0-d2, filled, and waits.
    const members: TarMember[] = [];
    for (let d = 0; d < 10; d++) {
      members.push({ name: `d${d}/`, type: 'directory' });
      for (let f = 0; f < 100; f++) members.push({ name: `d${d}/f${f}`, content: `first ${d}/${f}` });
    }
    const archive = path.join(work, 'first.tar');
    await makeTar(archive, members);
    // d0-d2 whole: each a directory's header and 100 files of a header and a block.
    const half = 3 * (512 + 100 * 1024);
    const fifo = path.join(work, 'source.tar');
    const go = path.join(work, 'go');
    execFileSync('mkfifo', [fifo, go]);
    const feeder = spawn('sh', ['-c', 'exec > "$FIFO"; head -c "$HALF" "$TAR"; read line < "$GO"; tail -c "+$((HALF + 1))" "$TAR"'], {
      env: { ...process.env, FIFO: fifo, GO: go, TAR: archive, HALF: String(half) }, stdio: 'ignore',
    });
    const first = spawn(process.execPath, [CLI, 'seed', fifo, target, '--workers', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let firstOutput = '';
    first.stdout.on('data', (chunk) => { firstOutput += chunk; });
    first.stderr.on('data', (chunk) => { firstOutput += chunk; });
    const firstExit = new Promise<number | null>((resolve) => first.on('close', resolve));
    try {
      const staged = () => (fs.existsSync(target) ? fs.readdirSync(target).filter((n) => n.startsWith('.cdk-efs-kit-new-')) : []);
      const filled = () => staged().length === 3 && staged().every((n) => {
        const files = fs.readdirSync(path.join(target, n));
        return files.length === 100 && files.every((f) => fs.statSync(path.join(target, n, f)).size > 0);
      });
      for (let i = 0; i < 400 && !filled(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(filled()).toBe(true);

      // Renamed away (a user who can write the target can), the lock goes with it: a second run makes a new one.
      fs.renameSync(path.join(target, '.cdk-efs-kit'), path.join(target, 'renamed-state'));
      const firstRunsStaging = staged();
      const before = { staging: snapshots(firstRunsStaging), outside: snapshot(outside) };
      const second = path.join(work, 'second');
      for (let d = 0; d < 10; d++) {
        fs.mkdirSync(path.join(second, `d${d}`), { recursive: true });
        fs.writeFileSync(path.join(second, `d${d}`, 'only'), `second ${d}`);
      }
      const run = cli(['seed', second, target, '--json']);
      expect({ staging: snapshots(firstRunsStaging), outside: snapshot(outside) }).toEqual(before);
      expect(run.status).toBe(0);
      expect(JSON.parse(run.output).warnings.join('\n')).toMatch(new RegExp(`left ${firstRunsStaging.length} entr.*that it cannot prove it made`));
      expect(fs.readdirSync(path.join(target, 'd0'))).toEqual(['only']);

      // The first run reads the rest, then finds its state directory gone: it stops, publishing nothing.
      fs.writeFileSync(go, 'go\n');
      expect(await firstExit).not.toBe(0);
      expect(firstOutput).toContain('is no longer the state directory this run holds (it was renamed away or replaced while the seed ran)');
      expect(staged()).toEqual(expect.arrayContaining(firstRunsStaging));
      expect(fs.readdirSync(path.join(target, 'd0'))).toEqual(['only']);
      expect(snapshot(outside)).toEqual(before.outside);
    } finally {
      first.kill('SIGKILL');
      feeder.kill('SIGKILL');
    }
  });
});

describe('the manifest, read bounded in memory', () => {
  test('a 20 MiB manifest of short keys is ignored unparsed, saying why, and the run stays small', () => {
    // 1.5 million files of keys a few bytes long: parsed, they took 568 MiB (a key costs its strings and two map entries, whatever its length).
    const state = path.join(target, '.cdk-efs-kit');
    fs.mkdirSync(state, { recursive: true, mode: 0o700 });
    const files: string[] = [];
    for (let n = 0, bytes = 0; bytes < 20 * 1024 * 1024; n++) {
      const key = JSON.stringify(`k${n.toString(36)}`);
      files.push(`${key},"s",""`);
      bytes += key.length + 7;
    }
    fs.writeFileSync(path.join(state, 'seed-manifest.json'), `{"version":3,"files":[${files.join(',')}],"directories":[]}`, { mode: 0o600 });
    const before = snapshot(outside);
    const run = spawnSync('/usr/bin/time', ['-f', 'peak-kib %M', process.execPath, CLI, 'seed', source, target, '--json'], { encoding: 'utf8', timeout: HUNG_MS });
    expect(run.status).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(summary).toMatchObject({ written: 2, failed: [], complete: true });
    expect(summary.warnings.join('\n')).toMatch(/ignored the manifest \(it holds 4\d{6} strings, more than the 3000000 of the 1000000 files a seed reads a manifest of\)/);
    // A memory bound, not a time: 101 MiB measured, 568 MiB when it was parsed.
    expect(Number(/peak-kib (\d+)/.exec(run.stderr)![1]) / 1024).toBeLessThan(250);
    expect(snapshot(outside)).toEqual(before);
  });
});
