import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { onNode } from '../helpers/node-lines';
import { readmeQuickStart } from '../helpers/quick-start';

// The Python package, as a Python user gets it: `npm run package:python` builds the wheel from this
// build's assembly, it installs into .venv-python next to aws-cdk-lib from PyPI, the README's Python
// quick start synthesizes with `cdk synth --strict`, and pytest checks its template and the API as
// Python code calls it (test/python). Python's jsii runtime runs on Node.js 22, a supported line.
// Offline: tools/setup.sh made the venv and downloaded pacmak's build tools into .wheelhouse.
// Needs `npm run build` first (npm test does it).
const root = path.join(__dirname, '..', '..');
const venvBin = path.join(root, '.venv-python', 'bin');
const python = path.join(venvBin, 'python');
const offline = onNode(22, {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('JSII_') && !k.startsWith('AWS_') && !k.startsWith('CDK_'))),
  PIP_NO_INDEX: '1',
  PIP_FIND_LINKS: path.join(root, '.wheelhouse'),
  npm_config_update_notifier: 'false',
  CDK_DISABLE_VERSION_CHECK: '1',
  PYTHONDONTWRITEBYTECODE: '1',
});
// For the synth and pytest only, to spare them unpacking aws-cdk-lib on every start; the command is run without it.
const cached = { JSII_RUNTIME_PACKAGE_CACHE: 'enabled' };
let outdir: string;
let wheel: string;
let app: string;

beforeAll(() => {
  if (!fs.existsSync(python)) throw new Error(`${python} is missing: run 'bash tools/setup.sh' (npm test does).`);
  outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'pacmak-'));
  run('npm', ['run', 'package:python', '--', '--outdir', outdir]);
  wheel = path.join(outdir, 'python', 'cdk_efs_kit-0.1.0-py3-none-any.whl');
}, 300_000);
afterAll(() => fs.rmSync(outdir, { recursive: true, force: true }));

/** Runs a command offline; a failure shows the command's whole output. */
function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): { stdout: string; stderr: string } {
  const result = spawnSync(command, args, { cwd: options.cwd ?? root, env: { ...offline, ...options.env }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return { stdout: result.stdout, stderr: result.stderr };
}

test('the wheel is the cdk-efs-kit distribution: module cdk_efs_kit, requiring the peer range', () => {
  const metadata = execFileSync(python, ['-c', [
    'import sys, zipfile',
    'w = zipfile.ZipFile(sys.argv[1])',
    'print("\\n".join(w.namelist()))',
    'print(w.read("cdk_efs_kit-0.1.0.dist-info/METADATA").decode())',
  ].join('\n'), wheel], { encoding: 'utf8' });
  expect(metadata).toContain('cdk_efs_kit/__init__.py');
  expect(metadata).toContain('cdk_efs_kit/_jsii/cdk-efs-kit@0.1.0.jsii.tgz');
  expect(metadata).toMatch(/^Name: cdk-efs-kit$/m);
  expect(metadata).toMatch(/^Requires-Dist: aws-cdk-lib <3\.0\.0,>=2\.269\.0$/m);
  expect(metadata).toMatch(/^Requires-Dist: constructs <11\.0\.0,>=10\.5\.1$/m);
});

test('the wheel installs next to aws-cdk-lib from PyPI with every requirement met', () => {
  run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--force-reinstall', wheel]);
  expect(run(python, ['-m', 'pip', 'check', '--disable-pip-version-check']).stdout).toContain('No broken requirements found');
});

describe('the README\'s Python quick start', () => {
  let synth: { stdout: string; stderr: string };
  beforeAll(() => {
    app = fs.mkdtempSync(path.join(os.tmpdir(), 'python-app-'));
    fs.writeFileSync(path.join(app, 'app.py'), readmeQuickStart('python'));
    fs.mkdirSync(path.join(app, 'site'));
    fs.writeFileSync(path.join(app, 'site', 'index.html'), '<h1>hello from Python</h1>\n');
    fs.writeFileSync(path.join(app, 'cdk.json'), JSON.stringify({ app: `${python} app.py`, notices: false, context: { 'cli-telemetry': false } }));
    synth = run(path.join(root, 'node_modules', '.bin', 'cdk'), ['synth', '--strict', '--quiet'], { cwd: app, env: cached });
  }, 300_000);
  afterAll(() => { if (app) fs.rmSync(app, { recursive: true, force: true }); });

  test('synthesizes with cdk synth --strict, printing no warning and no byte-string banner', () => {
    expect(fs.existsSync(path.join(app, 'cdk.out', 'MyApp.template.json'))).toBe(true);
    expect(synth.stderr).not.toMatch(/b'|end-of-life|warning/i);
  });

  test('pytest: its template is the one the README promises, and the API works from Python', () => {
    const out = run(python, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', path.join('test', 'python')], { env: { ...cached, QUICKSTART_APP: app } }).stdout;
    expect(out).toMatch(/\d+ passed/);
    expect(out).not.toMatch(/failed|error/);
  });
});

describe('the cdk-efs-kit command pip installs', () => {
  const command = path.join(venvBin, 'cdk-efs-kit');
  // JSII_RUNTIME names the jsii runtime's entry point: pointing it nowhere proves the command never starts it.
  const withoutJsiiRuntime = { JSII_RUNTIME: path.join(root, 'no-jsii-runtime.js') };

  test('prints its help and version without the jsii runtime, and nothing on stderr', () => {
    expect(run(command, ['--help'], { env: withoutJsiiRuntime })).toEqual({ stdout: expect.stringMatching(/^Usage: cdk-efs-kit/), stderr: '' });
    expect(run(command, ['--version'], { env: withoutJsiiRuntime }).stdout.trim()).toBe('0.1.0');
  });

  test('seeds a directory with worker threads, whose script the wheel ships', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'python-seed-'));
    try {
      fs.mkdirSync(path.join(dir, 'src'));
      for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(dir, 'src', `f${i}.txt`), `file ${i}`);
      const summary = JSON.parse(run(command, ['seed', path.join(dir, 'src'), path.join(dir, 'copy'), '--workers', '2', '--json'], { env: withoutJsiiRuntime }).stdout);
      expect(summary).toMatchObject({ files: 20, written: 20 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('exits with the command line\'s code on bad input', () => {
    const result = spawnSync(command, ['seed', '/nonexistent-source', '/tmp/x'], { env: { ...offline, ...withoutJsiiRuntime }, encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).not.toMatch(/Traceback/);
  });
});
