/**
 * Writes the README's measured figures from bench/RESULTS.md, so they cannot drift from the run
 * they come from:
 *
 *   npx tsx scripts/readme-figures.ts          # rewrite the marked blocks of README.md
 *
 * Each figure block sits between `<!-- figures:<name> -->` and `<!-- /figures:<name> -->`;
 * test/docs/readme-figures.test.ts fails when a block differs from what this writes.
 */
import * as fs from 'fs';
import * as path from 'path';

/** Seconds by workload and tool, from the copy tools' tables of bench/RESULTS.md. */
export function copySeconds(results: string): Map<string, string> {
  const seconds = new Map<string, string>();
  for (const [, workload, tool, value] of results.matchAll(/^\| ([\w-]+) \| ([^|]+?) \| ([\d.]+) \|/gm)) {
    seconds.set(`${workload}|${tool}`, value);
  }
  return seconds;
}

/** The seed's unchanged re-run of a workload, from its bullet under the workload's table. */
function rerunSeconds(results: string, workload: string): string {
  const section = results.slice(results.indexOf(`### ${workload}:`));
  const rerun = /cdk-efs-kit seed unchanged re-run: ([\d.]+) s/.exec(section);
  if (!rerun) throw new Error(`bench/RESULTS.md has no unchanged re-run for ${workload}`);
  return rerun[1];
}

/** Seeding S3 Files through the bucket against through the mount, by workload: the ratios bench/seed-bucket-vs-mount.ts prints under its tables. */
export function bucketVsMount(results: string): Map<string, { faster: string; cost: string }> {
  const ratios = new Map<string, { faster: string; cost: string }>();
  for (const [, workload, faster, times, way] of results.matchAll(/^([\w-]+): through the bucket, ([\d.]+) times the files\/s of through the mount to in the bucket and visible, at ([\d.]+) times (less|more) for the seed once\.$/gm)) {
    ratios.set(workload, { faster, cost: `${times} times ${way === 'less' ? 'cheaper' : 'dearer'}` });
  }
  return ratios;
}

/** The README's figure blocks, by name. */
export function readmeFigures(results: string): Record<string, string> {
  const seconds = copySeconds(results);
  const get = (workload: string, tool: string) => {
    const value = seconds.get(`${workload}|${tool}`);
    if (!value) throw new Error(`bench/RESULTS.md has no "${tool}" row for ${workload}`);
    return value;
  };
  const tarSeed = get('owncloud-11000', 'cdk-efs-kit seed .tar.gz (64)');
  const tar = get('owncloud-11000', 'tar -xzf');
  const ratio = (Number(tar) / Number(tarSeed)).toFixed(0);

  const tools = ['cp -r', 'rsync -r', 'fpsync (32)', 'rclone copy (32)', 'xargs -P32 cp'];
  const row = (label: string, workload: string) =>
    `| ${label} | **${get(workload, 'cdk-efs-kit seed (64)')} s** | ${tools.map((t) => `${get(workload, t)} s`).join(' | ')} | |`;
  return {
    headline: `**11,000 files (98 MB) from a \`.tar.gz\` onto a file system with EFS's latency: ${tarSeed} s with the
seed, ${tar} s with \`tar -xzf\`** (${ratio} times faster; on efs-sim, [below](#how-fast)).`,
    'how-fast': [
      '| copy | cdk-efs-kit seed | `cp -r` | `rsync -r` | fpsync (32) | rclone (32) | `xargs -P32 cp` | `tar -xzf` |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      row('2,000 files of 4-16 KB in 50 directories', 'small-files-2000'),
      row('500 files of 1 MiB in one directory', '1MiB-files-500'),
      `| 11,000 files (98 MB) from a \`.tar.gz\` | **${tarSeed} s** | | | | | | ${tar} s |`,
      '',
      `An unchanged re-run of the 2,000 files takes ${rerunSeconds(results, 'small-files-2000')} s. ${s3Files(results)}`,
    ].join('\n'),
  };
}

/** One sentence: seeding S3 Files through its bucket against through its mount, both workloads, from the same run. */
function s3Files(results: string): string {
  const ratios = bucketVsMount(results);
  const get = (workload: string) => {
    const r = ratios.get(workload);
    if (!r) throw new Error(`bench/RESULTS.md has no bucket-against-mount ratio for ${workload}`);
    return r;
  };
  const small = get('small-files-2000');
  const owncloud = get('owncloud-11000');
  return `Onto S3 Files (efs-sim, shorter sync windows), [seeding through the bucket](docs/seed-s3-files.md) had everything in the bucket and visible ${small.faster} times as fast as through the mount, ${small.cost} (ownCloud's 11,000 files: ${owncloud.faster} times, ${owncloud.cost}).`;
}

const block = (name: string) => new RegExp(`(<!-- figures:${name} -->\\n)(?:[\\s\\S]*?\\n)?(<!-- /figures:${name} -->)`);

/** The text of each marked block in a README. */
export function figureBlocks(readme: string, names: string[]): Record<string, string | undefined> {
  return Object.fromEntries(names.map((name) => {
    const match = new RegExp(`<!-- figures:${name} -->\\n(?:([\\s\\S]*?)\\n)?<!-- /figures:${name} -->`).exec(readme);
    return [name, match ? match[1] ?? '' : undefined];
  }));
}

/** The README with every marked block rewritten. */
export function withFigures(readme: string, results: string): string {
  let text = readme;
  for (const [name, figures] of Object.entries(readmeFigures(results))) {
    if (!block(name).test(text)) throw new Error(`README.md has no <!-- figures:${name} --> block`);
    text = text.replace(block(name), (_all, open: string, close: string) => `${open}${figures}\n${close}`);
  }
  return text;
}

if (require.main === module) {
  const root = path.join(__dirname, '..');
  const readme = path.join(root, 'README.md');
  fs.writeFileSync(readme, withFigures(fs.readFileSync(readme, 'utf8'), fs.readFileSync(path.join(root, 'bench', 'RESULTS.md'), 'utf8')));
}
