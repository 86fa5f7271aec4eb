import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { onNode } from '../helpers/node-lines';
import { docsQuickStart, expectQuickStartTemplate } from '../helpers/quick-start';

// The Go module, as a Go user gets it before the first release: jsii-pacmak generates the binding
// from this build's assembly (`npm run package:go`), and the Go quick start of docs/quick-start.md, in an app whose
// go.mod is test/go/go.mod with a replace directive to that binding, builds with `go build` and
// synthesizes with `cdk synth --strict` on Node.js 22. Offline: tools/setup.sh downloaded the modules
// test/go/go.mod lists into the Go caches under ~/.cache/cdk-efs-kit/go, kept between runs (a cold
// build takes about 3 minutes, a warm one well under 1). Needs `npm run build` first (npm test does it).
const root = path.join(__dirname, '..', '..');
const goCache = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'cdk-efs-kit', 'go');
const goEnv = onNode(22, {
  ...process.env,
  GOMODCACHE: path.join(goCache, 'mod'),
  GOCACHE: path.join(goCache, 'build'),
  GOFLAGS: '-mod=readonly -buildvcs=false',
  GOPROXY: 'off',
  GOTOOLCHAIN: 'local',
  GOTELEMETRY: 'off',
  npm_config_update_notifier: 'false',
  CDK_DISABLE_VERSION_CHECK: '1',
});
const binding = 'github.com/cdk-efs-kit/cdk-efs-kit-go/cdkefskit';
let work: string;
let synth: { stdout: string; stderr: string };
let s3FilesSynth: { stdout: string; stderr: string };

/** Runs a command; a failure shows its output. */
function run(command: string, args: string[], cwd: string): { stdout: string; stderr: string } {
  const result = spawnSync(command, args, { cwd, env: goEnv, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return { stdout: result.stdout, stderr: result.stderr };
}

beforeAll(() => {
  if (spawnSync('go', ['version']).status !== 0) throw new Error('go is not on the PATH: install Go 1.26 or later');
  if (!fs.existsSync(path.join(goCache, 'go.sum'))) throw new Error(`the Go modules of test/go are not in ${goCache}: run 'bash tools/setup.sh' (npm test does).`);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'go-binding-'));
  run('npm', ['run', 'package:go', '--', '--outdir', path.join(work, 'pacmak'), '--force'], root);

  const app = path.join(work, 'app');
  fs.mkdirSync(path.join(app, 'site'), { recursive: true });
  fs.copyFileSync(path.join(root, 'test', 'go', 'go.mod'), path.join(app, 'go.mod'));
  fs.copyFileSync(path.join(root, 'test', 'go', 'go.sum'), path.join(app, 'go.sum'));
  fs.writeFileSync(path.join(app, 'main.go'), docsQuickStart('Go', 'go'));
  fs.writeFileSync(path.join(app, 'site', 'index.html'), '<h1>hello from Go</h1>\n');
  fs.writeFileSync(path.join(app, 'cdk.json'), JSON.stringify({ app: './quickstart', notices: false, context: { 'cli-telemetry': false } }));
  run('go', ['mod', 'edit', `-replace=${binding}=../pacmak/go/cdkefskit`], app);
  run('go', ['build', '-o', 'quickstart', '.'], app);
  synth = run(path.join(root, 'node_modules', '.bin', 'cdk'), ['synth', '--strict', '--quiet'], app);

  // The second app (test/go/s3files): an S3FilesFileSystem, in the same module.
  fs.mkdirSync(path.join(app, 's3files'));
  fs.copyFileSync(path.join(root, 'test', 'go', 's3files', 'main.go'), path.join(app, 's3files', 'main.go'));
  run('go', ['build', '-o', 's3files-app', './s3files'], app);
  s3FilesSynth = run(path.join(root, 'node_modules', '.bin', 'cdk'), ['synth', '--strict', '--quiet', '--app', './s3files-app', '--output', 's3files.out'], app);
}, 900_000);
afterAll(() => { if (work) fs.rmSync(work, { recursive: true, force: true }); });

test('jsii-pacmak generates the Go module github.com/cdk-efs-kit/cdk-efs-kit-go, requiring the peer range\'s floor', () => {
  const goMod = fs.readFileSync(path.join(work, 'pacmak', 'go', 'cdkefskit', 'go.mod'), 'utf8');
  expect(goMod).toMatch(new RegExp(`^module ${binding}$`, 'm'));
  expect(goMod).toMatch(/^\s+github\.com\/aws\/aws-cdk-go\/awscdk\/v2 v2\.269\.0$/m);
  expect(goMod).toMatch(/^\s+github\.com\/aws\/constructs-go\/constructs\/v10 v10\.5\.1$/m);
});

test('the Go quick start synthesizes with cdk synth --strict, with the template the README promises', () => {
  const out = path.join(work, 'app', 'cdk.out');
  const template = Template.fromJSON(JSON.parse(fs.readFileSync(path.join(out, 'MyApp.template.json'), 'utf8')));
  expectQuickStartTemplate(template);
  const tree = JSON.parse(fs.readFileSync(path.join(out, 'tree.json'), 'utf8')).tree;
  expect(tree.constructInfo).toEqual({ fqn: 'aws-cdk-lib.App', version: '2.276.0' });
});

test('the Go quick start and the S3 Files app are gofmt-formatted', () => {
  expect(run('gofmt', ['-l', 'main.go', 's3files/main.go'], path.join(work, 'app')).stdout).toBe('');
});

test('the Go S3 Files app synthesizes with cdk synth --strict: mount targets, access point, the function\'s mount and its gate', () => {
  const template = Template.fromJSON(JSON.parse(fs.readFileSync(path.join(work, 'app', 's3files.out', 'S3FilesApp.template.json'), 'utf8')));
  template.resourceCountIs('AWS::S3Files::MountTarget', 2);
  template.hasResourceProperties('AWS::S3Files::AccessPoint', { PosixUser: { Uid: '1000', Gid: '1000' } });
  template.hasResourceProperties('AWS::Lambda::Function', { FileSystemConfigs: [{ Arn: { 'Fn::GetAtt': [Match.anyValue(), 'AccessPointArn'] }, LocalMountPath: '/mnt/shared', S3FilesConfig: { DirectS3Read: 'AUTO' } }] });
  template.hasResourceProperties('Custom::CdkEfsKitMountTargetsReady', { FileSystemKind: 'S3_FILES' });
  expect(s3FilesSynth.stderr).not.toMatch(/end-of-life|b'!!|warning/i);
});

test('the jsii runtime prints no warning on a supported Node.js line', () => {
  expect(synth.stderr).not.toMatch(/end-of-life|b'!!|warning/i);
});
