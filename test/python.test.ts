import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

// The Python package, as a Python user gets it: jsii-pacmak builds the wheel from this build's
// assembly, it installs into .venv-python next to aws-cdk-lib from PyPI, and pytest synthesizes
// the README's quick start written in Python (test/python). Offline: tools/setup.sh made the venv
// and downloaded pacmak's build tools into .wheelhouse. Needs `npm run build` first (npm test does it).
const root = path.join(__dirname, '..');
const python = path.join(root, '.venv-python', 'bin', 'python');
const offline = {
  ...process.env,
  PIP_NO_INDEX: '1',
  PIP_FIND_LINKS: path.join(root, '.wheelhouse'),
  npm_config_update_notifier: 'false',
  // jsii prints an end-of-life banner on Node 20, in every Python process too.
  JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION: '20',
  PYTHONDONTWRITEBYTECODE: '1',
  // The wheel's command turns the runtime's package cache off, and then unpacks aws-cdk-lib on every start (19 s).
  JSII_RUNTIME_PACKAGE_CACHE: 'enabled',
};
let outdir: string;
let wheel: string;

beforeAll(() => {
  if (!fs.existsSync(python)) throw new Error(`${python} is missing: run 'bash tools/setup.sh' (npm test does).`);
  outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'pacmak-'));
  run('npm', ['run', 'package:python', '--', '--outdir', outdir, '--force']);
  wheel = path.join(outdir, 'python', 'cdk_efs_kit-0.1.0-py3-none-any.whl');
}, 300_000);
afterAll(() => fs.rmSync(outdir, { recursive: true, force: true }));

/** Runs a command offline; a failure shows the command's whole output. */
function run(command: string, args: string[]): string {
  const result = spawnSync(command, args, { cwd: root, env: offline, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

test('jsii-pacmak builds the cdk-efs-kit wheel: module cdk_efs_kit, requiring the peer range', () => {
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
  expect(run(python, ['-m', 'pip', 'check', '--disable-pip-version-check'])).toContain('No broken requirements found');
});

test('pytest: the Python quick start synthesizes, with the template the README promises', () => {
  const out = run(python, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', path.join('test', 'python')]);
  expect(out).toMatch(/\d+ passed/);
  expect(out).not.toMatch(/failed|error/);
});

test('pip install puts the cdk-efs-kit command on the venv\'s PATH too (the jsii runtime runs the bundled CLI)', () => {
  expect(run(path.join(root, '.venv-python', 'bin', 'cdk-efs-kit'), ['--help'])).toMatch(/^Usage: cdk-efs-kit/);
});
