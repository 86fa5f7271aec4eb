import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { readmeQuickStart } from '../helpers/quick-start';

// API docs a user can copy from, in every language: an example on every construct and on the main
// factories and methods, each compiled by jsii-rosetta in strict mode and translated (the build runs
// `jsii-rosetta extract --strict`, which fails on an example that does not compile, and writes the
// translations into .jsii.tabl.json); and links in API.md that lead somewhere. Needs `npm run build`.
const root = path.join(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const assembly = JSON.parse(fs.readFileSync(path.join(root, '.jsii'), 'utf8'));
const tablet = JSON.parse(fs.readFileSync(path.join(root, '.jsii.tabl.json'), 'utf8'));
const apiMd = fs.readFileSync(path.join(root, 'API.md'), 'utf8');

interface Snippet { location: { api: { api: string; fqn?: string; memberName?: string } }; didCompile: boolean; translations: Record<string, unknown> }
const snippets: Snippet[] = Object.values(tablet.snippets);

/** Every documented example in the assembly: on a type, or on one of its methods. */
function examples(): Array<{ where: string; api: string; fqn: string; memberName?: string }> {
  return Object.values<any>(assembly.types).flatMap((type) => [
    ...(type.docs?.example ? [{ where: type.fqn, api: 'type', fqn: type.fqn }] : []),
    ...(type.methods ?? []).filter((m: any) => m.docs?.example).map((m: any) => ({ where: `${type.fqn}.${m.name}`, api: 'member', fqn: type.fqn, memberName: m.name })),
  ]);
}
const hasExample = (where: string) => examples().some((e) => e.where === `cdk-efs-kit.${where}`);

test('strict mode is on for the assembly: Construct Hub and jsii-pacmak fail on an example that does not compile', () => {
  expect(pkg.jsii.metadata.jsii.rosetta.strict).toBe(true);
  expect(assembly.metadata.jsii.rosetta.strict).toBe(true);
  expect(pkg.scripts.build).toContain('jsii-rosetta extract --strict');
});

test('every construct has an example', () => {
  // An abstract base (SharedFileSystemBase) is no construct a user makes: its subclass has the example.
  const constructs = Object.values<any>(assembly.types).filter((t) => t.kind === 'class' && !t.abstract && t.initializer?.parameters?.[0]?.name === 'scope').map((t) => t.name);
  expect(constructs.sort()).toEqual(['BenchmarkProbe', 'FileSystemMonitoring', 'FileSystemSeed', 'MountTargetsReady', 'S3FilesAccessPoint', 'S3FilesFileSystem', 'S3FilesMonitoring', 'S3FilesSeed', 'SharedFileSystem']);
  expect(constructs.filter((c) => !hasExample(c))).toEqual([]);
});

test('the main static factories and methods have examples', () => {
  const main = [
    'AccessPointPreset.applicationUser', 'AccessPointPreset.custom', 'AlarmThreshold', 'EfsMetrics', 'EfsMetrics.throughputMiBps',
    'EfsPricing.custom', 'S3FilesPricing.custom', 'NfsMountOptions.recommendedNfs', 'NfsMountOptions.efsUtils', 'SeedEngine', 'SeedSource.asset', 'SeedSource.s3',
    'SeedSource.archive', 'StorageLifecycle.infrequentAccess', 'SharedFileSystem.fromFileSystemAttributes', 'SharedFileSystem.fromFileSystem',
    'SharedFileSystem.addMonitoring',
    // What a created and an imported file system share lives on their base (SharedFileSystem inherits it).
    'SharedFileSystemBase.addAccessPoint', 'SharedFileSystemBase.grantAccess', 'SharedFileSystemBase.mountOnLambda',
    'SharedFileSystemBase.mountOnEcsService', 'SharedFileSystemBase.mountOnEcsTask', 'SharedFileSystemBase.mountOnEc2',
    'SharedFileSystemBase.addSeed', 'SharedFileSystemBase.addProbe', 'S3FilesFileSystemBase.addSeed',
  ];
  expect(main.filter((m) => !hasExample(m))).toEqual([]);
});

test('renamed types keep their former names in every language, deprecated, each extending its new name', () => {
  // A deprecated type alias would not reach the assembly (jsii exports classes and interfaces only).
  const renamed: Record<string, string> = {
    MountOptions: 'NfsMountOptions', LambdaMountOptions: 'MountOnLambdaOptions', EcsMountOptions: 'MountOnEcsOptions', Ec2MountOptions: 'MountOnEc2Options',
  };
  for (const [was, is] of Object.entries(renamed)) {
    const type = assembly.types[`cdk-efs-kit.${was}`];
    expect({ was, stability: type?.docs?.stability, extends: type?.base ?? type?.interfaces }).toEqual({ was, stability: 'deprecated', extends: type?.kind === 'class' ? `cdk-efs-kit.${is}` : [`cdk-efs-kit.${is}`] });
    expect(type.docs.deprecated).toContain(is);
  }
});

test('every example compiled, and is translated to Python, Java, C# and Go', () => {
  const failures = examples().filter((e) => !snippets.some((s) => s.location.api.api === e.api && s.location.api.fqn === e.fqn
    && s.location.api.memberName === e.memberName && s.didCompile
    && ['python', 'java', 'csharp', 'go'].every((l) => l in s.translations)));
  expect(failures.map((e) => e.where)).toEqual([]);
  expect(examples().length).toBeGreaterThanOrEqual(26);
});

test('SharedFileSystem\'s example is the README\'s TypeScript quick start, which docs/api shows translated', () => {
  const quickStart = readmeQuickStart('tsx').split('\n').filter((l) => !l.startsWith('import ')).join('\n').trim();
  expect(assembly.types['cdk-efs-kit.SharedFileSystem'].docs.example).toBe(`${quickStart}\napp.synth();`);
});

test('the package ships the translations', () => {
  const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }));
  expect(pack.files.map((f: { path: string }) => f.path)).toContain('.jsii.tabl.json');
});

test('API.md has no raw {@link} tag, and each of its links into the reference leads to an anchor in it', () => {
  expect(apiMd.match(/.{0,40}\{@link.{0,40}/g)).toBeNull();
  const ids = new Set([...apiMd.matchAll(/id="([^"]+)"/g)].map((m) => m[1]));
  const links = [...apiMd.matchAll(/\]\(#(cdk-efs-kit[^)]*)\)/g)].map((m) => m[1]);
  expect(links.length).toBeGreaterThan(30);
  expect(links.filter((l) => !ids.has(l))).toEqual([]);
});

// The same reference in the other languages, for their users, who never install the npm package:
// jsii-docgen renders each with the examples jsii-rosetta translated. The build writes dist/api/;
// `npm run docgen` writes docs/api/.
describe.each([
  ['python', 'files = SharedFileSystem(stack, "Files", vpc=vpc)'],
  ['java', 'SharedFileSystem files = SharedFileSystem.Builder.create(stack, "Files").vpc(vpc).build();'],
  ['csharp', 'var files = new SharedFileSystem(stack, "Files", new SharedFileSystemProps { Vpc = vpc });'],
  ['go', 'files := cdkefskit.NewSharedFileSystem(stack, jsii.String("Files"), &SharedFileSystemProps{'],
])('docs/api/API.%s.md', (language, quickStartLine) => {
  const file = `API.${language}.md`;
  const committed = () => fs.readFileSync(path.join(root, 'docs', 'api', file), 'utf8');

  test('is what jsii-docgen makes of this build\'s assembly (run `npm run docgen` after an API change)', () => {
    // toBe would print two large strings; the first differing line says what changed.
    const [g, c] = [fs.readFileSync(path.join(root, 'dist', 'api', file), 'utf8').split('\n'), committed().split('\n')];
    const line = g.findIndex((l, i) => l !== c[i]);
    expect(line === -1 && g.length === c.length ? 'same' : `line ${line + 1}: built "${g[line]}", committed "${c[line]}"`).toBe('same');
  });

  test('shows the quick start translated, and its links lead to anchors in it', () => {
    const md = committed();
    expect(md).toContain(quickStartLine);
    expect(md.match(/.{0,40}\{@link.{0,40}/g)).toBeNull();
    const ids = new Set([...md.matchAll(/id="([^"]+)"/g)].map((m) => m[1]));
    const links = [...md.matchAll(/\]\(#(cdk-efs-kit[^)]*)\)/g)].map((m) => m[1]);
    expect(links.length).toBeGreaterThan(30);
    expect(links.filter((l) => !ids.has(l))).toEqual([]);
  });
});
