import { execFileSync, spawnSync } from 'child_process';
import { randomUUID } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { printable } from '../../../lambda/shared/printable';
import { cliForOtherUsers, openToOtherUsers } from '../../helpers/other-user';
import { makeSentinel, snapshot } from '../../helpers/sentinel';
import { makeTar, tempDir } from '../../helpers/seed-fixtures';
import { addTestUser, removeTestUsers, TestUser } from '../../helpers/test-users';

// Where the seed's trust boundary met what it runs in and what it prints: a /proc of another pid
// namespace, FIFOs planted as the seed's own state files, the user a root run works as (her groups,
// a source another user controls, ACLs, a link planted above the target), a planted chain of
// directories deeper than any seed makes, a mount path of '..', names that would steer a terminal,
// a low limit on open files. Each runs the built command line (or the bundled handler, in a process
// of its own: a run that blocked would block the test's too) on a real local disk, as root where it
// must, and checks that a sentinel tree beside the target is unchanged.

const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'bin', 'cdk-efs-kit.js');
const HANDLER = path.join(ROOT, 'dist', 'handlers', 'seed', 'index.js');
const isRoot = process.getuid?.() === 0;
const rootTest = isRoot ? test : test.skip;
/** A run that takes longer than this is taken as hung (a FIFO open blocks forever). */
const HUNG_MS = 30_000;

let work: string;
let source: string;
let target: string;
let outside: string;
beforeEach(() => {
  work = tempDir('trust-');
  source = path.join(work, 'src');
  fs.mkdirSync(path.join(source, 'd'), { recursive: true });
  fs.writeFileSync(path.join(source, 'a.txt'), 'a');
  fs.writeFileSync(path.join(source, 'd', 'b.txt'), 'b');
  target = path.join(work, 'mnt', 't');
  outside = path.join(work, 'outside');
  makeSentinel(outside);
});
// rm, not fs.rmSync: Node's recursion overflows its stack on the planted chain of 16,000 directories.
afterEach(() => execFileSync('rm', ['-rf', work]));

interface Run { readonly status: number | null; readonly output: string; readonly ms: number }

/** The built CLI, `prefix` (a command such as unshare) before node; never longer than HUNG_MS. */
function cli(args: string[], options: { prefix?: string[]; env?: Record<string, string>; cli?: string } = {}): Run {
  const command = [...options.prefix ?? [], process.execPath, options.cli ?? CLI, ...args];
  const started = Date.now();
  const result = spawnSync(command[0], command.slice(1), { encoding: 'utf8', timeout: HUNG_MS, env: { ...process.env, ...options.env } });
  return { status: result.status, output: `${result.stdout}${result.stderr}`, ms: Date.now() - started };
}

const seed = (...extra: string[]) => cli(['seed', source, target, '--workers', '2', ...extra]);

/** The bundled handler's onEvent, in a process of its own, with S3 pointed at a closed loopback port. */
function handler(event: Record<string, unknown>): Run {
  const script = `
    const handler = require(process.argv[1]);
    handler.onEvent(JSON.parse(process.argv[2]), { getRemainingTimeInMillis: () => 900000 })
      .then((r) => console.log('RESULT ' + JSON.stringify(r)), (e) => { console.log('ERROR ' + e.message); process.exitCode = 1; });`;
  const started = Date.now();
  const result = spawnSync(process.execPath, ['-e', script, HANDLER, JSON.stringify(event)], {
    encoding: 'utf8', timeout: HUNG_MS,
    env: { ...process.env, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_ENDPOINT_URL: 'http://127.0.0.1:9' },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}`, ms: Date.now() - started };
}

/** Lambda's /mnt/<name> for the handler: a link to the directory holding the target. */
function mountPath(): string {
  const at = `/mnt/cdk-efs-kit-trust-${process.pid}-${randomUUID().slice(0, 8)}`;
  fs.symlinkSync(path.dirname(target), at);
  return at;
}

const listing = (dir: string) => execFileSync('find', ['.', '-path', './.cdk-efs-kit', '-prune', '-o', '-print'], { cwd: dir, encoding: 'utf8' }).split('\n').filter(Boolean).sort();

describe('a /proc that belongs to another pid namespace', () => {
  rootTest('under unshare --pid --fork without a /proc of its own, every file lands in the target and nothing outside changes', () => {
    const before = snapshot(outside);
    // /proc is the parent namespace's: /proc/<the seed's pid> (1) is another process there.
    const inside = cli(['seed', source, target, '--workers', '2', '--json'], { prefix: ['unshare', '--pid', '--fork'] });
    expect(inside.status).toBe(0);
    expect(JSON.parse(inside.output)).toMatchObject({ written: 2, failed: [], complete: true });
    expect(listing(target)).toEqual(['.', './a.txt', './d', './d/b.txt']);
    expect(fs.readFileSync(path.join(target, 'd', 'b.txt'), 'utf8')).toBe('b');
    expect(snapshot(outside)).toEqual(before);
  });

  rootTest('the lock\'s holder, alive in the same namespace, is waited for; killed, its lock is taken over at once', () => {
    // The holder reads its source from a FIFO no one writes: it holds the lock until it is killed.
    const fifo = path.join(work, 'held.tar');
    execFileSync('mkfifo', [fifo]);
    const script = `
      "$NODE" "$CLI" seed "$FIFO" "$T" > "$W/holder.out" 2>&1 &
      holder=$!
      for i in $(seq 200); do [ -e "$T/.cdk-efs-kit/lock" ] && break; sleep 0.05; done
      "$NODE" "$CLI" seed "$SRC" "$T" --lock-wait 1 > "$W/waiter.out" 2>&1; echo $? > "$W/waiter.exit"
      kill -9 $holder; wait $holder
      "$NODE" "$CLI" seed "$SRC" "$T" --lock-wait 1 > "$W/after.out" 2>&1; echo $? > "$W/after.exit"`;
    const started = Date.now();
    execFileSync('unshare', ['--pid', '--fork', 'sh', '-c', script], {
      timeout: HUNG_MS, env: { ...process.env, NODE: process.execPath, CLI, FIFO: fifo, T: target, SRC: source, W: work },
    });
    const read = (name: string) => fs.readFileSync(path.join(work, name), 'utf8').trim();
    // /proc/<the holder's pid in its namespace> is another process in the parent's /proc: never taken for the holder.
    expect({ exit: read('waiter.exit'), output: read('waiter.out') }).toMatchObject({ exit: '3', output: expect.stringContaining('another seed run holds') });
    // Killed, it is gone from /proc: its lock is stale at once, not after the 60 s lease.
    expect({ exit: read('after.exit'), output: read('after.out') }).toEqual({ exit: '0', output: expect.any(String) });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(fs.readFileSync(path.join(target, 'd', 'b.txt'), 'utf8')).toBe('b');
  });

  rootTest('with the native addon, a local directory seeds with /proc empty: its listing, lstats and opens resolve no path through it', () => {
    const before = snapshot(outside);
    const run = cli(['seed', source, target, '--json'], { prefix: ['unshare', '--mount', 'sh', '-c', 'mount -t tmpfs none /proc && exec "$0" "$@"'] });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.output)).toMatchObject({ written: 2, failed: [], complete: true });
    expect(listing(target)).toEqual(['.', './a.txt', './d', './d/b.txt']);
    expect(snapshot(outside)).toEqual(before);
  });
});

describe('with the native addon, the target\'s calls resolve no path through /proc', () => {
  // /proc an empty tmpfs: a path through /proc/self/fd leads nowhere. The source is an archive (a
  // file, not a directory walked through its descriptors), so the target's calls alone are tested.
  const NO_PROC = ['unshare', '--mount', 'sh', '-c', 'mount -t tmpfs none /proc && exec "$0" "$@"'];
  const zipOf = (name: string, dir: string) => {
    execFileSync('zip', ['-qry', path.join(work, name), '.'], { cwd: dir });
    return path.join(work, name);
  };

  rootTest.each([['openat2', {}, 'openat2'], ['the descriptor walk', { CDK_EFS_KIT_OPENAT2: '0' }, 'descriptor walk (turned off by CDK_EFS_KIT_OPENAT2=0)']])(
    'by %s: a seed, a second one, and a prune complete with /proc empty', (_how, env, resolution) => {
      fs.symlinkSync('b.txt', path.join(source, 'd', 'l'));
      const full = zipOf('full.zip', source);
      fs.rmSync(path.join(source, 'd'), { recursive: true });
      const smaller = zipOf('smaller.zip', source);
      const run = (zip: string, ...extra: string[]) => {
        const outcome = cli(['seed', zip, target, '--json', ...extra], { prefix: NO_PROC, env: env as Record<string, string> });
        expect(outcome).toMatchObject({ status: 0 });
        return JSON.parse(outcome.output);
      };
      const before = snapshot(outside);
      expect(run(full)).toMatchObject({ written: 3, failed: [], complete: true, pathResolution: resolution });
      expect(run(full)).toMatchObject({ written: 0, skipped: 3, failed: [], complete: true });
      expect(run(smaller, '--prune')).toMatchObject({ failed: [], complete: true, pathResolution: resolution });
      expect(listing(target)).toEqual(['.', './a.txt']);
      expect(snapshot(outside)).toEqual(before);
    });
});

describe('a FIFO planted as one of the seed\'s own state files', () => {
  const plantFifo = (name: string) => {
    const at = path.join(target, '.cdk-efs-kit', name);
    fs.rmSync(at, { force: true });
    execFileSync('mkfifo', [at]);
  };

  test.each(['lock', 'seed-manifest.json'])('fails when %s is a FIFO: the CLI refuses at once, naming it', (name) => {
    expect(seed()).toMatchObject({ status: 0 });
    plantFifo(name);
    const before = snapshot(outside);
    const run = seed('--lock-wait', '5');
    expect(run.ms).toBeLessThan(HUNG_MS);
    expect(run.status).not.toBe(0);
    expect(run.output).toMatch(/is a FIFO, not a regular file, which a seed never makes; remove it and run the seed again/);
    expect(snapshot(outside)).toEqual(before);
  });

  test.each(['lock', 'seed-manifest.json', 'request.json'])('the handler\'s Delete returns when %s is a FIFO, removing nothing', (name) => {
    expect(seed()).toMatchObject({ status: 0 });
    plantFifo(name);
    const at = mountPath();
    try {
      const before = snapshot(outside);
      const run = handler({
        RequestType: 'Delete', RequestId: randomUUID(), PhysicalResourceId: `seed:${at}/t`,
        ResourceProperties: { MountPath: at, TargetSubPath: 't', RemoveOnDelete: 'true', Bucket: 'sources', Key: 'k', Format: 'zip' },
      });
      expect(run.ms).toBeLessThan(HUNG_MS);
      expect(run.output).toContain('RESULT');
      expect(run.output).toMatch(/is a FIFO, not a regular file/);
      expect(listing(target)).toEqual(['.', './a.txt', './d', './d/b.txt']);
      expect(snapshot(outside)).toEqual(before);
    } finally {
      fs.rmSync(at);
    }
  });
});

describe('as root, the seed works with the least privilege the target and the source allow', () => {
  let alice: TestUser;
  let bob: TestUser;
  beforeEach(() => {
    if (!isRoot) return;
    alice = addTestUser();
    bob = addTestUser();
    openToOtherUsers(source);
    fs.mkdirSync(target, { recursive: true });
    openToOtherUsers(target);
  });
  afterEach(() => {
    if (isRoot) removeTestUsers();
  });
  const asRoot = (...extra: string[]) => cli(['seed', source, target, '--workers', '2', ...extra], { cli: cliForOtherUsers() });

  rootTest('a target chowned to a user but left group root is seeded as her, with her own groups: never gid 0, and a file only root\'s group can read is not copied', () => {
    fs.writeFileSync(path.join(source, 'root-group-only.txt'), 'not for alice');
    fs.chownSync(path.join(source, 'root-group-only.txt'), 0, 0);
    fs.chmodSync(path.join(source, 'root-group-only.txt'), 0o040);
    fs.chownSync(target, alice.uid, 0);
    const before = snapshot(outside);
    const run = asRoot();
    expect(run.status).toBe(1);
    expect(run.output).toMatch(/root-group-only\.txt: EACCES/);
    expect(fs.existsSync(path.join(target, 'root-group-only.txt'))).toBe(false);
    // Her uid and her primary group from the passwd database, not the target's group (root).
    for (const name of ['a.txt', 'd', 'd/b.txt', '.cdk-efs-kit']) {
      expect([name, fs.statSync(path.join(target, name))]).toEqual([name, expect.objectContaining({ uid: alice.uid, gid: alice.gid })]);
    }
    expect(snapshot(outside)).toEqual(before);
  });

  rootTest('fails when another user controls the source, naming the source, its owner and the flag, before anything is read or written', () => {
    fs.chownSync(source, bob.uid, bob.gid);
    for (const owner of [0, alice.uid]) {
      fs.chownSync(target, owner, owner);
      const before = snapshot(outside);
      const run = asRoot();
      expect({ owner, status: run.status }).toEqual({ owner, status: 2 });
      expect(run.output).toContain(`refusing to seed as root: the source ${source} belongs to ${bob.name} (uid ${bob.uid}), who could swap what it holds while the seed reads it as ${owner === 0 ? 'root' : `${alice.name} (uid ${alice.uid})`}; `
        + `run the seed as ${bob.name}, or pass --allow-root to read it as root all the same`);
      expect(fs.readdirSync(target)).toEqual([]);
      expect(snapshot(outside)).toEqual(before);
    }
  });

  rootTest('a source the target\'s owner controls is read as her', () => {
    fs.chownSync(source, alice.uid, alice.gid);
    fs.chownSync(target, alice.uid, alice.gid);
    expect(asRoot()).toMatchObject({ status: 0 });
    expect(fs.statSync(path.join(target, 'd', 'b.txt'))).toMatchObject({ uid: alice.uid, gid: alice.gid });
  });

  rootTest('fails when a POSIX ACL lets a user write the root-owned target; --allow-root goes on as root', () => {
    execFileSync('setfacl', ['-m', `u:${alice.name}:rwx`, target]);
    const before = snapshot(outside);
    const run = asRoot();
    expect(run.status).toBe(2);
    expect(run.output).toContain(`refusing to seed as root: ${alice.name} (uid ${alice.uid}) can write ${target} (its ACL says so), who could change it while root writes there; `
      + 'make it writable by root alone, or pass --allow-root to copy as root all the same');
    expect(fs.readdirSync(target)).toEqual([]);
    expect(asRoot('--allow-root')).toMatchObject({ status: 0 });
    expect(fs.statSync(path.join(target, 'a.txt')).uid).toBe(0);
    expect(snapshot(outside)).toEqual(before);
  });

  rootTest('an ACL whose mask takes write away is no writer', () => {
    execFileSync('setfacl', ['-m', `u:${alice.name}:rwx,m::r-x`, target]);
    expect(asRoot()).toMatchObject({ status: 0 });
  });

  rootTest('a link planted in a user\'s directory above the target is not followed: the run refuses, naming her, and the tree it leads to is unchanged', () => {
    // /home/alice, as it were: hers; in it a link to a root-owned tree, named as the target's parent.
    const home = path.join(work, 'home');
    fs.mkdirSync(home);
    fs.chownSync(home, alice.uid, alice.gid);
    fs.symlinkSync(outside, path.join(home, 'www'));
    const before = snapshot(outside);
    for (const planted of [path.join(home, 'www'), path.join(home, 'www', 'sub')]) {
      const run = cli(['seed', source, planted, '--workers', '2']);
      expect({ planted, status: run.status }).toEqual({ planted, status: 2 });
      expect(run.output).toContain(`refusing to seed as root: ${home}, on the way to ${planted}, belongs to ${alice.name} (uid ${alice.uid}), who could change it while root writes there; `);
      expect(snapshot(outside)).toEqual(before);
    }
  });

  rootTest('a root-owned target every user can write still needs --allow-root', () => {
    fs.chmodSync(target, 0o777);
    const run = asRoot();
    expect(run.status).toBe(2);
    expect(run.output).toMatch(/every user can write .*; make it writable by root alone, or pass --allow-root to copy as root all the same/);
    expect(fs.readdirSync(target)).toEqual([]);
  });

  rootTest('--as-owner is gone: the owner is the default', () => {
    fs.chownSync(target, alice.uid, alice.gid);
    const run = asRoot('--as-owner');
    expect(run.status).not.toBe(0);
    expect(run.output).toContain("unknown option '--as-owner'");
    expect(fs.readdirSync(target)).toEqual([]);
    expect(asRoot()).toMatchObject({ status: 0 });
    expect(fs.statSync(path.join(target, 'a.txt'))).toMatchObject({ uid: alice.uid, gid: alice.gid });
  });
});

describe('leftovers and limits', () => {
  test('a planted chain of 16,000 directories under a staging name costs a 1-file seed no more than a second or two', () => {
    fs.mkdirSync(target, { recursive: true });
    // Made relative to the deepest directory each time (an absolute path would pass PATH_MAX).
    execFileSync('python3', ['-c', 'import os,sys\nos.chdir(sys.argv[1])\nfor _ in range(16000):\n    os.mkdir("a"); os.chdir("a")', fs.mkdtempSync(path.join(target, '.cdk-efs-kit-new-planted-'))]);
    const before = snapshot(outside);
    const run = seed('--json');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.output).seconds).toBeLessThan(10);
    expect(fs.readFileSync(path.join(target, 'd', 'b.txt'), 'utf8')).toBe('b');
    expect(snapshot(outside)).toEqual(before);
  });

  test('under ulimit -n 64, every file is written: the run writes fewer at a time, and says so', () => {
    for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(source, 'd', `f${i}`), String(i));
    for (const workers of ['0', '2']) {
      fs.rmSync(target, { recursive: true, force: true });
      // Node's calls on the thread pool (as on EFS, or where the native writer is not built): many files open at once.
      const run = spawnSync('bash', ['-c', `ulimit -n 64 && exec "${process.execPath}" "${CLI}" seed "${source}" "${target}" --workers ${workers} --json`], {
        encoding: 'utf8', timeout: HUNG_MS, env: { ...process.env, CDK_EFS_KIT_NATIVE: '0', CDK_EFS_KIT_SYNC_CALLS: '0' },
      });
      expect({ workers, status: run.status }).toEqual({ workers, status: 0 });
      const summary = JSON.parse(run.stdout);
      expect(summary).toMatchObject({ written: 202, failed: [] });
      expect(summary.warnings.join('\n')).toMatch(/not the 64 asked for: the limit on open files \(ulimit -n\) is 64, and each file in flight holds up to 3/);
    }
  });
});

describe('the handler\'s MountPath', () => {
  test.each(['/mnt/..', '/mnt/.'])('fails when it is %s, before anything is touched', (mount) => {
    const before = snapshot(outside);
    const run = handler({
      RequestType: 'Create', RequestId: randomUUID(),
      ResourceProperties: { MountPath: mount, TargetSubPath: path.relative('/', target), Bucket: 'sources', Key: 'k', Format: 'zip', Concurrency: '8', Prune: 'false', RemoveOnDelete: 'false', Fingerprint: 'f' },
    });
    expect(run.output).toContain(`ERROR invalid seed properties: MountPath must be /mnt/<name>, got "${mount}"`);
    expect(fs.existsSync(target)).toBe(false);
    expect(snapshot(outside)).toEqual(before);
  });
});

describe('names from input on the terminal', () => {
  const hostile = 'x\x1b]0;owned\x07\x1b[2J\r\n0 failed\u202e';

  test('an archive member\'s name is printed with its control characters escaped', async () => {
    const archive = path.join(work, 'names.tar');
    await makeTar(archive, [{ name: 'ok.txt', content: 'ok' }, { name: hostile, type: 'fifo' }]);
    const run = cli(['seed', archive, target]);
    expect(run.status).toBe(0);
    expect(run.output).toContain('skipped (FIFOs, sockets and devices have no content to copy): x\\x1b]0;owned\\x07\\x1b[2J\\r\\n0 failed\\u202e');
    expect(run.output).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/);
  });

  test('printable escapes C0, DEL, C1 and the bidirectional overrides, and nothing else', () => {
    expect(printable('a\x1b[1mb\x7f\x9b\u202e\u2066 é/ü\t')).toBe('a\\x1b[1mb\\x7f\\x9b\\u202e\\u2066 é/ü\\t');
  });
});
