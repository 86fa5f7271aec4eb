import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import { Case, runHostileCases, text, useHostileHarness } from '../../helpers/hostile-harness';
import { gnuLongHeader, gzippedZeros, paxHeader, TAR_END, tarData, tarFile, tarHeader, zipArchive, ZipMemberSpec } from '../../helpers/archive-crafting';

// Hostile archives (see helpers/hostile-harness.ts): archives written byte by byte to lie about
// their sizes, hide members or names from a reader, or expand far past what they declare. Each is
// run through the CLI and through the bundled handler on efs-sim, a sentinel tree outside the
// target checked unchanged; each is refused or harmless, with its message, and leaves nothing
// half-written; an honest archive of the same shape seeds.

/** A source that is this archive, written when the case runs. */
const archive = (name: string, bytes: () => Buffer) => ({ file: (dir: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, bytes());
  return file;
} });

/** The names the seed left in the target that only an unfinished write leaves: temporary files, unpublished directories. */
function leftovers(target: string): string[] {
  return (fs.readdirSync(target, { recursive: true }) as string[])
    .filter((name) => path.basename(name).startsWith('.cdk-efs-kit-') && !name.startsWith('.cdk-efs-kit/'));
}

/**
 * The files in the target, the seed's state apart, and the names FUSE gives a file unlinked before
 * its release reached efs-sim (a failed write's file: removed once the release arrives).
 */
const files = (target: string) => (fs.readdirSync(target, { recursive: true }) as string[])
  .filter((name) => !name.startsWith('.cdk-efs-kit') && !path.basename(name).startsWith('.fuse_hidden') && fs.statSync(path.join(target, name)).isFile()).sort();

const MB = 1_000_000;

/** Matches output that holds each of these, in any order (failures are reported as they happen). */
const all = (...patterns: RegExp[]) => new RegExp(patterns.map((p) => `(?=[^]*${p.source})`).join(''));

/** Files in three directories, some of whose deflated data holds more than their headers declare (streamed, and small ones read whole). */
function manyMembers(lie: boolean): ZipMemberSpec[] {
  return Array.from({ length: 24 }, (_, i) => [
    { name: `d${i % 3}/ok${i}`, content: Buffer.alloc(600_000, i) },
    { name: `d${i % 3}/liar${i}`, content: Buffer.alloc(600_000, i), declaredSize: lie ? 300_000 : undefined },
    { name: `d${i % 3}/small${i}`, content: Buffer.alloc(5000, i), declaredSize: lie ? 1000 : undefined },
  ]).flat();
}

/** A .tar.gz whose first header declares 1 GiB of data (zeros), then an honest file. */
const declaresAGibibyte = (type: string) => Buffer.concat([
  zlib.gzipSync(tarHeader({ name: 'padding', type, size: 1024 ** 3, linkname: 'a.txt' })),
  gzippedZeros(16),
  zlib.gzipSync(Buffer.concat([tarFile('a.txt', 'a'), TAR_END])),
]);

/** A tar in which `before` frames a header named 'evil\0.txt' as data or as a header, followed by an honest file. */
const nulBehind = (before: (inner: Buffer) => Buffer[]) => archive('hidden.tar', () => Buffer.concat([...before(tarFile('evil\0.txt', 'e')), tarFile('z.txt', 'z'), TAR_END]));

const CASES: Case[] = [
  {
    name: 'a zip whose Zip64 end record declares 5,000,000 members is refused before its directory is read',
    via: ['cli', 'handler'], legit: false,
    source: archive('entries.zip', () => zipArchive([{ name: 'a', content: 'a' }], { zip64: true, declaredEntries: 5_000_000 })),
    exit: 2, message: /the archive declares 5000000 members, more than 1000000 \(raise maxEntries \(archiveLimits\.maxEntries, --max-entries\) if the archive is trusted\)/,
    after: (t) => expect(files(t)).toEqual([]),
  },
  {
    name: 'a zip whose end record declares more members than its directory can hold is refused as damaged',
    via: ['cli', 'handler'], legit: false,
    source: archive('count.zip', () => zipArchive([{ name: 'a', content: 'a' }], { declaredEntries: 60_000 })),
    exit: 2, message: /is not a readable \.zip archive: its end record declares 60000 members in a central directory of 47 bytes, too small to hold them/,
  },
  {
    name: 'zip members whose data holds more than they declare, many at once: each fails alone, nothing half-written, the rest written',
    via: ['cli', 'handler'], legit: false,
    source: archive('liars.zip', () => zipArchive(manyMembers(true))),
    exit: 1, message: all(/d\d\/liar\d+: the member declares 300000 bytes but holds more/, /d\d\/small\d+: the member declares 1000 bytes but holds more/),
    after: (t) => {
      expect(leftovers(t)).toEqual([]);
      expect(files(t)).toEqual(Array.from({ length: 24 }, (_, i) => `d${i % 3}/ok${i}`).sort());
      expect(fs.statSync(path.join(t, 'd0/ok0')).size).toBe(600_000);
    },
  },
  {
    name: 'an honest zip of the same shape seeds whole',
    via: ['cli', 'handler'],
    source: archive('honest.zip', () => zipArchive(manyMembers(false))),
    exit: 0,
    after: (t) => expect(files(t)).toHaveLength(72),
  },
  {
    name: 'zip members whose data holds less than they declare fail alone',
    via: ['cli', 'handler'], legit: false,
    source: archive('short.zip', () => zipArchive([{ name: 'big', content: Buffer.alloc(MB), declaredSize: 2 * MB }, { name: 'small', content: 'abc', declaredSize: 10 }, { name: 'fine', content: 'fine' }])),
    exit: 1, message: all(/big: the member declares 2000000 bytes but holds less \(1000000\)/, /small: the member declares 10 bytes but holds less \(3\)/),
    after: (t) => {
      expect(files(t)).toEqual(['fine']);
      expect(leftovers(t)).toEqual([]);
    },
  },
  {
    name: 'a stored zip member whose data runs on past its declared size fails its CRC-32 check',
    via: ['cli', 'handler'], legit: false,
    source: archive('stored.zip', () => zipArchive([{ name: 'cut', content: 'all of this', method: 0, declaredSize: 3, declaredCompressedSize: 3 }, { name: 'fine', content: 'fine' }])),
    exit: 1, message: /cut: the member's content does not match the CRC-32 the archive declares for it: the archive is damaged/,
    after: (t) => expect(files(t)).toEqual(['fine']),
  },
  {
    name: 'a zip symlink whose target holds more than it declares fails alone (it used to stop the run)',
    via: ['cli', 'handler'], legit: false,
    source: archive('link.zip', () => zipArchive([{ name: 'link', content: 'a/much/longer/target', declaredSize: 3, unixMode: 0o120777 }, { name: 'fine', content: 'fine' }])),
    exit: 1, message: /link: the member declares 3 bytes but holds more/,
    after: (t) => expect(fs.readdirSync(t).filter((n) => n !== '.cdk-efs-kit')).toEqual(['fine']),
  },
  {
    name: 'encrypted zip members, members of other compression methods and members whose data would run into the directory fail alone',
    via: ['cli', 'handler'], legit: false,
    source: archive('odd.zip', () => zipArchive([
      { name: 'secret', content: 'x', flags: 1 },
      { name: 'bzip2', content: 'x', method: 12 },
      { name: 'overlong', content: 'x', method: 0, declaredSize: 5000, declaredCompressedSize: 5000 },
      { name: 'fine', content: 'fine' },
    ])),
    exit: 1, message: all(/secret: the member is encrypted/, /bzip2: the member is compressed with method 12/, /overlong: its 5000 bytes of data would run into the central directory/),
    after: (t) => expect(files(t)).toEqual(['fine']),
  },
  {
    name: 'a member after the end-of-archive marker is not extracted (tar -t does not list it)',
    via: ['cli', 'handler'],
    source: archive('after.tar', () => Buffer.concat([tarFile('a.txt', 'a'), TAR_END, tarFile('hidden.txt', 'h'), TAR_END])),
    exit: 0,
    after: (t) => expect(files(t)).toEqual(['a.txt']),
  },
  {
    name: 'a member after a lone zero block is not extracted (GNU tar stops there too)',
    via: ['cli', 'handler'],
    source: archive('lone.tar', () => Buffer.concat([tarFile('a.txt', 'a'), Buffer.alloc(512), tarFile('hidden.txt', 'h'), TAR_END])),
    exit: 0,
    after: (t) => expect(files(t)).toEqual(['a.txt']),
  },
  {
    name: '4 GiB of zeros after a .tar.gz\'s end-of-archive marker are never gunzipped',
    via: ['cli', 'handler'],
    source: archive('trailing.tar.gz', () => Buffer.concat([zlib.gzipSync(Buffer.concat([tarFile('a.txt', 'a'), TAR_END])), gzippedZeros(64)])),
    exit: 0,
    after: (t) => expect(text(t, 'a.txt')).toBe('a'),
  },
  ...[['6', 'a FIFO'], ['2', 'a symlink'], ['V', 'a volume label']].map(([type, what]): Case => ({
    name: `1 GiB of zeros as ${what}'s data in a 1 MB .tar.gz trips the compression ratio`,
    via: ['cli', 'handler'], legit: false,
    source: archive('padded.tar.gz', () => declaresAGibibyte(type)),
    exit: 2, message: /\.tar\.gz: stopped at "padding": the archive's \d+ bytes expand to more than 100 times that \(\d+ bytes so far\): a compression bomb\? \(raise maxCompressionRatio/,
    after: (t) => expect(files(t)).toEqual([]),
  })),
  {
    name: 'a NUL name hidden behind a directory header with a size is read as GNU tar reads it, and refused',
    via: ['cli', 'handler'], legit: false,
    source: nulBehind((inner) => [tarHeader({ name: 'd/', type: '5', size: inner.length }), inner]),
    exit: 1, message: /evil: a name in its header goes on after a NUL byte, which would cut it short/,
    after: (t) => expect(files(t)).toEqual(['z.txt']),
  },
  {
    name: 'a NUL name hidden behind a pax size record is read as GNU tar reads it, and refused',
    via: ['cli', 'handler'], legit: false,
    source: nulBehind((inner) => [paxHeader({ size: '0' }), tarHeader({ name: 'empty.txt', size: inner.length }), inner]),
    exit: 1, message: /evil: a name in its header goes on after a NUL byte/,
    after: (t) => expect(files(t)).toEqual(['empty.txt', 'z.txt']),
  },
  {
    name: 'NUL names in a GNU long name, a pax path and a pax link path are refused',
    via: ['cli', 'handler'], legit: false,
    source: archive('names.tar', () => Buffer.concat([
      gnuLongHeader('long-evil\0.txt\0'), tarFile('x', 'x'),
      paxHeader({ path: 'pax-evil\0.txt' }), tarFile('y', 'y'),
      paxHeader({ linkpath: 'a.txt\0../../x' }), tarHeader({ name: 'link', type: '2', linkname: 'a.txt' }),
      tarFile('z.txt', 'z'), TAR_END,
    ])),
    exit: 1, message: all(/long-evil: a name in its header goes on after a NUL byte/, /pax-evil\\x00\.txt: a name in its header/, /link: a name in its header goes on after a NUL byte/),
    after: (t) => expect(fs.readdirSync(t).filter((n) => n !== '.cdk-efs-kit')).toEqual(['z.txt']),
  },
  {
    name: 'an old-style directory header with data: the data is passed over, as GNU tar does, a header inside it never read',
    via: ['cli', 'handler'],
    source: archive('old-dir.tar', () => {
      const inner = tarFile('inner.txt', 'i');
      return Buffer.concat([tarHeader({ name: 'old/', type: '0', size: inner.length }), inner, tarFile('z.txt', 'z'), TAR_END]);
    }),
    exit: 0,
    after: (t) => {
      expect(files(t)).toEqual(['z.txt']);
      expect(fs.statSync(path.join(t, 'old')).isDirectory()).toBe(true);
    },
  },
  {
    name: 'a tar member cut short by the end of the archive: refused naming the member, nothing half-written',
    via: ['cli', 'handler'], legit: false,
    source: archive('cut.tar', () => Buffer.concat([tarFile('a.txt', 'a'), tarHeader({ name: 'big.bin', size: 3 * 1024 * 1024 }), Buffer.alloc(2 * 1024 * 1024, 7)])),
    exit: 2, message: /\.tar is not a readable \.tar archive: the archive ends inside "big\.bin": the member declares 3145728 bytes but holds 2097152/,
    after: (t) => {
      expect(files(t).filter((n) => n.endsWith('big.bin'))).toEqual([]);
      expect(leftovers(t)).toEqual([]);
    },
  },
  {
    name: 'a pax header of 2 MiB is refused before it is held',
    via: ['cli', 'handler'], legit: false,
    source: archive('pax.tar', () => Buffer.concat([tarHeader({ name: 'PaxHeaders/x', type: 'x', size: 2 * 1024 * 1024 }), tarData(Buffer.alloc(2 * 1024 * 1024, 0x31)), tarFile('a', 'a'), TAR_END])),
    exit: 2, message: /\.tar is not a readable \.tar archive: a header of type x holds 2097152 bytes, more than the 1048576 such headers are read to/,
  },
  {
    name: 'an honest tar with pax paths, GNU long names, links and an 8 GiB-style base-256 size field seeds',
    via: ['cli', 'handler'],
    source: archive('honest.tar', () => Buffer.concat([
      paxHeader({ path: `${'p'.repeat(120)}/pax.txt` }), tarFile('short', 'pax'),
      gnuLongHeader(`${'g'.repeat(120)}/gnu.txt\0`), tarFile('short2', 'gnu'),
      tarHeader({ name: 'link', type: '2', linkname: 'a.txt' }),
      tarFile('a.txt', 'a', { base256Size: true }),
      TAR_END,
    ])),
    exit: 0,
    after: (t) => {
      expect(text(t, `${'p'.repeat(120)}/pax.txt`)).toBe('pax');
      expect(text(t, `${'g'.repeat(120)}/gnu.txt`)).toBe('gnu');
      expect(fs.readlinkSync(path.join(t, 'link'))).toBe('a.txt');
      expect(text(t, 'a.txt')).toBe('a');
    },
  },
];

useHostileHarness();
runHostileCases(CASES);
