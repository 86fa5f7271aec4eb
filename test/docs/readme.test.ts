import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { SCENARIOS } from '../../lambda/probe/catalog';

// The README is written for the person adopting the library, and read where the package is (npm,
// PyPI), where only the packed files exist. Needs `npm run build` first (npm test does it).
const root = path.join(__dirname, '..', '..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
const docs = fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f));

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) => heading.toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-');
const anchorsOf = (markdown: string) => new Set(markdown.replace(/^```[\s\S]*?^```/gm, '').match(/^#{1,6} .*$/gm)!.map((h) => slug(h.replace(/^#+ /, ''))));
/** Relative links of a markdown file, outside code: [text](target#anchor). */
const linksOf = (markdown: string) => [...markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((l) => !/^[a-z]+:/.test(l));

test('the README is a front door: what it is, the two commands, install, quick start, then a short section per construct and command', () => {
  expect(readme.match(/^## .*$/gm)).toEqual(['## Two commands', '## Install', '## Quick start', '## Constructs', '## Command line', '## efs-sim',
    '## How fast', '## Errors and warnings', '## Documentation', '## Contributing']);
  expect(readme.match(/^### .*$/gm)).toEqual(['### SharedFileSystem', '### FileSystemSeed', '### BenchmarkProbe', '### FileSystemMonitoring',
    '### EfsMetrics, NfsMountOptions and EfsPricing', '### S3 Files', '### cdk-efs-kit seed', '### cdk-efs-kit probe and compare', '### cdk-efs-kit advise', '### cdk-efs-kit doctor']);
  // The reference is in docs/: each construct's and command's section links to its page there.
  const sections = readme.split(/^### /m).slice(1);
  expect(sections.filter((s) => !/\]\(docs\/[\w-]+\.md/.test(s)).map((s) => s.split('\n')[0])).toEqual([]);
});

test('the README stays under 400 lines', () => {
  expect(readme.split('\n').length).toBeLessThan(400);
});

test('its first screen has what it is, the two commands, every language\'s install, and the quick start up to `cdk synth`', () => {
  const firstScreen = readme.split('\n').slice(0, 60).join('\n');
  for (const text of ['npm ci && npm run demo', 'npm ci && npm test', 'npm pack', 'npm run package:python', 'npm run package:go',
    'npm run package:java', 'mvn -f dist/java/pom.xml install', 'pip install cdk-efs-kit', 'npx cdk synth --strict']) {
    expect({ text, onFirstScreen: firstScreen.includes(text) }).toEqual({ text, onFirstScreen: true });
  }
});

test('the README names the Node.js lines package.json supports, and only those', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  expect(pkg.engines.node).toBe('^22.0.0 || ^24.0.0');
  expect(readme).toContain('Node.js 22 or 24');
  expect(readme.match(/.{0,40}Node(\.js)? (1\d|20|21|23|25)\b.{0,40}/g)).toBeNull();
});

test.each(['README.md', ...docs])('%s names no issue of this project by number', (file) => {
  // aws-cdk's issues are cited by their repository's name (aws/aws-cdk#33669) or linked.
  const text = fs.readFileSync(path.join(root, file), 'utf8').replace(/aws\/aws-cdk#\d+|\[#\d+\]\(https:\/\/github\.com\/aws\/aws-cdk\/issues\/\d+\)/g, '');
  expect(text.match(/.{0,40}(#\d+\b|\bissues? \d+).{0,40}/gi)).toBeNull();
});

test.each(['README.md', ...docs])('every link in %s leads to a file, and every #anchor to a heading', (file) => {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  for (const link of linksOf(text)) {
    const [target, anchor] = link.split('#');
    const resolved = target ? path.join(path.dirname(file), target) : file;
    expect({ link, exists: fs.existsSync(path.join(root, resolved)) }).toEqual({ link, exists: true });
    if (anchor && resolved.endsWith('.md')) {
      expect({ link, anchor: anchorsOf(fs.readFileSync(path.join(root, resolved), 'utf8')).has(anchor) }).toEqual({ link, anchor: true });
    }
  }
});

test('the README links to packed files, or into folders it says are the source repository\'s', () => {
  const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }));
  const packed = new Set(pack.files.map((f: { path: string }) => f.path));
  const declared = /Links into ((?:`[\w/]+\/`(?:, | and )?)+) lead to files of the source\nrepository/.exec(readme);
  expect(declared).not.toBeNull();
  const folders = declared![1].match(/`([\w/]+\/)`/g)!.map((f) => f.replace(/`/g, ''));
  const unpacked = linksOf(readme).map((l) => l.split('#')[0]).filter((l) => l && !packed.has(l));
  expect(unpacked.filter((l) => !folders.some((f) => l.startsWith(f)))).toEqual([]);
});

describe('users read the published articles\' titles, never the project\'s working names for them', () => {
  const cli = (...args: string[]) => execFileSync(process.execPath, [path.join(root, 'dist', 'bin', 'cdk-efs-kit.js'), ...args], { encoding: 'utf8' });
  const texts: Array<[string, () => string]> = [
    ['README.md', () => readme],
    ...docs.map((f): [string, () => string] => [f, () => fs.readFileSync(path.join(root, f), 'utf8')]),
    ...['', 'seed', 'probe', 'compare', 'advise', 'doctor'].map((c): [string, () => string] => [`cdk-efs-kit ${c} --help`, () => cli(...(c ? [c] : []), '--help')]),
    ['cdk-efs-kit probe --list', () => cli('probe', '--list')],
  ];
  test.each(texts)('%s', (_name, text) => {
    expect(text().match(/.{0,40}(seeds? 00\d|source documents?).{0,40}/g)).toBeNull();
  });
});

test('docs/probe.md\'s scenario table says what each scenario reproduces as `probe --list` does', () => {
  const probeMd = fs.readFileSync(path.join(root, 'docs', 'probe.md'), 'utf8');
  for (const scenario of SCENARIOS) expect(probeMd).toContain(`| \`${scenario.name}\` | ${scenario.reproduces} |`);
});
