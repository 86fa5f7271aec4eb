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

test('the README keeps the order the issue asks for: what it is, install, quick start, constructs, commands, efs-sim, how fast, the two commands, contributing', () => {
  const sections = readme.match(/^## .*$/gm)!;
  expect(sections).toEqual(['## Install', '## Quick start', '## Constructs', '## Command line', '## efs-sim', '## How fast', '## Errors and warnings', '## Two commands', '## Contributing']);
  expect(readme.match(/^### .*$/gm)).toEqual(expect.arrayContaining(['### SharedFileSystem', '### FileSystemSeed', '### BenchmarkProbe', '### FileSystemMonitoring',
    '### cdk-efs-kit seed', '### cdk-efs-kit probe and compare', '### cdk-efs-kit advise']));
  expect(readme).toContain('npm ci && npm run demo');
  expect(readme).toContain('npm ci && npm test');
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

test('the README\'s scenario table says what each scenario reproduces as `probe --list` does', () => {
  for (const scenario of SCENARIOS) expect(readme).toContain(`| \`${scenario.name}\` | ${scenario.reproduces} |`);
});
