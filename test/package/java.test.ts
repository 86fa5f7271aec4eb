import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { onNode } from '../helpers/node-lines';

// The Java binding, compiled but not synthesized: jsii-pacmak generates the Maven project from this
// build's assembly; javac compiles its sources, then test/java's quick start, its S3 Files app and a small
// program against them, and that program runs one call through the jsii runtime. Against aws-cdk-lib 2.263.0,
// the newest jar Maven Central serves here, six releases below the peer range's floor (2.269.0 has a
// POM but no jar here): what this proves is that the generated Java compiles and links against
// aws-cdk-lib's Java API and that the jar's assembly loads; not that a Java app synthesizes (2.263.0
// refuses the constructs' cdk-nag acknowledgement ids). tools/setup.sh resolved test/java/pom.xml's
// classpath with Maven once, into ~/.cache/cdk-efs-kit/java; the test runs javac and java, offline.
// Needs `npm run build` first (npm test does it).
const root = path.join(__dirname, '..', '..');
const javaCache = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'cdk-efs-kit', 'java');
const env = onNode(22, { ...process.env, npm_config_update_notifier: 'false', JSII_RUNTIME_PACKAGE_CACHE: 'enabled' });
let work: string;
let classpath: string[];

/** Runs a command; a failure shows its output. */
function run(command: string, args: string[]): string {
  const result = spawnSync(command, args, { cwd: root, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

beforeAll(() => {
  if (spawnSync('javac', ['-version']).status !== 0) throw new Error('javac is not on the PATH: install a JDK (17 or later)');
  const file = path.join(javaCache, 'classpath.txt');
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run 'bash tools/setup.sh' (npm test does).`);
  classpath = fs.readFileSync(file, 'utf8').trim().split(path.delimiter);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'java-binding-'));
  run('npx', ['jsii-pacmak', '--targets', 'java', '--code-only', '--no-npmignore', '--outdir', path.join(work, 'pacmak'), '--force']);
}, 300_000);
afterAll(() => { if (work) fs.rmSync(work, { recursive: true, force: true }); });

const project = () => path.join(work, 'pacmak', 'java');
const javaFiles = (dir: string): string[] => fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.java')).map((f) => path.join(dir, f));

test('jsii-pacmak generates the Maven project io.github.cdk-efs-kit:cdk-efs-kit, requiring the peer range', () => {
  const pom = fs.readFileSync(path.join(project(), 'pom.xml'), 'utf8');
  expect(pom).toContain('<groupId>io.github.cdk-efs-kit</groupId>\n  <artifactId>cdk-efs-kit</artifactId>');
  expect(pom).toMatch(/<artifactId>aws-cdk-lib<\/artifactId>\s*<version>\[2\.269\.0,3\.0\.0\)<\/version>/);
  expect(pom).toMatch(/<artifactId>constructs<\/artifactId>\s*<version>\[10\.5\.1,11\.0\.0\)<\/version>/);
  expect(classpath.map((j) => path.basename(j))).toContain('aws-cdk-lib-2.263.0.jar');
});

describe('compiled against aws-cdk-lib 2.263.0', () => {
  const binding = () => path.join(work, 'binding');
  const app = () => path.join(work, 'app');

  beforeAll(() => {
    // As jsii-pacmak's pom compiles it: Java 8 bytecode.
    run('javac', ['-nowarn', '--release', '8', '-encoding', 'UTF-8', '-d', binding(), '-cp', classpath.join(path.delimiter), ...javaFiles(path.join(project(), 'src', 'main', 'java'))]);
    run('javac', ['-encoding', 'UTF-8', '-d', app(), '-cp', [binding(), ...classpath].join(path.delimiter), ...javaFiles(path.join(root, 'test', 'java', 'src'))]);
  }, 300_000);

  test('the binding\'s sources compile, one class per jsii type', () => {
    const assembly = JSON.parse(fs.readFileSync(path.join(root, '.jsii'), 'utf8'));
    const classes = fs.readdirSync(path.join(binding(), 'io', 'github', 'cdkefskit')).filter((f) => f.endsWith('.class') && !f.includes('$'));
    expect(classes.sort()).toEqual(Object.keys(assembly.types).map((fqn) => `${fqn.replace('cdk-efs-kit.', '')}.class`).sort());
  });

  test('the quick start in Java compiles against the binding', () => {
    expect(fs.existsSync(path.join(app(), 'com', 'example', 'QuickStart.class'))).toBe(true);
  });

  test('the S3 Files app (a versioned bucket, an S3FilesFileSystem, an access point, a Lambda function mounting it) compiles against the binding', () => {
    expect(fs.existsSync(path.join(app(), 'com', 'example', 'S3FilesApp.class'))).toBe(true);
  });

  test('a Java program calls the library through the jsii runtime, the assembly loading from the binding\'s resources', () => {
    const out = run('java', ['-cp', [app(), binding(), path.join(project(), 'src', 'main', 'resources'), ...classpath].join(path.delimiter), 'com.example.MountLine']);
    expect(out.trim()).toBe('fs-0123456789abcdef0.efs.us-east-1.amazonaws.com:/ /mnt/efs nfs4 nfsvers=4.1,rsize=1048576,wsize=1048576,hard,timeo=600,retrans=2,noresvport,_netdev,nofail 0 0');
  }, 120_000);
});
