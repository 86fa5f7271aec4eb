// Builds the Python package (the wheel and the sdist, into <outdir>/python) as jsii-pacmak does,
// with one change: the `cdk-efs-kit` command pip installs is bin/python/cdk-efs-kit, which runs the
// bundled command line with Node.js, instead of pacmak's script, which starts the jsii runtime and
// loads aws-cdk-lib first (7 to 19 s before the command line starts).
//
//   node scripts/package-python.mjs [--outdir dist]
//
// pip reads PIP_* variables as usual (the tests build offline from .wheelhouse).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const { values } = parseArgs({ options: { outdir: { type: 'string', default: 'dist' }, force: { type: 'boolean' } } });
const outdir = join(values.outdir.startsWith('/') ? '' : root, values.outdir, 'python');
const work = mkdtempSync(join(tmpdir(), 'package-python-'));
const run = (command, args, cwd = root) => execFileSync(command, args, { cwd, stdio: 'inherit' });

try {
  run(join(root, 'node_modules', '.bin', 'jsii-pacmak'), ['--targets', 'python', '--code-only', '--force', '--no-npmignore', '--rosetta-unknown-snippets', 'translate', '--outdir', work]);
  const sources = join(work, 'python');
  const command = join(sources, 'src', 'cdk_efs_kit', '_jsii', 'bin', 'cdk-efs-kit');
  if (!existsSync(command)) throw new Error(`jsii-pacmak wrote no ${command}: its layout changed, update scripts/package-python.mjs`);
  copyFileSync(join(root, 'bin', 'python', 'cdk-efs-kit'), command);

  // pacmak's build: a venv with its build requirements, `python -m build`, `twine check`; without the
  // system's site-packages, whose packages pip would report as conflicting.
  const venv = join(work, 'venv');
  run('python3', ['-m', 'venv', venv]);
  const python = join(venv, 'bin', 'python');
  run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-input', '-r', join(root, 'node_modules', 'jsii-pacmak', 'lib', 'targets', 'python', 'requirements-dev.txt')]);
  rmSync(outdir, { recursive: true, force: true });
  run(python, ['-m', 'build', '--outdir', outdir, sources], sources);
  run(python, ['-m', 'twine', 'check', '--strict', join(outdir, '*')], sources);
} finally {
  rmSync(work, { recursive: true, force: true });
}
