import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CANARY_REQUEST } from '../../../lib/probe/contract/canary-requests';
import { LambdaStandIn, STAND_IN_ACCOUNT, startLambdaStandIn } from '../../helpers/lambda-invoke-stand-in';

// `cdk-efs-kit probe --function` as users run it (the built CLI in its own process), against a
// stand-in for Lambda's Invoke API on 127.0.0.1 (test/helpers/lambda-invoke-stand-in.ts: no Lambda
// runs here) that runs the real bundled probe handler, dist/handlers/probe, on a temporary directory.
const ROOT = path.join(__dirname, '..', '..', '..');
const CLI = path.join(ROOT, 'dist', 'bin', 'cdk-efs-kit.js');
const REGION = 'eu-west-1';
let work: string;
let mount: string;
let lambda: LambdaStandIn;

beforeEach(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-function-'));
  mount = path.join(work, 'mnt-probe');
  fs.mkdirSync(mount);
  lambda = await startLambdaStandIn(REGION, {
    'Test-FilesProbeFunction': {
      handlerModule: path.join(ROOT, 'dist', 'handlers', 'probe', 'index.js'),
      environment: { PROBE_MOUNT_PATH: mount, PROBE_FILE_SYSTEM_ID: 'fs-0123456789abcdef0' },
      timeoutSeconds: 900,
    },
    // A deployed function whose code is missing its handler module.
    'Test-Broken': { handlerModule: path.join(work, 'no-such-bundle', 'index.js'), environment: {}, timeoutSeconds: 900 },
  });
});
afterEach(async () => {
  await lambda.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

/** The CLI in a child process (asynchronous: the stand-in answers from this one), with test credentials only. */
function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    PATH: process.env.PATH, HOME: work, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test',
    AWS_CONFIG_FILE: path.join(work, 'none'), AWS_SHARED_CREDENTIALS_FILE: path.join(work, 'none'), AWS_EC2_METADATA_DISABLED: 'true',
  };
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, encoding: 'utf8' }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr });
    });
  });
}

const remote = (fn: string, ...args: string[]) => cli('probe', '--function', fn, '--region', REGION, '--endpoint', lambda.endpoint, ...args);
const SMALL_RUN = ['--scenarios', 'write-sizes,metadata', '--set', 'write-sizes.files=2', '--set', 'write-sizes.sizesBytes=4KiB', '--set', 'metadata.files=10', '--pause', '0'];
/** The scenarios' tables (in Markdown) with every figure blanked: what a run prints, whatever it measured. */
const tableShape = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('|') && !/^\| (status|pass|WARN|FAIL|skip) \||^\|---\|---\|---\|---\|$/.test(l))
  .map((l) => l.replace(/\d[\d.,]*/g, 'N'));

test('invokes the deployed probe with the request a local run runs, and prints its result as a local run\'s', async () => {
  const deployed = await remote('Test-FilesProbeFunction', ...SMALL_RUN, '--label', 'deployed', '--json');
  expect(deployed.stderr).not.toMatch(/error/i);
  expect(deployed.code).toBe(0);
  const request = { scenarios: { 'write-sizes': { files: 2, sizesBytes: [4096] }, 'metadata': { files: 10 } }, pauseSeconds: 0, label: 'deployed' };
  expect(lambda.events).toEqual([request]);
  expect(JSON.parse(deployed.stdout)).toMatchObject({ status: 'ok', label: 'deployed', tool: 'cdk-efs-kit probe (Lambda)', target: mount });
  const shown = await remote('Test-FilesProbeFunction', ...SMALL_RUN, '--label', 'deployed', '--markdown');
  expect(lambda.events).toEqual([request, request]);
  const local = await cli('probe', '--dir', fs.mkdtempSync(path.join(work, 'local-')), ...SMALL_RUN, '--markdown');
  expect(local.code).toBe(0);
  expect(tableShape(shown.stdout)).toEqual(tableShape(local.stdout));
  expect(shown.stdout).toContain('## write-sizes');
  expect(lambda.logs).toContain(JSON.stringify({ message: 'probe end metadata', round: 1, rounds: 1, done: 2, total: 2 }));
  expect(fs.readdirSync(mount)).toEqual([]);
});

test('--canary asks for the canary of the probe\'s kind (here EFS\'s), to a function named by its ARN', async () => {
  const r = await remote(`arn:aws:lambda:${REGION}:${STAND_IN_ACCOUNT}:function:Test-FilesProbeFunction`, '--canary');
  expect(r.code).toBe(0);
  expect(lambda.events).toEqual([{ ...CANARY_REQUEST, scenarios: 'canary' }]);
  for (const scenario of Object.keys(CANARY_REQUEST.scenarios!)) expect(r.stdout).toMatch(new RegExp(`^== ${scenario}$`, 'm'));
});

test('a request the probe refuses is printed as a local run prints it, exit code 2', async () => {
  const r = await remote('Test-FilesProbeFunction', '--scenarios', 'write-sizes', '--max-bytes', '1');
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/^cdk-efs-kit probe: the request is refused:\n {2}\S/m);
  expect(r.stderr).toContain('Run `cdk-efs-kit probe --list` for the scenarios and their parameters.');
});

test('fails in one line when the function does not exist', async () => {
  const r = await remote('Test-Missing');
  expect(r.code).toBe(2);
  expect(r.stderr.trim().split('\n').pop()).toBe(`cdk-efs-kit: Lambda refused to invoke Test-Missing: ResourceNotFoundException: Function not found: arn:aws:lambda:${REGION}:${STAND_IN_ACCOUNT}:function:Test-Missing`);
  expect(r.stderr).not.toMatch(/^\s+at /m);
});

test('fails in one line, without the function\'s trace, when the function fails', async () => {
  const r = await remote('Test-Broken');
  expect(r.code).toBe(2);
  const last = r.stderr.trim().split('\n').pop();
  expect(last).toMatch(/^cdk-efs-kit: Test-Broken failed: Runtime\.ImportModuleError: Error: Cannot find module '.*no-such-bundle\/index\.js'[^(]* \(its CloudWatch logs have the details\)$/);
  expect(r.stderr).not.toMatch(/^\s+at |Require stack/m);
});

test('fails when given both --dir and --function, or --canary with --dir', async () => {
  expect((await cli('probe', '--dir', mount, '--function', 'x')).stderr).toContain('cdk-efs-kit: --dir and --function: give one, the directory to probe or the deployed probe to invoke');
  expect((await cli('probe', '--dir', mount, '--canary')).stderr).toContain('cdk-efs-kit: --canary applies to --function only');
  expect(lambda.events).toEqual([]);
});
