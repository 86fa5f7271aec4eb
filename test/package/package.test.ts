import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

// Checks what users get: the published tarball, the command line, and an offline `cdk synth`.
// Needs `npm run build` first (npm test does it).
const root = path.join(__dirname, '..', '..');

function packedFiles(): string[] {
  const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }));
  return pack.files.map((f: { path: string }) => f.path);
}

describe('npm pack --dry-run', () => {
  let files: string[];
  beforeAll(() => { files = packedFiles(); });

  test('holds the compiled library, the assembly, README, LICENSE and API.md', () => {
    expect(files).toEqual(expect.arrayContaining(['dist/lib/index.js', 'dist/lib/index.d.ts', '.jsii', 'package.json', 'README.md', 'LICENSE', 'API.md']));
    expect(files).not.toContain('dist/API.md'); // the build's copy, for the API.md test
  });

  test('holds the command line and every handler bundle, the seed\'s with its worker thread and native writer (which the command line uses from there)', () => {
    const built = (dir: string) => fs.readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile()).map((e) => path.relative(root, path.join(e.parentPath, e.name)));
    expect(built('dist/bin')).toEqual(['dist/bin/cdk-efs-kit.js']);
    expect(built('dist/handlers')).toEqual(expect.arrayContaining(['dist/handlers/seed/copy-thread.js',
      'dist/handlers/seed/native/linux-x64.node', 'dist/handlers/seed/native/linux-arm64.node']));
    expect(files).toEqual(expect.arrayContaining([...built('dist/bin'), ...built('dist/handlers')]));
  });

  test('holds no tests, sources, tools or benchmarks', () => {
    expect(files.filter((f) => /^(test|examples|lib|bin|lambda|tools|bench|scripts|docs)\//.test(f))).toEqual([]);
    expect(files.filter((f) => (f.endsWith('.ts') && !f.endsWith('.d.ts')) || f.endsWith('.map') || /\.test\./.test(f))).toEqual([]);
  });

  test('holds no dist/lambda: the library loads only dist/lib, and the bundles carry the handlers\' code', () => {
    // lib/ imports nothing of lambda/ (test/architecture.test.ts), so jsii compiles no handler
    // module; what both sides share is a contract under lib/*/contract, compiled with the library.
    expect(files.filter((f) => f.startsWith('dist/lambda/'))).toEqual([]);
    const loaded = JSON.parse(execFileSync(process.execPath, ['-e', `
      require(${JSON.stringify(path.join(root, 'dist', 'lib', 'index.js'))});
      console.log(JSON.stringify(Object.keys(require.cache)));`], { encoding: 'utf8' }))
      .map((f: string) => path.relative(root, f)).filter((f: string) => !f.startsWith('node_modules/'));
    expect(loaded.filter((f: string) => !f.startsWith('dist/lib/'))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(loaded));
  });
});

test('LICENSE is the Apache License 2.0 that package.json names', () => {
  expect(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).license).toBe('Apache-2.0');
  const license = fs.readFileSync(path.join(root, 'LICENSE'), 'utf8');
  expect(license).toContain('Apache License\n                           Version 2.0, January 2004');
  expect(license).toContain('END OF TERMS AND CONDITIONS');
});

test('package.json names one source repository for repository, homepage and bugs', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const repo = pkg.repository.url.replace(/\.git$/, '');
  expect(pkg.homepage).toBe(`${repo}#readme`);
  expect(pkg.bugs.url).toBe(`${repo}/issues`);
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
  expect(out).toMatch(/^Usage: cdk-efs-kit advise \[options\] <file-system-id>\n\nread a file system's last days of metrics/);
  // Wrapped to the terminal's width: read as one line.
  expect(out.replace(/\s+/g, ' ')).toContain('(AWS/EFS, or AWS/S3/Files for an S3 Files file system)');
  for (const option of ['--kind <kind>', '--days <n>', '--end <time>', '--region <region>', '--profile <name>', '--endpoint <url>', '--prices <file>', '--one-zone', '--cold-percent <n>',
    '--s3-files-prices <file>', '--hot-percent <n>', '--cache-hit-percent <n>', '--json', '--html <file>']) {
    expect(out).toContain(option);
  }
  expect(out).toContain('$ cdk-efs-kit advise fs-0123456789abcdef0 --region eu-west-1 --profile prod');
});

test('cdk-efs-kit advise --help does not load the AWS SDK', () => {
  // Checked on the sources: the bundle holds the SDK inline, where no require hook sees it (esbuild
  // keeps a dynamic import() lazy, so what is lazy in the sources is lazy in the bundle).
  const forbid = path.join(__dirname, '..', 'helpers', 'forbid-aws-sdk.js');
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
