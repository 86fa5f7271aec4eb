import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { Case, fixturesDir, isRoot, materialize, runCli, runHostileCases, seedHandler, text, useHostileHarness } from '../../helpers/hostile-harness';
import { cliForOtherUsers, openToOtherUsers } from '../../helpers/other-user';
import { makeTarGzBomb, makeZipBomb, snapshot } from '../../helpers/sentinel';
import { tempDir, manifestPaths } from '../../helpers/seed-fixtures';

// The hostile-input suite (see helpers/hostile-harness.ts): each case an attack on the seed, run
// through the CLI and through the bundled handler on efs-sim, a sentinel tree outside checked.

const forgedManifest = (body: object) => `mv "$T/.cdk-efs-kit" "$T/old-state" && mkdir "$T/.cdk-efs-kit" && printf '%s' '${JSON.stringify(body)}' > "$T/.cdk-efs-kit/seed-manifest.json"`;

const CASES: Case[] = [
  {
    name: 'a symlink planted in a staging directory is replaced, never written through',
    via: ['cli', 'handler'], unprivileged: true,
    source: { tree: { 'sub/file': 'new' } },
    plant: 'mkdir -p "$T/.cdk-efs-kit-new-sub" && ln -s "$OUT/v" "$T/.cdk-efs-kit-new-sub/file"',
    exit: 0,
    after: (t) => expect(text(t, 'sub/file')).toBe('new'),
  },
  {
    name: 'a hard link planted in a staging directory is replaced, never written through',
    via: ['cli', 'handler'],
    source: { tree: { 'sub/file': 'new' } },
    plant: 'mkdir -p "$T/.cdk-efs-kit-new-sub" && ln "$OUT/v" "$T/.cdk-efs-kit-new-sub/file"',
    exit: 0,
    after: (t) => expect(text(t, 'sub/file')).toBe('new'),
  },
  {
    name: 'a symlink planted at a seeded file\'s name is replaced by the file',
    via: ['cli', 'handler'], unprivileged: true,
    first: { tree: { 'sub/file': 'new' } },
    source: { tree: { 'sub/file': 'new' } },
    plant: 'mv "$T/sub" "$T/sub-old" && mkdir "$T/sub" && ln -s "$OUT/v" "$T/sub/file"',
    exit: 0,
    after: (t) => expect(fs.lstatSync(path.join(t, 'sub/file')).isFile() && text(t, 'sub/file')).toBe('new'),
  },
  {
    name: 'a directory replaced by a symlink is not written into',
    via: ['cli', 'handler'], unprivileged: true,
    first: { tree: { 'sub/file': 'one' } },
    source: { tree: { 'sub/file': 'two' } },
    plant: 'mv "$T/sub" "$T/sub-old" && ln -s "$OUT" "$T/sub"',
    exit: 1, message: /refused "sub\/file"|refused "sub": exists on the target and is not a directory \(a symlink is never followed\)/,
  },
  {
    name: 'a directory replaced by a symlink is not pruned through',
    via: ['cli', 'handler'], unprivileged: true,
    first: { tree: { 'sub/file': 'seeded', 'keep': 'k' } },
    source: { tree: { keep: 'k' } }, prune: true,
    plant: 'mv "$T/sub" "$T/sub-old" && ln -s "$OUT" "$T/sub"',
    exit: 1, message: /refused "sub\/file": not removed: a directory on its path is not a real directory any more/,
  },
  {
    name: 'manifest keys that climb out, are absolute or name the seed\'s state are ignored, not deleted',
    via: ['cli', 'handler'], unprivileged: true,
    first: { tree: { a: 'a' } },
    source: { tree: { a: 'a' } }, prune: true,
    plant: forgedManifest({
      version: 2,
      files: { '../outside/v': 'x', '/nonexistent/file': 'y', '../outside/sub/deeper/file': 'z', 'sub/../../outside/file': 'w', '.cdk-efs-kit/seed-manifest.json': 'm' },
      directories: ['..', '../outside/sub', '/tmp'],
    }),
    exit: 0, message: /ignored 8 manifest entries that are not normal paths in the target/,
    byNobody: { exit: 2, message: /\.cdk-efs-kit belongs to uid 65534, not to uid 0 that this seed writes as: someone else made it/ },
  },
  {
    name: 'a manifest that is a symlink to a file outside is not read',
    via: ['cli', 'handler'], unprivileged: true,
    first: { tree: { a: 'a' } },
    source: { tree: { a: 'a' } },
    plant: 'mv "$T/.cdk-efs-kit" "$T/old-state" && mkdir "$T/.cdk-efs-kit" && ln -s "$OUT/secret" "$T/.cdk-efs-kit/seed-manifest.json"',
    exit: 0, message: /ignored the manifest \(it is a symlink\)/,
    byNobody: { exit: 2, message: /\.cdk-efs-kit belongs to uid 65534, not to uid 0 that this seed writes as/ },
    after: (t) => expect(fs.lstatSync(path.join(t, '.cdk-efs-kit/seed-manifest.json')).isFile()).toBe(true),
  },
  {
    name: 'a state directory that is a symlink stops the run before anything is read or written',
    via: ['cli', 'handler'], unprivileged: true,
    first: { tree: { a: 'a' } },
    source: { tree: { a: 'a', b: 'b' } },
    plant: 'mv "$T/.cdk-efs-kit" "$T/old-state" && ln -s "$OUT" "$T/.cdk-efs-kit"',
    exit: 2, message: /\.cdk-efs-kit is not a directory \(a symlink there is never followed\); remove it and run the seed again/,
    after: (t) => expect(fs.existsSync(path.join(t, 'b'))).toBe(false),
  },
  {
    name: 'a scratch directory that is a symlink is not written through',
    via: ['cli', 'handler'],
    first: { tree: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`flat/f${i}`, 'one'])) },
    source: { tree: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`flat/f${i}`, 'two'])) },
    plant: 'for n in 0 1 2 3 4 5 6 7; do ln -s "$OUT" "$T/.cdk-efs-kit/scratch-$n"; done',
    exit: 0,
    after: (t) => expect(text(t, 'flat/f39')).toBe('two'),
  },
  {
    name: 'removeOnDelete does not delete through a symlinked directory',
    via: ['handler'], request: 'Delete', props: { RemoveOnDelete: 'true' },
    first: { tree: { 'sub/file': 'seeded', 'keep': 'k' } },
    source: { tree: { 'sub/file': 'seeded', 'keep': 'k' } },
    plant: 'mv "$T/sub" "$T/sub-old" && ln -s "$OUT" "$T/sub"',
    exit: 0, message: /files the seed wrote could not be removed/,
    after: (t) => expect(fs.readdirSync(t).sort()).toEqual(['sub', 'sub-old']),
  },
  {
    name: 'removeOnDelete ignores a forged manifest\'s keys outside the target',
    via: ['handler'], request: 'Delete', props: { RemoveOnDelete: 'true' },
    first: { tree: { a: 'a' } },
    source: { tree: { a: 'a' } },
    plant: forgedManifest({ version: 2, files: { '../outside/file': 'x', '../outside/sub/deeper/file': 'y' }, directories: ['../outside/sub/deeper', '../outside'] }),
    exit: 0, message: /ignored 4 manifest entries/,
  },
  {
    name: 'a symlink whose chain of links climbs out is refused (each name alone looks harmless)',
    via: ['cli', 'handler'], legit: false,
    source: { tar: [{ name: 'a/', type: 'directory' }, { name: 'a/l', type: 'symlink', linkname: '..' }, { name: 'x', type: 'symlink', linkname: 'a/l/a/l/a/l/../../../../../../etc/passwd' }, { name: 'ok', type: 'symlink', linkname: 'a/l/a' }] },
    exit: 1, message: /refused "x": the link points outside the target/,
    after: (t) => {
      expect(fs.existsSync(path.join(t, 'x'))).toBe(false);
      expect(fs.readlinkSync(path.join(t, 'ok'))).toBe('a/l/a');
    },
  },
  {
    name: 'a new link that would make an earlier seed\'s link climb out: both refused, the earlier one removed',
    via: ['cli', 'handler'], legit: false,
    first: { tar: [{ name: 'a/', type: 'directory' }, { name: 'x', type: 'symlink', linkname: 'a/l/../../y' }] },
    source: { tar: [{ name: 'a/', type: 'directory' }, { name: 'x', type: 'symlink', linkname: 'a/l/../../y' }, { name: 'a/l', type: 'symlink', linkname: '..' }] },
    exit: 1, message: /refused "x": the link points outside the target/,
    after: (t) => expect(fs.existsSync(path.join(t, 'x')) || fs.existsSync(path.join(t, 'a/l'))).toBe(true),
  },
  {
    name: 'absolute links, links into the seed\'s state and links in loops are refused',
    via: ['cli', 'handler'], legit: false,
    source: { tar: [{ name: 'abs', type: 'symlink', linkname: '/etc/passwd' }, { name: 'state', type: 'symlink', linkname: '.cdk-efs-kit/seed-manifest.json' }, { name: 'loop', type: 'symlink', linkname: 'loop/x' }, { name: 'fine', content: 'fine' }] },
    exit: 1, message: /refused "abs": the link points to an absolute path[^]*refused "state": the link points into the seed's own state|refused "state": the link points into the seed's own state[^]*refused "abs"/,
    after: (t) => expect(fs.readdirSync(t).filter((n) => n !== '.cdk-efs-kit')).toEqual(['fine']),
  },
  {
    name: 'a zip link longer than Linux allows is refused without being read',
    via: ['cli', 'handler'], legit: false,
    source: { file: (dir) => zipWithLongLink(path.join(dir, 'long-link.zip')) },
    exit: 1, message: /the link target is 50000000 bytes, longer than 4095/,
  },
  {
    name: 'a zip of 2 GiB of zeros stops the run before anything is written',
    via: ['cli', 'handler'], legit: false,
    source: { file: () => bombs.zip },
    exit: 2, message: /stopped at "zeros\.bin": the archive's \d+ bytes expand to more than 100 times that .* a compression bomb\? \(raise maxCompressionRatio/,
    after: (t) => expect(fs.readdirSync(t).filter((n) => n !== '.cdk-efs-kit')).toEqual([]),
  },
  {
    name: 'a tar.gz of 2 GiB of zeros stops the run before anything is written',
    via: ['cli', 'handler'], legit: false,
    source: { file: () => bombs.tarGz },
    exit: 2, message: /stopped at "zeros\.bin": the archive's \d+ bytes expand to more than 100 times that/,
    after: (t) => expect(fs.readdirSync(t).filter((n) => n !== '.cdk-efs-kit')).toEqual([]),
  },
  {
    name: 'a tar name that goes on after a NUL is refused, not cut short',
    via: ['cli', 'handler'], legit: false,
    source: { tar: [{ name: 'evil\0.txt', content: 'x' }, { name: 'fine', content: 'fine' }] },
    exit: 1, message: /a name in its header goes on after a NUL byte/,
    after: (t) => expect(fs.readdirSync(t).filter((n) => n !== '.cdk-efs-kit')).toEqual(['fine']),
  },
  {
    name: 'setuid and setgid bits in an archive are dropped, and the umask applies',
    via: ['cli', 'handler'],
    source: { tar: [{ name: 'bin/tool', content: '#!/bin/sh', mode: 0o6777 }, { name: 'shared/', type: 'directory', mode: 0o7777 }] },
    exit: 0,
    after: (t) => {
      expect(fs.statSync(path.join(t, 'bin/tool')).mode & 0o7777).toBe(0o777 & ~umask);
      expect(fs.statSync(path.join(t, 'shared')).mode & 0o7777).toBe(0o1777 & ~umask);
    },
  },
  {
    name: 'FIFOs and devices are skipped, and reported',
    via: ['cli', 'handler'],
    source: { tar: [{ name: 'pipe', type: 'fifo' }, { name: 'tty', type: 'character-device' }, { name: 'file', content: 'f' }] },
    exit: 0, message: /skipped[^]*(pipe|tty)/,
    after: (t) => expect(fs.readdirSync(t).filter((n) => n !== '.cdk-efs-kit')).toEqual(['file']),
  },
  {
    name: 'a target sub-path through a planted symlink is refused',
    via: ['handler'], props: { TargetSubPath: 'www/site' },
    source: { tree: { a: 'a' } },
    plant: 'mkdir -p "$M" && ln -s "$OUT" "$M/www"',
    exit: 2, message: /refused "www\/site": www exists on the file system and is not a directory \(a symlink is never followed\)/,
  },
  // Links judged against the target as it really is.
  {
    name: 'a link whose write loses to a directory already there is judged again, against that directory, and removed',
    via: ['cli', 'handler'], unprivileged: true, legit: false,
    source: { tar: [{ name: 'a/b/c/', type: 'directory' }, { name: 's', type: 'symlink', linkname: 'a/b/c' }, { name: 'x', type: 'symlink', linkname: 's/../../../outside/secret' }] },
    plant: 'mkdir -p "$T/s" && echo own > "$T/s/own"',
    exit: 1, message: /refused \\?"x\\?": the link points outside the target \(s\/\.\.\/\.\.\/\.\.\/outside\/secret\), as the target is now; removed/,
    after: (t) => {
      expect(fs.existsSync(path.join(t, 'x'))).toBe(false);
      expect(text(t, 's/own')).toBe('own\n');
    },
  },
  {
    name: 'a link that leads through a link already in the target is judged by where that link leads',
    via: ['cli', 'handler'], unprivileged: true, legit: false,
    source: { tar: [{ name: 'x', type: 'symlink', linkname: 'up/outside/secret' }, { name: 'fine', content: 'fine' }] },
    plant: 'mkdir -p "$T" && ln -s ../.. "$T/up"',
    exit: 1, message: /refused "x": the link leads through the link "up", which leaves the target or is refused/,
    after: (t) => {
      expect(fs.existsSync(path.join(t, 'x'))).toBe(false);
      expect(text(t, 'fine')).toBe('fine');
    },
  },
  {
    name: 'a link through a link already in the target that stays inside (a shared directory, Capistrano style) is written',
    via: ['cli', 'handler'],
    source: { tar: [{ name: 'current/config', type: 'symlink', linkname: '../app-data/config.yml' }] },
    plant: 'mkdir -p "$T/shared/data" && echo yml > "$T/shared/data/config.yml" && ln -s shared/data "$T/app-data"',
    exit: 0,
    after: (t) => expect(text(t, 'current/config')).toBe('yml\n'),
  },
  {
    // Judged name by name again for each link, this took a minute and 360 MB (each target is walked once now).
    name: '120 links chained one through the next, each target 4,000 bytes, are judged in one pass',
    via: ['cli', 'handler'],
    source: { tar: [{ name: 'l0', content: 'end' }, ...Array.from({ length: 120 }, (_, i) => ({ name: `l${i + 1}`, type: 'symlink' as const, linkname: `l${i}${'/s/..'.repeat(790)}` }))] },
    exit: 0,
    after: (t) => expect(fs.readlinkSync(path.join(t, 'l120'))).toBe(`l119${'/s/..'.repeat(790)}`),
  },
  // Deleted only while still as the seed wrote it.
  {
    name: 'a seeded link replaced with a file of the user\'s own is kept by prune, and no longer the seed\'s',
    via: ['cli', 'handler'], unprivileged: true,
    first: { tar: [{ name: 'target-file', content: 't' }, { name: 'l', type: 'symlink', linkname: 'target-file' }] },
    source: { tar: [{ name: 'target-file', content: 't' }] }, prune: true,
    plant: 'rm "$T/l" && echo mine > "$T/l"',
    exit: 0, message: /kept 1 file changed since seeded \(\\?"l\\?"\)/,
    after: (t) => {
      expect(text(t, 'l')).toBe('mine\n');
      expect(manifestPaths(t)).toEqual(['target-file']);
    },
  },
  {
    name: 'an earlier seed\'s link that a new link would make climb out, but which the user has replaced since, is kept',
    via: ['cli', 'handler'], unprivileged: true,
    first: { tar: [{ name: 'a/', type: 'directory' }, { name: 'x', type: 'symlink', linkname: 'a/l/../../y' }] },
    source: { tar: [{ name: 'a/', type: 'directory' }, { name: 'a/l', type: 'symlink', linkname: '..' }] },
    plant: 'rm "$T/x" && ln -s a/l/../../z "$T/x"',
    exit: 0, message: /kept \\?"x\\?": an earlier seed wrote a link there that would now lead out of the target, but it has changed since/,
    after: (t) => expect(fs.readlinkSync(path.join(t, 'x'))).toBe('a/l/../../z'),
  },
  {
    name: 'an earlier seed\'s link the user has replaced with a file is no link any more: a new link cannot make it climb out',
    via: ['cli', 'handler'], unprivileged: true,
    first: { tar: [{ name: 'a/', type: 'directory' }, { name: 'x', type: 'symlink', linkname: 'a/l/../../y' }] },
    source: { tar: [{ name: 'a/', type: 'directory' }, { name: 'a/l', type: 'symlink', linkname: '..' }] },
    plant: 'rm "$T/x" && echo mine > "$T/x"',
    exit: 0,
    after: (t) => expect(text(t, 'x')).toBe('mine\n'),
  },
  {
    name: 'a seeded settings file the application rewrote since (in place) is kept by prune',
    via: ['cli', 'handler'],
    first: { tree: { 'config.php': 'seeded', 'keep': 'k' } },
    source: { tree: { keep: 'k' } }, prune: true,
    plant: 'printf rewritten > "$T/config.php"',
    exit: 0, message: /kept 1 file changed since seeded \(\\?"config\.php\\?"\)/,
    after: (t) => expect(text(t, 'config.php')).toBe('rewritten'),
  },
  {
    name: 'a seeded settings file the target\'s owner replaced with her own is kept by prune',
    via: [], unprivileged: true,
    first: { tree: { 'config.php': 'seeded', 'keep': 'k' } },
    source: { tree: { keep: 'k' } }, prune: true,
    plant: 'rm "$T/config.php" && printf rewritten > "$T/config.php"',
    exit: 0, message: /kept 1 file changed since seeded \("config\.php"\)/,
    after: (t) => expect(text(t, 'config.php')).toBe('rewritten'),
  },
  {
    name: 'a seeded file rewritten in place to the same size is kept by prune (its modification time moved)',
    via: ['cli'],
    first: { tree: { 'config.php': 'seeded', 'keep': 'k' } },
    source: { tree: { keep: 'k' } }, prune: true,
    plant: 'sleep 0.01 && printf SEEDED > "$T/config.php"',
    exit: 0, message: /kept 1 file changed since seeded/,
    after: (t) => expect(text(t, 'config.php')).toBe('SEEDED'),
  },
  {
    name: 'removeOnDelete keeps a seeded file the application rewrote since, and removes the rest',
    via: ['handler'], request: 'Delete', props: { RemoveOnDelete: 'true' },
    first: { tree: { 'config.php': 'seeded', 'other': 'o', 'sub/deep': 'd' } },
    source: { tree: { 'config.php': 'seeded' } },
    plant: 'printf rewritten > "$T/config.php"',
    exit: 0, message: /kept files that changed since the seed wrote them/,
    after: (t) => {
      expect(fs.readdirSync(t)).toEqual(['config.php']);
      expect(text(t, 'config.php')).toBe('rewritten');
    },
  },
  {
    name: 'a forged manifest in a state directory the target\'s owner made first does not make root delete what she cannot',
    via: [], unprivileged: true, legit: false,
    first: { tree: { 'rootdir/secret': 'root only', 'a': 'a' } },
    source: { tree: { a: 'a' } }, prune: true,
    // She learns the root-owned file's inode, size and modification time, and writes them down as the seed would.
    plant: 'mv "$T/.cdk-efs-kit" "$T/old-state" && mkdir "$T/.cdk-efs-kit" && f="$T/rootdir/secret" '
      + '&& printf \'{"version":3,"files":["rootdir/secret","x","%s:%s:%s"]}\' "$(stat -c %i "$f")" "$(stat -c %s "$f")" "$(stat -c %.9Y "$f" | tr -d .)" > "$T/.cdk-efs-kit/seed-manifest.json"',
    exit: 2, message: /\.cdk-efs-kit belongs to uid 65534, not to uid 0 that this seed writes as/,
    after: (t) => expect(text(t, 'rootdir/secret')).toBe('root only'),
  },
  {
    name: 'a manifest in the seed\'s state directory that belongs to another user is refused',
    via: ['cli', 'handler'],
    first: { tree: { a: 'a' } },
    source: { tree: { a: 'a' } }, prune: true,
    plant: 'chown 65534 "$T/.cdk-efs-kit/seed-manifest.json"',
    exit: 2, message: /\.cdk-efs-kit\/seed-manifest\.json belongs to uid 65534, not to uid 0 that this seed writes as/,
    after: (t) => expect(text(t, 'a')).toBe('a'),
  },
  {
    name: 'a manifest larger than a seed reads is ignored unread (every file is checked and rewritten)',
    via: ['cli', 'handler'],
    first: { tree: { a: 'a' } },
    source: { tree: { a: 'a' } },
    plant: 'truncate -s 70000000 "$T/.cdk-efs-kit/seed-manifest.json"',
    exit: 0, message: /ignored the manifest \(it is 70000000 bytes, more than the 67108864 a seed reads\)/,
  },
  // One entry, one kind.
  {
    name: 'a file and entries below a path of the same name: the later ones fail alone, the rest is published',
    via: ['cli', 'handler'], legit: false,
    source: { tar: [{ name: 'a', content: 'file' }, { name: 'a/b', content: 'x' }, { name: 'dir/c', content: 'c' }] },
    exit: 1, message: /refused "a\/b": the source also has a file or link at "a", so it cannot be a directory/,
    after: (t) => {
      expect(text(t, 'a')).toBe('file');
      expect(text(t, 'dir/c')).toBe('c');
    },
  },
  ...[
    ['TargetSubPath', '../../elsewhere', /TargetSubPath must be a relative path under the mount path/],
    ['TargetSubPath', '/etc', /TargetSubPath must be a relative path/],
    ['TargetSubPath', '.cdk-efs-kit', /TargetSubPath must be a relative path/],
    ['MountPath', '/etc', /MountPath must be \/mnt\/<name>, got "\/etc"/],
    ['MountPath', '/mnt/x/../../etc', /MountPath must be \/mnt\/<name>/],
    ['Concurrency', '100000', /Concurrency must be an integer from 1 to 1024/],
    ['Format', 'cpio', /Format must be one of/],
  ].map(([prop, value, message]): Case => ({
    name: `a request with ${prop} ${JSON.stringify(value)} is refused before anything is touched`,
    via: ['handler'], props: { [prop as string]: value as string },
    source: { tree: { a: 'a' } },
    exit: 2, message: message as RegExp, legit: false,
  })),
];

const umask = process.umask();
const bombs = { zip: '', tarGz: '' };

function zipWithLongLink(file: string): string {
  execFileSync('python3', ['-c', `
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
    info = zipfile.ZipInfo('big')
    info.external_attr = 0o120777 << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, b'a' * 50_000_000)
    z.writestr('fine.txt', 'fine')
`, file]);
  return file;
}

useHostileHarness();
beforeAll(() => {
  bombs.zip = path.join(fixturesDir(), 'bomb.zip');
  bombs.tarGz = path.join(fixturesDir(), 'bomb.tar.gz');
  makeZipBomb(bombs.zip, 2);
  makeTarGzBomb(bombs.tarGz, 2);
}, 120_000);

runHostileCases(CASES);

describe('through the CLI, its own refusals', () => {
  let work: string;
  beforeEach(() => { work = tempDir('hostile-cli-'); });
  afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

  test.each([
    ['the source as the target', (src: string) => src, /the source .* and the target .* overlap \(they are the same directory\)/],
    ['a target inside the source', (src: string) => path.join(src, 'copy'), /overlap \(the target is inside the source\)/],
    ['a source inside the target', (src: string) => path.dirname(src), /overlap \(the source is inside the target\)/],
    ['a target on /proc', () => '/proc/self/cdk-efs-kit-test', /is on a proc file system, not a place for files/],
    ['a target under /dev', () => '/dev/cdk-efs-kit-test', /is under \/dev, not a place for files/],
  ])('refuses %s (exit 2) and writes nothing', async (_name, targetOf, message) => {
    const src = await materialize({ tree: { a: 'a', 'b/c': 'c' } }, work);
    const before = snapshot(src);
    const outcome = runCli(src, targetOf(src));
    expect(outcome).toMatchObject({ exit: 2, output: expect.stringMatching(message) });
    expect(snapshot(src)).toEqual(before);
  });

  (isRoot ? test : test.skip)('an unreadable source directory fails its own entries, not the run, and leaves no scratch directory', () => {
    const src = path.join(work, 'src');
    fs.mkdirSync(path.join(src, 'ok'), { recursive: true });
    fs.mkdirSync(path.join(src, 'locked'));
    fs.writeFileSync(path.join(src, 'ok', 'a'), 'a');
    fs.writeFileSync(path.join(src, 'locked', 'b'), 'b');
    fs.chmodSync(path.join(src, 'locked'), 0);
    const target = path.join(work, 'target');
    fs.mkdirSync(target);
    fs.chownSync(target, 65534, 65534);
    openToOtherUsers(work);
    // Root reads every directory: run the CLI as nobody (a copy nobody can reach, wherever the checkout is).
    const result = spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, cliForOtherUsers(), 'seed', src, target], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('locked: cannot list the source directory: EACCES');
    expect(text(target, 'ok/a')).toBe('a');
    expect(fs.readdirSync(path.join(target, '.cdk-efs-kit')).sort()).toEqual(['run-tokens.json', 'seed-manifest.json']);
  });

  test('the state directory is private to the seeding user, the manifest too', () => {
    const src = path.join(work, 'src');
    fs.mkdirSync(src);
    fs.writeFileSync(path.join(src, 'a'), 'a');
    expect(runCli(src, path.join(work, 'target')).exit).toBe(0);
    expect(fs.statSync(path.join(work, 'target', '.cdk-efs-kit')).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(work, 'target', '.cdk-efs-kit', 'seed-manifest.json')).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(work, 'target')).mode & 0o777).toBe(0o777 & ~umask);
  });

  test('a state directory an earlier version left world-writable is made private', () => {
    const src = path.join(work, 'src');
    fs.mkdirSync(src);
    fs.writeFileSync(path.join(src, 'a'), 'a');
    fs.mkdirSync(path.join(work, 'target', '.cdk-efs-kit'), { recursive: true });
    fs.chmodSync(path.join(work, 'target', '.cdk-efs-kit'), 0o777);
    expect(runCli(src, path.join(work, 'target')).exit).toBe(0);
    expect(fs.statSync(path.join(work, 'target', '.cdk-efs-kit')).mode & 0o777).toBe(0o700);
  });
});

describe('the batch worker checks its input too', () => {
  test.each([
    [{ MountPath: '/etc' }, /MountPath must be \/mnt\/<name>/],
    [{ TargetSubPath: '..' }, /TargetSubPath must be a relative path/],
    [{ Prune: 'yes' }, /Prune must be 'true' or 'false'/],
  ])('refuses %j', async (override, message) => {
    const BatchInput = {
      Bucket: 'sources', Key: 'data/', Format: 's3-objects', Fingerprint: 'v1', MountPath: '/mnt/seed', TargetSubPath: '',
      Concurrency: '4', Prune: 'false', RemoveOnDelete: 'false', ...override,
    };
    await expect(seedHandler().copyBatch({ Items: [{ Key: 'data/a', Size: 1 }], BatchInput }, { getRemainingTimeInMillis: () => 900_000 })).rejects.toThrow(message);
  });
});
