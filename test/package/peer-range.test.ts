import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readmeQuickStart } from '../helpers/quick-start';

// The peer range, proven: the packed package installed into an app that has exactly the oldest
// aws-cdk-lib and constructs package.json accepts, and into one with the newest 2.x the registry
// serves; there, every example, the README's quick start and test/apps/every-construct.ts (every
// engine and construct on every kind of file system) synthesize with `cdk synth --strict`
// (a warning fails) and JSII_DEPRECATED=fail (a deprecated API fails). The peers' install (13 s a
// pair on an idle machine, from npm's cache) is kept in ~/.cache/cdk-efs-kit/peers and shared by
// every clone and run; each run copies it and installs this build's tarball into the copy. Needs
// `npm run build` first (npm test does it).
const root = path.join(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);
const npmEnv = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
const PEER_CACHE = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'cdk-efs-kit', 'peers');

function lowerBound(peer: string): string {
  const range: string = pkg.peerDependencies[peer];
  const match = /^\^(\d+\.\d+\.\d+)$/.exec(range);
  if (!match) throw new Error(`peerDependencies.${peer} is '${range}'; this test reads a caret range, ^x.y.z`);
  return match[1];
}

/** The newest release in `range` on the registry (an install step: the one network call besides npm install). */
function newest(peer: string, range: string): string {
  const versions = JSON.parse(execFileSync('npm', ['view', `${peer}@${range}`, 'version', '--json'], { encoding: 'utf8', env: npmEnv, stdio: ['ignore', 'pipe', 'pipe'] }));
  return Array.isArray(versions) ? versions[versions.length - 1] : versions;
}

/** Package names directly under node_modules, scoped ones as @scope/name. */
function installedPackages(dir: string): string[] {
  const modules = path.join(dir, 'node_modules');
  return fs.readdirSync(modules).filter((n) => !n.startsWith('.'))
    .flatMap((n) => (n.startsWith('@') ? fs.readdirSync(path.join(modules, n)).map((m) => `${n}/${m}`) : [n])).sort();
}

/**
 * An install of exactly these peers, made once and never changed after (runs copy it): its folder is
 * named by the versions and a hash of what decides the install (the app's package.json and npm's
 * version). `peers.json` lists what the install put in node_modules, to tell what cdk-efs-kit adds.
 */
function peerInstall(awsCdkLib: string, constructs: string): string {
  const manifest = JSON.stringify({ name: 'peer-range-app', private: true, dependencies: { 'aws-cdk-lib': awsCdkLib, constructs } }, null, 2);
  const npmVersion = execFileSync('npm', ['--version'], { encoding: 'utf8', env: npmEnv }).trim();
  const key = createHash('sha256').update(`${manifest}\nnpm ${npmVersion}`).digest('hex').slice(0, 12);
  const dir = path.join(PEER_CACHE, `aws-cdk-lib@${awsCdkLib}+constructs@${constructs}-${key}`);
  if (fs.existsSync(path.join(dir, 'peers.json'))) return dir;
  const partial = `${dir}.partial-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  fs.mkdirSync(partial, { recursive: true });
  fs.writeFileSync(path.join(partial, 'package.json'), manifest);
  execFileSync('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: partial, env: npmEnv, stdio: 'pipe' });
  fs.writeFileSync(path.join(partial, 'peers.json'), JSON.stringify(installedPackages(partial)));
  try {
    fs.renameSync(partial, dir);
  } catch (err: any) {
    // Another run (another clone) finished the same install first: theirs is as good.
    if (!fs.existsSync(path.join(dir, 'peers.json'))) throw err;
    fs.rmSync(partial, { recursive: true, force: true });
  }
  return dir;
}

const apps = new Map<string, { dir: string; added: string[] }>();

/**
 * An app of this run with exactly these peers and this build's tarball installed as a user installs
 * it (offline: the package has no dependencies to fetch), made once per pair of versions; what the
 * tarball's install added to node_modules.
 */
function appWith(awsCdkLib: string, constructs: string): { dir: string; added: string[] } {
  const key = `${awsCdkLib}+${constructs}`;
  if (!apps.has(key)) {
    const installed = peerInstall(awsCdkLib, constructs);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'peer-range-app-'));
    fs.cpSync(installed, dir, { recursive: true });
    execFileSync('npm', ['install', '--no-save', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', tarball], { cwd: dir, env: npmEnv, stdio: 'pipe' });
    const peers: string[] = JSON.parse(fs.readFileSync(path.join(dir, 'peers.json'), 'utf8'));
    apps.set(key, { dir, added: installedPackages(dir).filter((p) => !peers.includes(p)) });
  }
  return apps.get(key)!;
}

let tarball: string;
let packDir: string;

beforeAll(() => {
  packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'peer-range-pack-'));
  const [pack] = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', packDir], { cwd: root, encoding: 'utf8', env: npmEnv }));
  tarball = path.join(packDir, pack.filename);
});
afterAll(() => {
  fs.rmSync(packDir, { recursive: true, force: true });
  for (const { dir } of apps.values()) fs.rmSync(dir, { recursive: true, force: true });
});

const examples = fs.readdirSync(path.join(root, 'examples')).filter((f) => f.endsWith('.ts'));
const cases = [
  { name: 'the lower bound', versions: () => ({ awsCdkLib: lowerBound('aws-cdk-lib'), constructs: lowerBound('constructs') }) },
  { name: 'the newest 2.x', versions: () => ({ awsCdkLib: newest('aws-cdk-lib', '^2'), constructs: newest('constructs', '^10') }) },
];

describe.each(cases)('an app on $name of aws-cdk-lib', ({ versions }) => {
  let app: string;
  let work: string;
  let awsCdkLib: string;
  let added: string[];

  beforeAll(() => {
    const v = versions();
    awsCdkLib = v.awsCdkLib;
    ({ dir: app, added } = appWith(v.awsCdkLib, v.constructs));

    // The examples as a user copies them (importing the package, not ../lib), and the README's quick start.
    work = fs.mkdtempSync(path.join(app, 'run-'));
    fs.cpSync(path.join(root, 'examples'), path.join(work, 'examples'), { recursive: true });
    for (const file of examples) {
      const source = path.join(work, 'examples', file);
      fs.writeFileSync(source, fs.readFileSync(source, 'utf8').replace(/from '\.\.\/lib'/g, "from 'cdk-efs-kit'"));
    }
    // The app that uses every engine and construct on every kind of file system, as a user would write it.
    fs.cpSync(path.join(root, 'test', 'apps'), path.join(work, 'apps'), { recursive: true });
    const everyConstruct = path.join(work, 'apps', 'every-construct.ts');
    fs.writeFileSync(everyConstruct, fs.readFileSync(everyConstruct, 'utf8').replace(/from '\.\.\/\.\.\/lib'/g, "from 'cdk-efs-kit'"));
    fs.mkdirSync(path.join(work, 'bin'));
    fs.writeFileSync(path.join(work, 'bin', 'app.ts'), readmeQuickStart('tsx'));
    fs.mkdirSync(path.join(work, 'site'));
    fs.writeFileSync(path.join(work, 'site', 'index.html'), '<h1>hello</h1>\n');
    fs.writeFileSync(path.join(work, 'cdk.json'), JSON.stringify({ notices: false, context: { 'cli-telemetry': false } }));
  }, 600_000);
  afterAll(() => { if (work) fs.rmSync(work, { recursive: true, force: true }); });

  /** `cdk synth --strict` of one app file with JSII_DEPRECATED=fail, offline and without credentials; the assembly's tree. */
  function synth(file: string): any {
    const out = path.join(work, 'cdk.out', path.basename(file, '.ts'));
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_') && !k.startsWith('CDK_')));
    try {
      execFileSync(bin('cdk'), ['synth', '--strict', '--quiet', '--app', `${bin('tsx')} ${file}`, '--output', out], {
        cwd: work, encoding: 'utf8', stdio: 'pipe',
        env: { ...env, JSII_DEPRECATED: 'fail', CDK_DISABLE_VERSION_CHECK: '1', AWS_EC2_METADATA_DISABLED: 'true', HOME: work },
      });
    } catch (err: any) {
      throw new Error(`cdk synth --strict of ${file} failed on aws-cdk-lib ${awsCdkLib}:\n${err.stdout}\n${err.stderr}`);
    }
    return JSON.parse(fs.readFileSync(path.join(out, 'tree.json'), 'utf8')).tree;
  }

  test('installing the package adds no package but itself', () => {
    expect(added).toEqual(['cdk-efs-kit']);
    expect(fs.existsSync(path.join(app, 'node_modules', 'cdk-efs-kit', 'node_modules'))).toBe(false);
  });

  test.each(examples)('examples/%s synthesizes with --strict and JSII_DEPRECATED=fail', (file) => {
    const tree = synth(path.join('examples', file));
    expect(tree.constructInfo).toEqual({ fqn: 'aws-cdk-lib.App', version: awsCdkLib });
  });

  test('test/apps/every-construct.ts (every engine and construct, on a SharedFileSystem, a plain and an imported efs.FileSystem) synthesizes with --strict and JSII_DEPRECATED=fail', () => {
    const tree = synth(path.join('apps', 'every-construct.ts'));
    expect(tree.constructInfo.version).toBe(awsCdkLib);
    expect(Object.keys(tree.children)).toContain('EfsKitEveryConstruct');
  });

  test('the README\'s quick start type-checks and synthesizes with --strict and JSII_DEPRECATED=fail', () => {
    // Node's types as a `cdk init` app has them: this repository's (the app is not inside it).
    execFileSync(bin('tsc'), ['--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022', '--module', 'commonjs', '--types', 'node',
      '--typeRoots', path.join(root, 'node_modules', '@types'), path.join('bin', 'app.ts')], { cwd: work, stdio: 'pipe' });
    const tree = synth(path.join('bin', 'app.ts'));
    expect(tree.constructInfo.version).toBe(awsCdkLib);
    expect(Object.keys(tree.children)).toContain('MyApp');
  });
});

describe('the installed cdk-efs-kit command', () => {
  let app: string;
  beforeAll(() => {
    app = appWith(lowerBound('aws-cdk-lib'), lowerBound('constructs')).dir;
  }, 600_000);
  const cli = (...args: string[]) => execFileSync(path.join(app, 'node_modules', '.bin', 'cdk-efs-kit'), args, { cwd: app, encoding: 'utf8' });

  test('prints its help, the seed command\'s and the doctor\'s', () => {
    expect(cli('--help')).toMatch(/^Usage: cdk-efs-kit \[options\] \[command\]/);
    expect(cli('seed', '--help')).toMatch(/^Usage: cdk-efs-kit seed \[options\] <source> <target>/);
    expect(cli('doctor', '--help')).toMatch(/^Usage: cdk-efs-kit doctor \[options\] <file-system-id>/);
  });

  test('seeds a directory with worker threads, whose script the package ships', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'installed-seed-'));
    try {
      fs.mkdirSync(path.join(dir, 'src'));
      for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(dir, 'src', `f${i}.txt`), `file ${i}`);
      const summary = JSON.parse(cli('seed', path.join(dir, 'src'), path.join(dir, 'copy'), '--workers', '2', '--json'));
      expect(summary).toMatchObject({ files: 20, written: 20 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
