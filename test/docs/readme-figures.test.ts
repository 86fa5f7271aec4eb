import * as fs from 'fs';
import * as path from 'path';
import { copySeconds, figureBlocks, readmeFigures } from '../../scripts/readme-figures';

// The README's measured figures are copied from bench/RESULTS.md by scripts/readme-figures.ts:
// when a benchmark run rewrites RESULTS.md, or someone edits a figure by hand, this fails until
// `npx tsx scripts/readme-figures.ts` writes them again.
const root = path.join(__dirname, '..', '..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
const results = fs.readFileSync(path.join(root, 'bench', 'RESULTS.md'), 'utf8');

test('every figure block of the README is what bench/RESULTS.md gives', () => {
  const expected = readmeFigures(results);
  expect(figureBlocks(readme, Object.keys(expected))).toEqual(expected);
});

test('the headline figure is the seed\'s and tar\'s time for the 11,000-file .tar.gz in RESULTS.md', () => {
  const seconds = copySeconds(results);
  const headline = figureBlocks(readme, ['headline']).headline!;
  expect(headline).toContain(`${seconds.get('owncloud-11000|cdk-efs-kit seed .tar.gz (64)')} s with the\nseed, ${seconds.get('owncloud-11000|tar -xzf')} s with \`tar -xzf\``);
  // On the first screen, before the first section.
  expect(readme.indexOf('<!-- figures:headline -->')).toBeLessThan(readme.indexOf('\n## '));
});

test('outside its figure blocks, the README states no timing', () => {
  const rest = readme.replace(/<!-- figures:([\w-]+) -->[\s\S]*?<!-- \/figures:\1 -->/g, '').replace(/^```[\s\S]*?^```/gm, '');
  expect(rest.match(/.{0,40}\b\d+(\.\d+)? (s|ms|seconds|minutes)\b.{0,40}/g)).toBeNull();
});

test('the generator refuses a RESULTS.md without a figure it needs', () => {
  expect(() => readmeFigures(results.replace(/^\| owncloud-11000 \| tar -xzf .*$/m, ''))).toThrow('bench/RESULTS.md has no "tar -xzf" row for owncloud-11000');
});

test('the generator refuses a RESULTS.md without the bucket-against-mount ratio of a workload', () => {
  expect(() => readmeFigures(results.replace(/^owncloud-11000: through the bucket, .*$/m, ''))).toThrow('bench/RESULTS.md has no bucket-against-mount ratio for owncloud-11000');
});
