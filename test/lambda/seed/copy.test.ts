import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { TEMP_PREFIX } from '../../../lambda/seed/state/reserved-names';
import { seed } from '../../../lambda/seed/copy/copy';
import type { SeedSummary } from '../../../lambda/seed/copy/seed-summary';
import { EntrySource } from '../../../lambda/seed/sources/entry';
import { openSource, parseSourceSpec } from '../../../lambda/seed/sources/open-source';
import { lieAboutZipSizes, makeTar, makeTree, makeZip, recordPathCalls, tempDir, treeDigest, manifestPaths } from '../../helpers/seed-fixtures';

// The copy engine against real directories and real archives on the local disk.
async function seedFrom(spec: string, target: string, options: Parameters<typeof seed>[2] = {}): Promise<SeedSummary> {
  const { source, close } = await openSource(parseSourceSpec(spec));
  try {
    return await seed(source, target, options);
  } finally {
    await close();
  }
}

let work: string;
beforeEach(() => { work = tempDir(); });

/** A run token an interrupted run recorded (see recordRunToken). */
const INTERRUPTED = '0123456789abcdef';

/** Records `token` in the state of `dst` as an interrupted run leaves it: the proof that its staging and temporary entries are a seed's. */
function recordRunToken(dst: string, token: string): void {
  fs.mkdirSync(path.join(dst, '.cdk-efs-kit'), { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dst, '.cdk-efs-kit', 'run-tokens.json'), JSON.stringify({ tokens: { [token]: ['staging', 'temporary'] } }), { mode: 0o600 });
}

/** Files under `dst` outside the state directory, staged or published. */
const countWritten = (dst: string): number => fs.readdirSync(dst, { recursive: true, withFileTypes: true })
  .filter((d) => d.isFile() && !path.relative(dst, d.parentPath).startsWith('.cdk-efs-kit' + path.sep) && path.relative(dst, d.parentPath) !== '.cdk-efs-kit').length;

/** A staging name as it reads without its run token. */
const withoutToken = (name: string) => name.replace(/\.cdk-efs-kit-new-[0-9a-f]{16}-/, '.cdk-efs-kit-new-');
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

describe('from a directory', () => {
  test('copies every file byte for byte, with modes and symlinks', async () => {
    const src = path.join(work, 'src');
    makeTree(src, 5, 20);
    fs.chmodSync(path.join(src, 'dir-0', 'file-0.dat'), 0o600);
    fs.symlinkSync('dir-1/file-1.dat', path.join(src, 'link'));
    // Empty directories are part of an app too (uploads/, cache/).
    fs.mkdirSync(path.join(src, 'dir-2', 'empty'));
    fs.mkdirSync(path.join(src, 'uploads', 'cache'), { recursive: true });
    const summary = await seedFrom(src, path.join(work, 'dst'));
    expect(summary).toMatchObject({ files: 101, written: 101, skipped: 0, failed: [], complete: true });
    expect(treeDigest(path.join(work, 'dst'))).toEqual(treeDigest(src));
    expect(treeDigest(src)).toMatchObject({ 'dir-2/empty/': 'empty directory', 'uploads/cache/': 'empty directory' });
    expect(fs.statSync(path.join(work, 'dst', 'dir-0', 'file-0.dat')).mode & 0o777).toBe(0o600);
  });

  test('copies files around the read thresholds byte for byte (one read, then 1 MiB reads through a reused buffer)', async () => {
    const src = path.join(work, 'src');
    fs.mkdirSync(src);
    const sizes = [0, 1, 64 * 1024, 64 * 1024 + 1, 1024 * 1024, 1024 * 1024 + 1, 3.5 * 1024 * 1024];
    for (const size of sizes) fs.writeFileSync(path.join(src, `f-${size}.bin`), randomBytes(size));
    // Twice at once: buffers go back to the spares and come out again with other content in them.
    const [a, b] = await Promise.all([seedFrom(src, path.join(work, 'a')), seedFrom(src, path.join(work, 'b'))]);
    for (const summary of [a, b]) expect(summary).toMatchObject({ written: sizes.length, failed: [] });
    expect(treeDigest(path.join(work, 'a'))).toEqual(treeDigest(src));
    expect(treeDigest(path.join(work, 'b'))).toEqual(treeDigest(src));
  });

  test('fails a file that grows between the walk and its copy, leaving nothing at its path', async () => {
    const src = path.join(work, 'src');
    const dst = path.join(work, 'dst');
    fs.mkdirSync(src);
    fs.writeFileSync(path.join(src, 'log.txt'), randomBytes(200 * 1024));
    const { source } = await openSource(parseSourceSpec(src));
    // A live migration: the application appends to the file after the walk has sized it.
    const growing: EntrySource = {
      description: source.description,
      async *entries() {
        for await (const entry of source.entries()) {
          if (entry.type === 'file') fs.appendFileSync(path.join(src, entry.path), 'one more line\n');
          yield entry;
        }
      },
    };
    const summary = await seed(growing, dst);
    expect(summary.failed).toEqual([{ path: 'log.txt', error: expect.stringMatching(/log\.txt: the source said 204800 bytes but delivered 204814/) }]);
    expect(fs.readdirSync(dst).filter((name) => name !== '.cdk-efs-kit')).toEqual([]);
  });

  test('a second run with an unchanged source writes nothing', async () => {
    const src = path.join(work, 'src');
    makeTree(src, 3, 10);
    await seedFrom(src, path.join(work, 'dst'));
    const manifestBefore = fs.statSync(path.join(work, 'dst', '.cdk-efs-kit', 'seed-manifest.json')).mtimeMs;
    const again = await seedFrom(src, path.join(work, 'dst'));
    expect(again).toMatchObject({ written: 0, skipped: 30 });
    expect(fs.statSync(path.join(work, 'dst', '.cdk-efs-kit', 'seed-manifest.json')).mtimeMs).toBe(manifestBefore);
  });

  test('writes again a file deleted from the target since the last run, and only that one', async () => {
    const src = path.join(work, 'src');
    const dst = path.join(work, 'dst');
    makeTree(src, 2, 5);
    await seedFrom(src, dst);
    fs.rmSync(path.join(dst, 'dir-1', 'file-1.dat'));
    const again = await seedFrom(src, dst);
    expect(again).toMatchObject({ written: 1, skipped: 9 });
    expect(fs.readFileSync(path.join(dst, 'dir-1', 'file-1.dat'))).toEqual(fs.readFileSync(path.join(src, 'dir-1', 'file-1.dat')));
  });

  test('writes again a directory deleted from the target, and refuses one replaced by a symlink, writing nothing through it', async () => {
    const src = path.join(work, 'src');
    const dst = path.join(work, 'dst');
    const outside = path.join(work, 'outside');
    makeTree(src, 2, 5);
    await seedFrom(src, dst);
    fs.rmSync(path.join(dst, 'dir-0'), { recursive: true });
    fs.rmSync(path.join(dst, 'dir-1'), { recursive: true });
    fs.mkdirSync(outside);
    fs.symlinkSync(outside, path.join(dst, 'dir-1'));
    const again = await seedFrom(src, dst);
    expect(again).toMatchObject({ written: 5, skipped: 0 });
    expect(again.failed).toHaveLength(5);
    expect(again.failed[0].error).toContain('is not a directory (a symlink is never followed)');
    expect(treeDigest(path.join(dst, 'dir-0'))).toEqual(treeDigest(path.join(src, 'dir-0')));
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  test('replaces changed files, keeps files the source dropped, and prunes only when asked', async () => {
    const src = path.join(work, 'src');
    const dst = path.join(work, 'dst');
    makeTree(src, 2, 5);
    await seedFrom(src, dst);
    fs.writeFileSync(path.join(dst, 'users-own-file.txt'), 'not the seed\'s');
    fs.writeFileSync(path.join(src, 'dir-0', 'file-0.dat'), 'changed content');
    fs.rmSync(path.join(src, 'dir-1', 'file-1.dat'));

    const second = await seedFrom(src, dst);
    expect(second).toMatchObject({ written: 1, pruned: 0 });
    expect(fs.readFileSync(path.join(dst, 'dir-0', 'file-0.dat'), 'utf8')).toBe('changed content');
    expect(fs.existsSync(path.join(dst, 'dir-1', 'file-1.dat'))).toBe(true);

    const third = await seedFrom(src, dst, { prune: true });
    expect(third.pruned).toBe(1);
    expect(fs.existsSync(path.join(dst, 'dir-1', 'file-1.dat'))).toBe(false);
    expect(fs.readFileSync(path.join(dst, 'users-own-file.txt'), 'utf8')).toBe('not the seed\'s');
  });

  test('a dry run writes nothing and reports what it would write', async () => {
    const src = path.join(work, 'src');
    makeTree(src, 2, 3);
    const summary = await seedFrom(src, path.join(work, 'dst'), { dryRun: true });
    expect(summary).toMatchObject({ files: 6, written: 6 });
    expect(fs.existsSync(path.join(work, 'dst'))).toBe(false);
  });

  test('a dry run on a seeded target reports only what changed, and writes nothing', async () => {
    const src = path.join(work, 'src');
    const dst = path.join(work, 'dst');
    makeTree(src, 2, 3);
    await seedFrom(src, dst);
    fs.writeFileSync(path.join(src, 'dir-1', 'file-2.dat'), 'changed content');
    fs.rmSync(path.join(dst, 'dir-0', 'file-0.dat'));
    const before = treeDigest(dst);
    expect(await seedFrom(src, dst, { dryRun: true })).toMatchObject({ files: 6, written: 2, skipped: 4 });
    expect(treeDigest(dst)).toEqual(before);
  });

  test('stops at the deadline and a later run finishes the job', async () => {
    const src = path.join(work, 'src');
    makeTree(src, 4, 25);
    const first = await seedFrom(src, path.join(work, 'dst'), { deadline: Date.now() - 1 });
    expect(first.complete).toBe(false);
    const second = await seedFrom(src, path.join(work, 'dst'));
    expect(second.complete).toBe(true);
    expect(treeDigest(path.join(work, 'dst'))).toEqual(treeDigest(src));
  });

  test('a new directory stays under a staging name until its files are all written, then appears whole', async () => {
    const src = path.join(work, 'src');
    const dst = path.join(work, 'dst');
    makeTree(src, 3, 10);
    fs.mkdirSync(path.join(src, 'dir-0', 'sub'));
    fs.writeFileSync(path.join(src, 'dir-0', 'sub', 'deep.txt'), 'deep');
    const seenMidway: string[][] = [];
    const summary = await seedFrom(src, dst, {
      concurrency: 4,
      onProgress: (p) => { if (p.written === 5) seenMidway.push(fs.readdirSync(dst).sort()); },
    });
    expect(summary).toMatchObject({ written: 31, failed: [], complete: true });
    // Midway, every directory made is still under its staging name (which others are made by then depends on scheduling);
    // the state directory holds the run's lock.
    expect(seenMidway.map((names) => names.map(withoutToken))).toEqual([expect.arrayContaining(['.cdk-efs-kit', '.cdk-efs-kit-new-dir-0'])]);
    expect(seenMidway[0].filter((name) => name !== '.cdk-efs-kit').every((name) => /^\.cdk-efs-kit-new-[0-9a-f]{16}-dir-/.test(name))).toBe(true);
    expect(fs.readdirSync(dst).sort()).toEqual(['.cdk-efs-kit', 'dir-0', 'dir-1', 'dir-2']);
    expect(treeDigest(dst)).toEqual(treeDigest(src));
  });

  test('a directory is published as soon as its files are written, while others are still being filled', async () => {
    // Renames in one parent are serial: left to the end of the run, they would all queue there.
    const src = path.join(work, 'src');
    const dst = path.join(work, 'dst');
    makeTree(src, 3, 10);
    let seenMidway: string[] = [];
    const summary = await seedFrom(src, dst, {
      concurrency: 1,
      onProgress: (p) => { if (p.written === 15) seenMidway = fs.readdirSync(dst).sort(); },
    });
    expect(summary).toMatchObject({ written: 30, failed: [], complete: true });
    // One writer fills the directories one after another: the first is published, the second still staged.
    expect(seenMidway.map(withoutToken)).toEqual(expect.arrayContaining(['.cdk-efs-kit-new-dir-1', 'dir-0']));
    expect(seenMidway).not.toContain('dir-1');
    expect(seenMidway).not.toContain('dir-2');
    expect(treeDigest(dst)).toEqual(treeDigest(src));
  });

  test('a run stopped midway leaves its new directories unpublished, and the next run fills them on without rewriting', async () => {
    const src = path.join(work, 'src');
    const dst = path.join(work, 'dst');
    makeTree(src, 4, 25);
    let written = 0;
    const first = await seedFrom(src, dst, {
      concurrency: 2,
      onProgress: (p) => { written = p.written; },
      // Past the deadline once 30 files are written: the rest is left to the next run.
      get deadline() { return written >= 30 ? 0 : undefined; },
    });
    expect(first.complete).toBe(false);
    expect(first.written).toBeGreaterThanOrEqual(30);
    // A directory whose files were all written may be published; the others wait under their staging names.
    const published = fs.readdirSync(dst).filter((n) => n.startsWith('dir-'));
    expect(published.length).toBeLessThan(4);
    for (const dir of published) expect(treeDigest(path.join(dst, dir))).toEqual(treeDigest(path.join(src, dir)));
    // Those not published are still staged (the last may not have been made before the deadline).
    const staged = fs.readdirSync(dst).filter((n) => n.startsWith('.cdk-efs-kit-new-'));
    expect(staged.length).toBeGreaterThan(0);
    expect(staged.length).toBeLessThanOrEqual(4 - published.length);

    const second = await seedFrom(src, dst);
    expect(second).toMatchObject({ complete: true, failed: [], written: 100 - first.written, skipped: first.written });
    expect(treeDigest(dst)).toEqual(treeDigest(src));
    expect(fs.readdirSync(dst).sort()).toEqual(['.cdk-efs-kit', 'dir-0', 'dir-1', 'dir-2', 'dir-3']);
  });

  test('in an unpublished directory, a file an earlier run recorded is replaced through a temporary name', async () => {
    // Rewritten in place and killed, it would pass for the recorded file on a later run with the old source.
    const src = path.join(work, 'src');
    const dst = path.join(work, 'dst');
    makeTree(src, 2, 10);
    let written = 0;
    await seedFrom(src, dst, { concurrency: 1, onProgress: (p) => { written = p.written; }, get deadline() { return written >= 5 ? 0 : undefined; } });
    const recorded = manifestPaths(dst);
    expect(recorded.length).toBeGreaterThanOrEqual(5);
    fs.writeFileSync(path.join(src, recorded[0]), 'changed');
    const renames = recordPathCalls('rename');
    try {
      expect(await seedFrom(src, dst)).toMatchObject({ complete: true, failed: [], written: 20 - recorded.length + 1 });
      const [dir, name] = recorded[0].split('/');
      const fileRenames = renames.calls.filter(([from]) => path.basename(from).startsWith(TEMP_PREFIX));
      expect(fileRenames.map(([, to]) => path.relative(fs.realpathSync(dst), to)).map(withoutToken)).toEqual([path.join(`.cdk-efs-kit-new-${dir}`, name)]);
    } finally {
      renames.restore();
    }
    expect(treeDigest(dst)).toEqual(treeDigest(src));
  });

  test('files bound for one existing directory, alone in the pool, are written in scratch directories and renamed across', async () => {
    // The directory's lock is then held once per file, for the rename, as cp holds it for the create.
    const src = path.join(work, 'src');
    const dst = path.join(work, 'dst');
    makeTree(src, 1, 30);
    fs.mkdirSync(path.join(dst, 'dir-0'), { recursive: true });
    const renames = recordPathCalls('rename');
    try {
      expect(await seedFrom(src, dst, { concurrency: 8 })).toMatchObject({ complete: true, failed: [], written: 30 });
      const from = renames.calls.filter(([tmp]) => path.basename(tmp).startsWith(TEMP_PREFIX)).map(([tmp]) => path.relative(fs.realpathSync(dst), path.dirname(tmp)));
      expect(from).toHaveLength(30);
      expect(new Set(from)).toEqual(new Set(Array.from({ length: 8 }, (_, n) => `.cdk-efs-kit/scratch-${n}`)));
    } finally {
      renames.restore();
    }
    expect(treeDigest(dst)).toEqual(treeDigest(src));
    // A complete run removes them.
    expect(fs.readdirSync(path.join(dst, '.cdk-efs-kit'))).toEqual(['seed-manifest.json']);
  });

  test('refuses to run, reading and writing nothing, with a symlink planted in place of the seed\'s state directory', async () => {
    const src = path.join(work, 'src');
    const dst = path.join(work, 'dst');
    const outside = path.join(work, 'outside');
    makeTree(src, 1, 10);
    fs.mkdirSync(path.join(dst, 'dir-0'), { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'seed-manifest.json'), JSON.stringify({ version: 1, files: { 'dir-0/file-0.dat': 'x' } }));
    fs.symlinkSync(outside, path.join(dst, '.cdk-efs-kit'));
    await expect(seedFrom(src, dst)).rejects.toThrow(/\.cdk-efs-kit is not a directory \(a symlink there is never followed\); remove it and run the seed again/);
    expect(fs.readdirSync(outside)).toEqual(['seed-manifest.json']);
    expect(fs.readdirSync(path.join(dst, 'dir-0'))).toEqual([]);
  });

  test('a complete run removes scratch directories and manifest saves an interrupted run left', async () => {
    const src = path.join(work, 'src');
    const dst = path.join(work, 'dst');
    makeTree(src, 2, 3);
    fs.mkdirSync(path.join(dst, '.cdk-efs-kit', 'scratch-3'), { recursive: true });
    fs.writeFileSync(path.join(dst, '.cdk-efs-kit', 'scratch-3', '.cdk-efs-kit-tmp-1-0'), 'partial');
    // A save killed between its write and its rename.
    fs.writeFileSync(path.join(dst, '.cdk-efs-kit', 'seed-manifest.json.0a1b2c3d4e5f.tmp'), '{"version":1,"fi');
    expect(await seedFrom(src, dst)).toMatchObject({ complete: true, failed: [], written: 6 });
    expect(fs.readdirSync(path.join(dst, '.cdk-efs-kit'))).toEqual(['seed-manifest.json']);
  });

  test('removes a staging directory an interrupted run left that nothing adopts, and leaves one that is a symlink or carries no recorded token', async () => {
    const src = path.join(work, 'src');
    const dst = path.join(work, 'dst');
    const outside = path.join(work, 'outside');
    makeTree(src, 2, 3);
    recordRunToken(dst, INTERRUPTED);
    fs.mkdirSync(path.join(dst, `.cdk-efs-kit-new-${INTERRUPTED}-gone`, 'inner'), { recursive: true });
    fs.writeFileSync(path.join(dst, `.cdk-efs-kit-new-${INTERRUPTED}-gone`, 'inner', 'half'), 'an interrupted run\'s file');
    fs.mkdirSync(path.join(dst, '.cdk-efs-kit-new-someone-elses', 'inner'), { recursive: true });
    fs.mkdirSync(outside);
    fs.symlinkSync(outside, path.join(dst, `.cdk-efs-kit-new-${INTERRUPTED}-dir-1`));
    const summary = await seedFrom(src, dst);
    expect(summary).toMatchObject({ written: 6, failed: [], complete: true });
    expect(summary.warnings.join('\n')).toMatch(/left 2 entries named like the seed's own .*"\.cdk-efs-kit-new-someone-elses" \(it carries no run token\).*-dir-1" \(it is not a directory/);
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(fs.readdirSync(dst).sort()).toEqual(['.cdk-efs-kit', `.cdk-efs-kit-new-${INTERRUPTED}-dir-1`, '.cdk-efs-kit-new-someone-elses', 'dir-0', 'dir-1']);
    expect(fs.readdirSync(path.join(dst, '.cdk-efs-kit-new-someone-elses'))).toEqual(['inner']);
  });

  test('a directory that appears on the target during the run is left alone, and the next run writes into it', async () => {
    const src = path.join(work, 'src');
    const dst = path.join(work, 'dst');
    makeTree(src, 1, 10);
    const first = await seedFrom(src, dst, {
      concurrency: 1,
      onProgress: (p) => {
        if (p.written === 1) {
          fs.mkdirSync(path.join(dst, 'dir-0'));
          fs.writeFileSync(path.join(dst, 'dir-0', 'users-file.txt'), 'made meanwhile');
        }
      },
    });
    expect(first.failed).toEqual([{ path: 'dir-0', error: expect.stringContaining('appeared on the target during the seed') }]);
    expect(fs.readdirSync(path.join(dst, 'dir-0'))).toEqual(['users-file.txt']);

    const second = await seedFrom(src, dst);
    expect(second).toMatchObject({ written: 10, failed: [] });
    expect(fs.readFileSync(path.join(dst, 'dir-0', 'users-file.txt'), 'utf8')).toBe('made meanwhile');
    expect(fs.readdirSync(dst).sort()).toEqual(['.cdk-efs-kit', 'dir-0']);
  });

  test('refuses source entries named like the seed\'s own state', async () => {
    const src = path.join(work, 'src');
    fs.mkdirSync(path.join(src, 'a', '.cdk-efs-kit-new-b'), { recursive: true });
    fs.writeFileSync(path.join(src, 'a', '.cdk-efs-kit-new-b', 'x'), 'x');
    fs.writeFileSync(path.join(src, '.cdk-efs-kit-tmp-1'), 'x');
    fs.writeFileSync(path.join(src, '.cdk-efs-kitten'), 'not reserved');
    const summary = await seedFrom(src, path.join(work, 'dst'));
    expect(summary.written).toBe(1);
    expect(summary.failed.map((f) => f.path).sort()).toEqual(['.cdk-efs-kit-tmp-1', 'a/.cdk-efs-kit-new-b', 'a/.cdk-efs-kit-new-b/x']);
    expect(summary.failed[0].error).toContain('reserved for the seed\'s own state');
  });

  test('removes temporary files an interrupted run left behind, and only those', async () => {
    const src = path.join(work, 'src');
    const dst = path.join(work, 'dst');
    makeTree(src, 1, 3);
    fs.mkdirSync(path.join(dst, 'dir-0'), { recursive: true });
    recordRunToken(dst, INTERRUPTED);
    fs.writeFileSync(path.join(dst, 'dir-0', `.cdk-efs-kit-tmp-${INTERRUPTED}-1-0-0`), 'half a file');
    fs.writeFileSync(path.join(dst, 'dir-0', '.cdk-efs-kit-tmp-abc123'), 'not the seed\'s');
    const summary = await seedFrom(src, dst);
    expect(summary).toMatchObject({ written: 3, failed: [] });
    expect(summary.warnings.join('\n')).toContain('"dir-0/.cdk-efs-kit-tmp-abc123" (it carries no run token)');
    expect(fs.readdirSync(path.join(dst, 'dir-0')).filter((n) => n.startsWith('.cdk-efs-kit-tmp-'))).toEqual(['.cdk-efs-kit-tmp-abc123']);
    // Its entries gone, the interrupted run's token is dropped, and so is this run's.
    expect(fs.existsSync(path.join(dst, '.cdk-efs-kit', 'run-tokens.json'))).toBe(false);
  });

  test('a run stopped early keeps its token recorded (its staging directories carry it); a complete run drops the tokens whose entries are gone', async () => {
    const src = path.join(work, 'src');
    const dst = path.join(work, 'dst');
    makeTree(src, 3, 10);
    const tokens = path.join(dst, '.cdk-efs-kit', 'run-tokens.json');
    const recorded = () => (fs.existsSync(tokens) ? Object.keys(JSON.parse(fs.readFileSync(tokens, 'utf8')).tokens) : []);
    const mkdirs = recordPathCalls('mkdir');
    let written = 0;
    try {
      // Three runs stopped by their deadline, each after a few files: their staging directories stay, and so do their tokens.
      for (let run = 1; run <= 3; run++) {
        const stopAt = written + 4;
        await seedFrom(src, dst, { concurrency: 1, get deadline() { return countWritten(dst) >= stopAt ? 0 : undefined; } });
        written = countWritten(dst);
        expect(recorded()).toHaveLength(run);
      }
      const staged = mkdirs.calls.map(([dir]) => path.basename(dir)).filter((n) => n.startsWith('.cdk-efs-kit-new-'));
      // Every staging directory was made with a token recorded by then.
      for (const name of staged) expect(recorded()).toContain(name.slice('.cdk-efs-kit-new-'.length, '.cdk-efs-kit-new-'.length + 16));
    } finally {
      mkdirs.restore();
    }
    expect(await seedFrom(src, dst)).toMatchObject({ complete: true, failed: [] });
    expect(recorded()).toEqual([]);
    expect(treeDigest(dst)).toEqual(treeDigest(src));
  });

  test('without a manifest (workers sharing a target), no temporary file is removed: none can be proven a seed\'s', async () => {
    const src = path.join(work, 'src');
    const dir = path.join(work, 'dst', 'dir-0');
    makeTree(src, 1, 3);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, '.cdk-efs-kit-tmp-old'), 'half a file');
    const summary = await seedFrom(src, path.join(work, 'dst'), { manifest: false });
    expect(summary.warnings.join('\n')).toContain('"dir-0/.cdk-efs-kit-tmp-old" (it carries no run token)');
    expect(fs.readdirSync(dir).filter((n) => n.startsWith('.cdk-efs-kit-tmp-'))).toEqual(['.cdk-efs-kit-tmp-old']);
  });

  test('never follows a directory symlink planted in the target', async () => {
    const src = path.join(work, 'src');
    makeTree(src, 1, 2);
    const outside = path.join(work, 'outside');
    fs.mkdirSync(outside);
    fs.mkdirSync(path.join(work, 'dst'));
    fs.symlinkSync(outside, path.join(work, 'dst', 'dir-0'));
    const summary = await seedFrom(src, path.join(work, 'dst'));
    expect(summary.failed.map((f) => f.error)).toEqual(expect.arrayContaining([expect.stringContaining('is not a directory (a symlink is never followed)')]));
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  test('fails when the concurrency is out of range', async () => {
    const src = path.join(work, 'src');
    makeTree(src, 1, 1);
    await expect(seedFrom(src, path.join(work, 'dst'), { concurrency: 2000 })).rejects.toThrow('concurrency must be an integer from 1 to 1024, got 2000');
  });
});

describe('from archives', () => {
  test.each(['site.tar', 'site.tar.gz', 'site.zip'])('extracts %s byte for byte, incrementally', async (name) => {
    const src = path.join(work, 'src');
    makeTree(src, 3, 8, [100, 3 * 1024 * 1024]); // some members above the 1 MiB streaming threshold
    fs.symlinkSync('dir-0/file-0.dat', path.join(src, 'link'));
    fs.mkdirSync(path.join(src, 'uploads', 'cache'), { recursive: true });
    const archive = path.join(work, name);
    if (name.endsWith('.zip')) require('child_process').execFileSync('zip', ['-qry', archive, '.'], { cwd: src });
    else require('child_process').execFileSync('tar', [name.endsWith('gz') ? 'czf' : 'cf', archive, '-C', src, '.']);

    const first = await seedFrom(archive, path.join(work, 'dst'));
    expect(first).toMatchObject({ files: 25, written: 25, failed: [] });
    expect(treeDigest(path.join(work, 'dst'))).toEqual(treeDigest(src));
    const second = await seedFrom(archive, path.join(work, 'dst'));
    expect(second).toMatchObject({ written: 0, skipped: 25 });
  });

  test('members held in memory stay within the bound, written or only checked on a re-run', async () => {
    // An archive-like source whose members arrive in memory, faster than any listing: what it has
    // handed out and the engine has not yet consumed (opened or discarded) is what the engine holds.
    const MEMBER = 10_000;
    let outstanding = 0;
    let most = 0;
    const source: EntrySource = {
      description: 'members in memory',
      async *entries() {
        for (let i = 0; i < 500; i++) {
          outstanding += MEMBER;
          most = Math.max(most, outstanding);
          let held = true;
          const release = () => { if (held) { held = false; outstanding -= MEMBER; } };
          yield {
            type: 'file', path: `dir-${i % 5}/member-${i}`, size: MEMBER, mode: 0o644, identity: `${MEMBER}:1`, inMemory: true,
            open: async () => { release(); return Buffer.alloc(MEMBER, i % 256); },
            discard: release,
          };
        }
      },
    };
    const dst = path.join(work, 'dst');
    const options = { maxQueuedBytes: 20 * MEMBER, concurrency: 4 };
    // Queued up to the bound, the member that crossed it, the one just handed out, one per writer.
    const bound = options.maxQueuedBytes + (2 + options.concurrency) * MEMBER;
    expect(await seed(source, dst, options)).toMatchObject({ written: 500 });
    expect(most).toBeLessThanOrEqual(bound);
    most = 0;
    expect(await seed(source, dst, options)).toMatchObject({ written: 0, skipped: 500 });
    expect(most).toBeLessThanOrEqual(bound);
  });

  describe('refuses malicious archives and writes nothing outside the target', () => {
    let dst: string;
    beforeEach(() => {
      dst = path.join(work, 'box', 'dst');
      fs.mkdirSync(dst, { recursive: true });
    });
    const outsideFiles = () => fs.readdirSync(path.join(work, 'box')).filter((n) => n !== 'dst');

    test.each([
      ['../x', "'..' is not allowed"],
      ['a/../../x', "'..' is not allowed"],
      ['/etc/x', 'absolute paths are not allowed'],
    ])('a tar member named %s', async (name, reason) => {
      const archive = path.join(work, 'evil.tar');
      await makeTar(archive, [{ name, content: 'pwned' }, { name: 'ok.txt', content: 'fine' }]);
      const summary = await seedFrom(archive, dst);
      expect(summary.failed).toEqual([{ path: name, error: `refused ${JSON.stringify(name)}: ${reason}` }]);
      expect(fs.readFileSync(path.join(dst, 'ok.txt'), 'utf8')).toBe('fine');
      expect(outsideFiles()).toEqual([]);
      expect(fs.existsSync('/etc/x')).toBe(false);
    });

    test('a tar symlink that escapes, then a file written through it', async () => {
      const archive = path.join(work, 'evil.tar');
      await makeTar(archive, [
        { name: 'escape', type: 'symlink', linkname: '../../' },
        { name: 'escape/x', content: 'pwned' },
      ]);
      const summary = await seedFrom(archive, dst);
      expect(summary.failed.map((f) => f.path)).toEqual(expect.arrayContaining(['escape']));
      expect(outsideFiles()).toEqual([]);
      expect(fs.existsSync(path.join(work, 'x'))).toBe(false);
    });

    test('a tar symlink to an absolute path', async () => {
      const archive = path.join(work, 'evil.tar');
      await makeTar(archive, [{ name: 'passwd', type: 'symlink', linkname: '/etc/passwd' }]);
      const summary = await seedFrom(archive, dst);
      expect(summary.failed[0].error).toContain('the link points to an absolute path');
      expect(fs.existsSync(path.join(dst, 'passwd'))).toBe(false);
    });

    test('a zip member named ../x and a zip symlink that escapes', async () => {
      const archive = path.join(work, 'evil.zip');
      makeZip(archive, [{ name: '../x', content: 'pwned' }, { name: 'up', content: '../../..', symlink: true }, { name: 'ok.txt', content: 'fine' }]);
      const summary = await seedFrom(archive, dst);
      expect(summary.failed.map((f) => f.path).sort()).toEqual(['../x', 'up']);
      expect(fs.readFileSync(path.join(dst, 'ok.txt'), 'utf8')).toBe('fine');
      expect(outsideFiles()).toEqual([]);
    });

    test('a zip that lies about its sizes', async () => {
      const archive = path.join(work, 'liar.zip');
      makeZip(archive, [{ name: 'big.txt', content: 'x'.repeat(5000) }]);
      lieAboutZipSizes(archive, 10);
      const summary = await seedFrom(archive, dst);
      expect(summary.failed).toHaveLength(1);
      expect(summary.failed[0].error).toBe('big.txt: the member declares 10 bytes but holds more');
      expect(fs.existsSync(path.join(dst, 'big.txt'))).toBe(false);
      expect(fs.readdirSync(dst).filter((n) => n.startsWith('.cdk-efs-kit-tmp-'))).toEqual([]);
    });

    test('a truncated tar.gz fails with a clear error and leaves no partial file', async () => {
      const archive = path.join(work, 'cut.tar.gz');
      await makeTar(archive, [{ name: 'a.txt', content: 'a' }, { name: 'big.bin', content: Buffer.alloc(3 * 1024 * 1024, 7) }]);
      const whole = fs.readFileSync(archive);
      fs.writeFileSync(archive, whole.subarray(0, Math.floor(whole.length * 0.6)));
      await expect(seedFrom(archive, dst)).rejects.toThrow(/is not a readable \.tar\.gz archive/);
      expect(fs.existsSync(path.join(dst, 'big.bin'))).toBe(false);
      expect(fs.readdirSync(dst).filter((n) => n.startsWith('.cdk-efs-kit-tmp-'))).toEqual([]);
    });

    test('a member over the size limit stops the run before it is written', async () => {
      const archive = path.join(work, 'bomb.tar');
      await makeTar(archive, [{ name: 'huge.bin', content: Buffer.alloc(2048) }]);
      const { source, close } = await openSource(parseSourceSpec(archive), { limits: { maxMemberBytes: 1024 } });
      await expect(seed(source, dst)).rejects.toThrow('stopped at "huge.bin": the member is 2048 bytes, over the 1024-byte limit per member (raise maxMemberBytes (archiveLimits.maxMemberSize, --max-member-size)');
      await close();
      expect(fs.existsSync(path.join(dst, 'huge.bin'))).toBe(false);
    });
  });
});
