import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

// Checks what users get: the published tarball, the command line, and an offline `cdk synth`.
// Needs `npm run build` first (npm test does it).
const root = path.join(__dirname, '..');

test('the npm tarball holds the compiled library, the CLI and the bundled handlers, not sources or tests', () => {
  const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }));
  const files: string[] = pack.files.map((f: { path: string }) => f.path);
  expect(files).toEqual(expect.arrayContaining(['dist/lib/index.js', 'dist/lib/index.d.ts', 'dist/bin/cdk-efs-kit.js', '.jsii', 'package.json', 'README.md', 'API.md']));
  expect(files.filter((f) => /^(test|examples|lib|bin|lambda|tools|bench|scripts)\//.test(f))).toEqual([]);
  expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
  expect(files).not.toContain('dist/API.md'); // the build's copy, for the API.md test
  for (const handler of fs.readdirSync(path.join(root, 'dist', 'handlers'))) {
    expect(files).toContain(`dist/handlers/${handler}/index.js`);
  }
});

test('API.md is what jsii-docgen makes of this build\'s assembly (run `npm run docgen` after an API change)', () => {
  const generated = fs.readFileSync(path.join(root, 'dist', 'API.md'), 'utf8');
  const committed = fs.readFileSync(path.join(root, 'API.md'), 'utf8');
  // toBe would print two 200 KB strings; the first differing line says what changed.
  const [g, c] = [generated.split('\n'), committed.split('\n')];
  const line = g.findIndex((l, i) => l !== c[i]);
  expect(line === -1 && g.length === c.length ? 'same' : `line ${line + 1}: built "${g[line]}", committed "${c[line]}"`).toBe('same');
});

test('the cdk-efs-kit command prints its help, listing seed, probe, compare and advise', () => {
  const out = execFileSync(process.execPath, [path.join(root, 'dist', 'bin', 'cdk-efs-kit.js'), '--help'], { encoding: 'utf8' });
  expect(out).toMatch(/^Usage: cdk-efs-kit/);
  for (const command of ['seed [options] <source> <target>', 'probe [options]', 'compare [options] <a> <b>', 'advise [options] <file-system-id>']) expect(out).toContain(command);
});

test('cdk-efs-kit advise --help explains the command, its options and examples', () => {
  const out = execFileSync(process.execPath, [path.join(root, 'dist', 'bin', 'cdk-efs-kit.js'), 'advise', '--help'], { encoding: 'utf8' });
  expect(out).toMatch(/^Usage: cdk-efs-kit advise \[options\] <file-system-id>\n\nread a file system's last days of AWS\/EFS metrics/);
  for (const option of ['--days <n>', '--end <time>', '--region <region>', '--profile <name>', '--endpoint <url>', '--prices <file>', '--one-zone', '--cold-percent <n>', '--json', '--html <file>']) {
    expect(out).toContain(option);
  }
  expect(out).toContain('$ cdk-efs-kit advise fs-0123456789abcdef0 --region eu-west-1 --profile prod');
});

test('cdk-efs-kit advise --help does not load the AWS SDK', () => {
  // Checked on the sources: the bundle holds the SDK inline, where no require hook sees it (esbuild
  // keeps a dynamic import() lazy, so what is lazy in the sources is lazy in the bundle).
  const forbid = path.join(__dirname, 'helpers', 'forbid-aws-sdk.js');
  const out = execFileSync(path.join(root, 'node_modules', '.bin', 'tsx'), [path.join(root, 'bin', 'cdk-efs-kit.ts'), 'advise', '--help'], {
    encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: `--require ${forbid}` },
  });
  expect(out).toMatch(/^Usage: cdk-efs-kit advise/);
});

test('on a terminal, seed draws a bar of the files finished, ending at all of them', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'seed-bar-'));
  try {
    fs.mkdirSync(path.join(work, 'src'));
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(work, 'src', `f${i}.txt`), `file ${i}`);
    // script(1) gives the command a pseudo-terminal, as a user's shell would.
    const cli = [process.execPath, path.join(root, 'dist', 'bin', 'cdk-efs-kit.js'), 'seed', path.join(work, 'src'), path.join(work, 'copy')].map((a) => `'${a}'`).join(' ');
    const out = execFileSync('script', ['-qec', cli, '/dev/null'], { encoding: 'utf8' });
    const frames = out.split(/\r|\x1b\[1G/).filter((f) => f.startsWith('seed ['));
    // The first frame comes after the first file is written: the bar counts files done, not found.
    expect(frames[0]).toMatch(/\| [1-9]\/30 files/);
    expect(frames[frames.length - 1]).toContain('100% | 30/30 files');
    expect(out).toContain('30 files (0.0 MiB)');
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
});

test('npx cdk synth works offline with no AWS credentials', () => {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'synth-'));
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_') && !k.startsWith('CDK_')));
  execFileSync(path.join(root, 'node_modules', '.bin', 'cdk'), ['synth', '--quiet', '--output', outdir], {
    cwd: root,
    env: { ...env, CDK_DISABLE_VERSION_CHECK: '1', AWS_EC2_METADATA_DISABLED: 'true', HOME: outdir },
    stdio: 'pipe',
  });
  const template = JSON.parse(fs.readFileSync(path.join(outdir, 'EfsKitQuickstart.template.json'), 'utf8'));
  expect(Object.values<any>(template.Resources).some((r) => r.Type === 'AWS::EFS::FileSystem')).toBe(true);
  fs.rmSync(outdir, { recursive: true, force: true });
});
