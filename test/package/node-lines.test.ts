import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { NODE_LINES, nodeBinDir, onNode } from '../helpers/node-lines';

// The Node.js lines package.json's `engines` names, each as a user runs it: the library through
// `cdk synth --strict` of examples/quickstart.ts (the CDK CLI and the app on that line), and the
// command line from its bundle. Nothing may print a warning on a supported line, on any run: stderr
// stays empty but for the CDK CLI's note on unset feature flags (an app made by `cdk init` sets
// them). The Node binaries come from the npm registry (tools/setup.sh). Needs `npm run build` first.
const root = path.join(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const FEATURE_FLAGS_NOTE = /^\d+ feature flags are not configured\. Run 'cdk flags --unstable=flags' to learn more\.$/;

test('package.json\'s engines names exactly the lines tested here', () => {
  expect(pkg.engines.node).toBe(NODE_LINES.map((n) => `^${n.line}.0.0`).join(' || '));
});

describe.each(NODE_LINES)('Node.js $line', ({ line }) => {
  const node = () => path.join(nodeBinDir(line), 'node');
  const env = () => onNode(line, { ...process.env, CDK_DISABLE_VERSION_CHECK: '1', npm_config_update_notifier: 'false' });
  let work: string;
  beforeAll(() => { work = fs.mkdtempSync(path.join(os.tmpdir(), `node-${line}-`)); });
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  /** `node args` on this line; its exit code and output. */
  function run(args: string[]) {
    const result = spawnSync(node(), args, { cwd: root, env: env(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  test('is the binary of that line', () => {
    expect(run(['--version']).stdout).toMatch(new RegExp(`^v${line}\\.`));
  });

  test('the library: cdk synth --strict of examples/quickstart.ts, with no warning', () => {
    const cdk = path.join(root, 'node_modules', 'aws-cdk', 'bin', 'cdk');
    const app = `${node()} ${path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs')} examples/quickstart.ts`;
    const result = run([cdk, 'synth', '--strict', '--quiet', '--app', app, '--output', path.join(work, 'cdk.out')]);
    expect({ status: result.status, stderr: result.stderr }).toMatchObject({ status: 0 });
    expect(result.stderr.split('\n').filter((l) => l.trim() && !FEATURE_FLAGS_NOTE.test(l.trim()))).toEqual([]);
    expect(fs.existsSync(path.join(work, 'cdk.out', 'EfsKitQuickstart.template.json'))).toBe(true);
  }, 300_000);

  test('the command line: help, and a seed with worker threads, with no warning', () => {
    const cli = path.join(root, 'dist', 'bin', 'cdk-efs-kit.js');
    expect(run([cli, '--help'])).toMatchObject({ status: 0, stdout: expect.stringMatching(/^Usage: cdk-efs-kit/), stderr: '' });
    fs.mkdirSync(path.join(work, 'src'));
    for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(work, 'src', `f${i}.txt`), `file ${i}`);
    const seed = run([cli, 'seed', path.join(work, 'src'), path.join(work, 'copy'), '--workers', '2', '--json']);
    expect(seed).toMatchObject({ status: 0, stderr: '' });
    expect(JSON.parse(seed.stdout)).toMatchObject({ files: 20, written: 20 });
  });
});
