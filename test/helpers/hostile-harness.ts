import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { execFileSync, spawnSync } from 'child_process';
import { randomUUID } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { describeWithFuse, EfsSim, startEfsSim } from './efs-sim';
import { Moto, startMoto } from './moto';
import { makeSentinel, snapshot } from './sentinel';
import { makeTar, TarMember, tempDir } from './seed-fixtures';

// The harness of the hostile-input suites: each case is an attack on the seed (a crafted archive, a
// target someone prepared, a hand-edited manifest, a hand-written request), run through the CLI and
// through the bundled handler (the asset FileSystemSeed deploys) on efs-sim, and where the tests run
// as root, the planted-link cases once more with the target prepared by an unprivileged user (nobody)
// on a local disk. Each run asserts the outcome and its message, and that a sentinel tree outside the
// target is unchanged (content, modes, owners, times, links); then that a legitimate seed of the
// same source into a clean target still works.

export const CLI = path.join(__dirname, '..', '..', 'dist', 'bin', 'cdk-efs-kit.js');
export const isRoot = process.getuid?.() === 0;
let moto: Moto;
let s3: S3Client;
let handler: any;
let fixtures: string;
let uploads = 0;

/** A source: a directory tree (files by path; a value of null is a directory) or an archive. */
export type Tree = Record<string, string | null>;
export type Source = { tree: Tree } | { tar: TarMember[] } | { file: (dir: string) => string };

export interface Case {
  readonly name: string;
  readonly via: Array<'cli' | 'handler'>;
  /** Also with the target prepared by nobody, on a local disk (planted links and forged manifests). */
  readonly unprivileged?: boolean;
  /** Seeded legitimately first, so the target has a manifest and published directories. */
  readonly first?: Source;
  readonly source: Source;
  /** Shell run before the attack with T (the target), OUT (the sentinel tree) and M (the handler's mount root). */
  readonly plant?: string;
  readonly prune?: boolean;
  /** Handler only: properties over the defaults, or the request type. */
  readonly props?: Record<string, string>;
  readonly request?: 'Create' | 'Delete';
  /** 0: done; 1: entries failed (the handler throws); 2: refused as bad input (the handler throws). */
  readonly exit: 0 | 1 | 2;
  readonly message?: RegExp;
  /** The outcome where it differs when nobody prepared the target (state nobody made is refused, say). */
  readonly byNobody?: { readonly exit: 0 | 1 | 2; readonly message?: RegExp };
  /** More checks of the target. */
  readonly after?: (target: string) => void;
  /** Whether the same source then seeds a clean target with exit 0 (false for hostile sources). */
  readonly legit?: boolean;
}

export const text = (target: string, file: string) => fs.readFileSync(path.join(target, file), 'utf8');

/** The bundled seed handler (dist/handlers/seed), loaded once the harness has started. */
export const seedHandler = () => handler;
/** A directory for a suite's own fixtures, removed at the end. */
export const fixturesDir = () => fixtures;

export async function materialize(source: Source, dir: string): Promise<string> {
  fs.mkdirSync(dir, { recursive: true });
  if ('file' in source) return source.file(dir);
  if ('tar' in source) {
    const file = path.join(dir, 'source.tar');
    await makeTar(file, source.tar);
    return file;
  }
  const root = path.join(dir, 'tree');
  fs.mkdirSync(root);
  for (const [name, content] of Object.entries(source.tree)) {
    const full = path.join(root, name);
    if (content === null) fs.mkdirSync(full, { recursive: true });
    else {
      fs.mkdirSync(path.dirname(full), { recursive: true });
      fs.writeFileSync(full, content);
    }
  }
  return root;
}

export interface Outcome { readonly exit: number; readonly output: string }

export function runCli(source: string, target: string, prune = false, ...extra: string[]): Outcome {
  // Two worker threads whatever the machine: the workers write with the same guarantees.
  const result = spawnSync(process.execPath, [CLI, 'seed', source, target, '--concurrency', '8', '--workers', '2', ...(prune ? ['--prune'] : []), ...extra], { encoding: 'utf8', timeout: 60_000 });
  if (result.error) throw result.error;
  return { exit: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
}

/** The source as the Lambda engine reads it: an S3 object (a directory zipped, as CDK does with an asset). */
async function upload(source: string): Promise<{ Key: string; Format: string }> {
  const n = uploads++;
  let file = source;
  let format = 'zip';
  if (fs.statSync(source).isDirectory()) {
    file = path.join(fixtures, `upload-${n}.zip`);
    execFileSync('zip', ['-qry', file, '.'], { cwd: source });
  } else {
    format = source.endsWith('.tar') ? 'tar' : source.endsWith('.tar.gz') ? 'tar.gz' : 'zip';
  }
  const Key = `source-${n}.${format}`;
  await s3.send(new PutObjectCommand({ Bucket: 'sources', Key, Body: fs.createReadStream(file), ContentLength: fs.statSync(file).size }));
  return { Key, Format: format };
}

/** The bundled handler, as the Provider framework drives it; its log lines and error are the output. */
async function runHandler(source: string, mountPath: string, props: Record<string, string>, request: 'Create' | 'Delete'): Promise<Outcome> {
  const object = await upload(source);
  const resourceProperties = {
    Bucket: 'sources', ...object, Fingerprint: object.Key, MountPath: mountPath, TargetSubPath: 't',
    Concurrency: '8', Prune: 'false', RemoveOnDelete: 'false', ...props,
  };
  const logged: string[] = [];
  const log = (...args: unknown[]) => { logged.push(args.join(' ')); };
  const spies = [jest.spyOn(console, 'log').mockImplementation(log), jest.spyOn(console, 'warn').mockImplementation(log)];
  const context = { getRemainingTimeInMillis: () => 900_000 };
  try {
    // Each run a request of its own; a Delete names the resource the Creates made (its physical id names its place).
    const event = { RequestType: request, RequestId: randomUUID(), ResourceProperties: resourceProperties, PhysicalResourceId: `seed:${path.join(mountPath, resourceProperties.TargetSubPath)}` };
    const response = await handler.onEvent(event, context);
    if (request === 'Create' && response.Data?.Complete !== 'true') await handler.isComplete({ ...event, ...response }, context);
    return { exit: 0, output: logged.join('\n') };
  } catch (err) {
    return { exit: 1, output: `${logged.join('\n')}\n${(err as Error).message}` };
  } finally {
    spies.forEach((spy) => spy.mockRestore());
  }
}

function plant(script: string | undefined, env: Record<string, string>, asNobody: boolean): void {
  if (!script) return;
  const command = asNobody ? ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', 'sh', '-ec', script] : ['sh', '-ec', script];
  execFileSync(command[0], command.slice(1), { env: { ...process.env, ...env }, stdio: 'pipe' });
}

/** Where one run happens: the target, the sentinel beside it, and (for the handler) the mount root. */
interface Workspace { readonly target: string; readonly outside: string; readonly mountRoot: string; readonly mountPath: string }

let workspaces = 0;
function workspace(base: string): Workspace {
  const dir = path.join(base, `ws-${workspaces++}`);
  const mountRoot = path.join(dir, 'mnt');
  fs.mkdirSync(mountRoot, { recursive: true });
  const outside = path.join(dir, 'outside');
  makeSentinel(outside);
  const mountPath = `/mnt/cdk-efs-kit-hostile-${process.pid}-${workspaces}`;
  fs.symlinkSync(mountRoot, mountPath);
  return { target: path.join(mountRoot, 't'), outside, mountRoot, mountPath };
}

async function attack(c: Case, via: 'cli' | 'handler', base: string, asNobody: boolean): Promise<void> {
  const ws = workspace(base);
  try {
    const source = await materialize(c.source, path.join(fixtures, `case-${workspaces}`));
    // As root on a target nobody owns, the CLI would work as nobody; --allow-root keeps it root, and what root does must still be harmless.
    const seedOnce = (from: string, options: { prune?: boolean; props?: Record<string, string>; request?: 'Create' | 'Delete' } = {}) => (via === 'cli'
      ? Promise.resolve(runCli(from, ws.target, options.prune, ...(asNobody ? ['--allow-root'] : [])))
      : runHandler(from, ws.mountPath, { Prune: String(options.prune ?? false), ...options.props }, options.request ?? 'Create'));
    if (c.first) expect(await seedOnce(await materialize(c.first, path.join(fixtures, `first-${workspaces}`)), { props: c.props })).toMatchObject({ exit: 0 });
    if (asNobody) {
      fs.mkdirSync(ws.target, { recursive: true });
      fs.chownSync(ws.target, 65534, 65534);
    }
    plant(c.plant, { T: ws.target, OUT: ws.outside, M: ws.mountRoot }, asNobody);
    const before = snapshot(ws.outside);

    const outcome = await seedOnce(source, { prune: c.prune, props: c.props, request: c.request });
    const expected = (asNobody && c.byNobody) || c;
    expect({ exit: via === 'cli' ? outcome.exit : Math.min(outcome.exit, 1) }).toEqual({ exit: via === 'cli' ? expected.exit : Math.min(expected.exit, 1) });
    if (expected.message) expect(outcome.output).toMatch(expected.message);
    expect(snapshot(ws.outside)).toEqual(before);
    if (fs.existsSync(ws.target) && !(asNobody && c.byNobody)) c.after?.(ws.target);

    if (c.legit !== false) {
      const clean = workspace(base);
      try {
        expect(await (via === 'cli' ? runCli(source, clean.target) : runHandler(source, clean.mountPath, {}, 'Create'))).toMatchObject({ exit: 0 });
      } finally {
        fs.rmSync(clean.mountPath, { force: true });
      }
    }
  } finally {
    fs.rmSync(ws.mountPath, { force: true });
  }
}

/**
 * Starts what every case needs (moto with a bucket for the handler's sources, the bundled handler,
 * a fixtures directory) before the suite, and stops it after. Call it at the top of a suite.
 */
export function useHostileHarness(): void {
  beforeAll(async () => {
    moto = await startMoto();
    Object.assign(process.env, { AWS_ENDPOINT_URL: moto.endpoint, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' });
    handler = require(path.join(__dirname, '..', '..', 'dist', 'handlers', 'seed', 'index.js'));
    s3 = new S3Client(moto.clientConfig);
    await s3.send(new CreateBucketCommand({ Bucket: 'sources' }));
    fixtures = tempDir('hostile-');
  }, 120_000);
  afterAll(async () => {
    await moto.stop();
    fs.rmSync(fixtures, { recursive: true, force: true });
  });
}

/** Runs each case through the CLI and the handler on efs-sim, and the `unprivileged` ones on a local disk prepared by nobody. */
export function runHostileCases(cases: Case[]): void {
  describeWithFuse('on efs-sim', () => {
    let sim: EfsSim;
    beforeAll(async () => { sim = await startEfsSim({ profile: 'efs-gp' }); });
    afterAll(async () => sim.stop());

    describe.each(['cli', 'handler'] as const)('through the %s', (via) => {
      test.each(cases.filter((c) => c.via.includes(via)).map((c) => [c.name, c] as const))('%s', async (_name, c) => {
        await attack(c, via, sim.mount, false);
      });
    });
  });

  const unprivileged = cases.filter((c) => c.unprivileged);
  if (unprivileged.length === 0) return;
  (isRoot ? describe : describe.skip)('the target prepared by an unprivileged user (nobody), seeded by root, on a local disk', () => {
    let base: string;
    beforeAll(() => {
      base = tempDir('hostile-local-');
      // nobody must reach the workspaces: the test run's own temporary directories are private.
      for (let dir = base; dir !== path.dirname(dir) && dir.startsWith(os.tmpdir()); dir = path.dirname(dir)) fs.chmodSync(dir, fs.statSync(dir).mode | 0o711);
    });
    afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

    test.each(unprivileged.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      await attack(c, 'cli', base, true);
    });
  });
}
