import * as fs from 'fs';
import * as path from 'path';
import { Readable } from 'stream';
import * as zlib from 'zlib';
import { ArchiveLimitError } from '../../../../lambda/seed/sources/archive-limits';
import { ByteStream } from '../../../../lambda/seed/sources/byte-stream';
import { openSource, parseSourceSpec } from '../../../../lambda/seed/sources/open-source';
import { decodeHeader, decodePax, TarFormatError } from '../../../../lambda/seed/sources/tar-header';
import { TarMember, TarReader } from '../../../../lambda/seed/sources/tar-reader';
import { gnuLongHeader, gzippedZeros, paxHeader, TAR_END, tarData, tarFile, tarHeader } from '../../../helpers/archive-crafting';
import { makeTar, tempDir } from '../../../helpers/seed-fixtures';

// The tar reader is the seed's only parser of a tar: these check what it reads, what it refuses
// and what it counts, byte by byte, on archives written by hand.

/** The archive in chunks of `chunkBytes`, and how many chunks the reader pulled. */
function chunked(archive: Buffer, chunkBytes = 512) {
  const pulled = { chunks: 0 };
  async function* chunks() {
    for (let at = 0; at < archive.length; at += chunkBytes) {
      pulled.chunks++;
      yield archive.subarray(at, at + chunkBytes);
    }
  }
  return { source: chunks(), pulled };
}

/** Every member the reader gives (name, type, problem, data), and the bytes it counted. */
async function readAll(archive: Buffer, chunkBytes = 512) {
  let counted = 0;
  const { source, pulled } = chunked(archive, chunkBytes);
  const reader = new TarReader(new ByteStream(source, (n) => { counted += n; }));
  const members: Array<Pick<TarMember, 'name' | 'type' | 'problem'> & { data?: string }> = [];
  for (let member; (member = await reader.next());) {
    members.push({
      name: member.name, type: member.type,
      ...(member.problem ? { problem: member.problem } : {}),
      ...(member.type === 'file' ? { data: (await reader.readData()).toString() } : {}),
    });
  }
  return { members, counted, pulled: pulled.chunks };
}

describe('tar headers', () => {
  test('octal and base-256 sizes, the ustar prefix, a NUL type flag', () => {
    expect(decodeHeader(tarHeader({ name: 'a', size: 1234 }))).toMatchObject({ name: 'a', size: 1234, typeflag: '0', mode: 0o644 });
    expect(decodeHeader(tarHeader({ name: 'big', size: 9 * 1024 ** 3, base256Size: true })).size).toBe(9 * 1024 ** 3);
    expect(decodeHeader(tarHeader({ name: 'name', prefix: 'some/dir' })).name).toBe('some/dir/name');
    // GNU headers keep other fields where POSIX has the prefix.
    expect(decodeHeader(tarHeader({ name: 'name', prefix: 'x', format: 'gnu' })).name).toBe('name');
    const nulFlag = tarHeader({ name: 'a', type: '\0' });
    expect(decodeHeader(nulFlag).typeflag).toBe('0');
  });

  test.each([
    ['a checksum that does not match', (b: Buffer) => { b[0] ^= 1; }, /checksum does not match/],
    ['neither POSIX nor GNU magic', (b: Buffer) => { b.write('xxxxxx', 257); fixChecksum(b); }, /neither POSIX \(ustar\) nor GNU/],
    ['a size that is not a number', (b: Buffer) => { b.write('12x45670000\0', 124); fixChecksum(b); }, /size field is not a size/],
    ['a negative base-256 size', (b: Buffer) => { b.fill(0xff, 124, 136); fixChecksum(b); }, /size field is not a size/],
  ])('refuses %s', (_name, damage, message) => {
    const block = tarHeader({ name: 'a', size: 1 });
    damage(block);
    expect(() => decodeHeader(block)).toThrow(TarFormatError);
    expect(() => decodeHeader(block)).toThrow(message);
  });

  test('text after a NUL in the name, link name or prefix is noticed', () => {
    expect(decodeHeader(tarHeader({ name: 'evil\0.txt' })).hiddenText).toBe(true);
    expect(decodeHeader(tarHeader({ name: 'l', type: '2', linkname: 'a\0b' })).hiddenText).toBe(true);
    expect(decodeHeader(tarHeader({ name: 'n', prefix: 'dir\0x' })).hiddenText).toBe(true);
    expect(decodeHeader(tarHeader({ name: 'plain' })).hiddenText).toBe(false);
  });

  test('pax records: several, NUL padding after them; malformed ones refused', () => {
    expect(decodePax(Buffer.from('12 path=a/b\n17 linkpath=../x\n\0\0\0'))).toEqual(new Map([['path', 'a/b'], ['linkpath', '../x']]));
    expect(() => decodePax(Buffer.from('99 path=a\n'))).toThrow(/pax header is malformed/);
    expect(() => decodePax(Buffer.from('x path=a\n'))).toThrow(/pax header is malformed/);
    expect(() => decodePax(Buffer.from('9 patha\n\n'))).toThrow(/no '='/);
  });
});

describe('the tar reader', () => {
  test('stops at the end-of-archive marker: a member after it is not read, nor anything after it pulled', async () => {
    const archive = Buffer.concat([tarFile('a.txt', 'a'), TAR_END, tarFile('hidden.txt', 'h'), Buffer.alloc(512 * 100, 7)]);
    const { members, counted, pulled } = await readAll(archive);
    expect(members).toEqual([{ name: 'a.txt', type: 'file', data: 'a' }]);
    // The header, the data block and the first zero block: 3 blocks of 512, in 3 chunks.
    expect({ counted, pulled }).toEqual({ counted: 1536, pulled: 3 });
  });

  test('stops at a lone zero block too, as GNU tar does (with a warning there)', async () => {
    const archive = Buffer.concat([tarFile('a.txt', 'a'), Buffer.alloc(512), tarFile('b.txt', 'b'), TAR_END]);
    expect((await readAll(archive)).members.map((m) => m.name)).toEqual(['a.txt']);
  });

  test('an archive that ends at a member boundary without a marker is whole', async () => {
    expect((await readAll(tarFile('a.txt', 'a'))).members).toEqual([{ name: 'a.txt', type: 'file', data: 'a' }]);
  });

  test('a directory\'s size is no data (GNU tar reads the next header there): a NUL name hidden in it is read, and refused', async () => {
    const inner = tarFile('evil\0.txt', 'e');
    const archive = Buffer.concat([tarHeader({ name: 'd/', type: '5', size: inner.length }), inner, tarFile('z.txt', 'z'), TAR_END]);
    expect((await readAll(archive)).members).toEqual([
      { name: 'd/', type: 'directory' },
      { name: 'evil', type: 'file', problem: expect.stringMatching(/goes on after a NUL byte/), data: 'e' },
      { name: 'z.txt', type: 'file', data: 'z' },
    ]);
  });

  test('a hard link\'s size is no data either; a FIFO\'s, a symlink\'s and an old-style directory\'s are skipped (as GNU tar)', async () => {
    const inner = tarFile('inner.txt', 'i');
    const archive = Buffer.concat([
      tarHeader({ name: 'h', type: '1', linkname: 'z', size: inner.length }), inner,
      tarHeader({ name: 'p', type: '6', size: inner.length }), inner,
      tarHeader({ name: 'l', type: '2', linkname: 't', size: inner.length }), inner,
      tarHeader({ name: 'old/', type: '0', size: inner.length }), inner,
      TAR_END,
    ]);
    expect((await readAll(archive)).members.map((m) => `${m.name}:${m.type}`)).toEqual(['h:link', 'inner.txt:file', 'p:fifo', 'l:symlink', 'old/:directory']);
  });

  test('a pax size record frames the data, not the header\'s size: a NUL name behind it is read, and refused', async () => {
    const inner = tarFile('evil\0.txt', 'e');
    const archive = Buffer.concat([paxHeader({ size: '0' }), tarHeader({ name: 'a.txt', size: inner.length }), inner, TAR_END]);
    expect((await readAll(archive)).members).toEqual([
      { name: 'a.txt', type: 'file', data: '' },
      { name: 'evil', type: 'file', problem: expect.stringMatching(/goes on after a NUL byte/), data: 'e' },
    ]);
  });

  test('pax paths, GNU long names and global records apply; NULs in them are refused', async () => {
    const long = `${'d'.repeat(150)}/file.txt`;
    const archive = Buffer.concat([
      paxHeader({ path: long }), tarFile('short', 'p'),
      gnuLongHeader(`${long}2\0`), tarFile('short2', 'g'),
      gnuLongHeader('evil\0.txt\0'), tarFile('cut', 'x'),
      paxHeader({ path: 'evil\0.txt' }), tarFile('cut2', 'y'),
      paxHeader({ linkpath: 'a\0b' }), tarHeader({ name: 'link', type: '2' }),
      gnuLongHeader('a\0b', 'K'), tarHeader({ name: 'link2', type: '2' }),
      paxHeader({ 'GNU.sparse.major': '1' }), tarFile('sparse', 's'),
      paxHeader({ path: 'everywhere' }, 'g'), tarFile('x', 'g1'),
      TAR_END,
    ]);
    const { members } = await readAll(archive);
    expect(members.map((m) => [m.name, m.problem ? m.problem.split(' ')[0] + '...' : 'ok'])).toEqual([
      [long, 'ok'], [`${long}2`, 'ok'], ['evil', 'a...'], ['evil\0.txt', 'a...'], ['link', 'a...'], ['link2', 'a...'], ['sparse', 'sparse...'], ['everywhere', 'ok'],
    ]);
  });

  test('a member cut short by the end of the archive names the member and what it held', async () => {
    const archive = Buffer.concat([tarHeader({ name: 'big.bin', size: 5000 }), Buffer.alloc(1000)]);
    const reader = new TarReader(new ByteStream(chunked(archive).source, () => undefined));
    await reader.next();
    await expect(reader.readData()).rejects.toThrow('the archive ends inside "big.bin": the member declares 5000 bytes but holds 1000');
  });

  test('headers that describe the next member are read to 1 MiB at most', async () => {
    const archive = Buffer.concat([tarHeader({ name: 'PaxHeaders/x', type: 'x', size: 2 * 1024 * 1024 }), Buffer.alloc(2 * 1024 * 1024)]);
    await expect(readAll(archive)).rejects.toThrow(/a header of type x holds 2097152 bytes, more than the 1048576/);
  });

  test('every byte handed out is counted: headers, data, padding, skipped data, up to the marker', async () => {
    const archive = Buffer.concat([tarFile('a', 'x'.repeat(700)), tarHeader({ name: 'p', type: '6', size: 3000 }), tarData(Buffer.alloc(3000)), paxHeader({ path: 'b' }), tarFile('q', 'y'), TAR_END]);
    const { counted } = await readAll(archive, 100);
    expect(counted).toBe(archive.length - 512);
  });
});

describe('a .tar.gz source: every gunzipped byte counts against the limits', () => {
  let work: string;
  beforeEach(() => { work = tempDir('tar-limits-'); });
  afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

  async function entriesOf(file: string, limits = {}) {
    const { source } = await openSource(parseSourceSpec(file), { limits });
    const names: string[] = [];
    for await (const entry of source.entries()) {
      names.push(entry.path);
      if (entry.type === 'file') {
        const content = await entry.open();
        if (content instanceof Readable) for await (const _ of content);
      }
    }
    return names;
  }

  test('1 GiB of data a FIFO declares, 1 MB gzipped, trips the compression ratio', async () => {
    const file = path.join(work, 'fifo.tar.gz');
    fs.writeFileSync(file, Buffer.concat([zlib.gzipSync(tarHeader({ name: 'pipe', type: '6', size: 1024 ** 3 })), gzippedZeros(16), zlib.gzipSync(Buffer.concat([tarFile('a.txt', 'a'), TAR_END]))]));
    const error = await entriesOf(file).catch((err) => err);
    expect(error).toBeInstanceOf(ArchiveLimitError);
    expect(error.message).toMatch(/fifo\.tar\.gz: stopped at "pipe": the archive's \d+ bytes expand to more than 100 times that .*a compression bomb\?/);
  });

  test('padding and skipped data count against the total size', async () => {
    const file = path.join(work, 'padded.tar');
    fs.writeFileSync(file, Buffer.concat([tarFile('a.txt', 'a'), tarHeader({ name: 'link', type: '2', linkname: 'a.txt', size: 20_000 }), tarData(Buffer.alloc(20_000)), TAR_END]));
    await expect(entriesOf(file, { maxTotalBytes: 16 * 1024 })).rejects.toThrow(/padded\.tar: stopped at "link": the archive expands past the 16384-byte limit \(raise maxTotalBytes/);
    await expect(entriesOf(file)).resolves.toEqual(['a.txt', 'link']);
  });

  test('4 GiB of zeros after the end-of-archive marker are never gunzipped', async () => {
    const file = path.join(work, 'trailing.tar.gz');
    fs.writeFileSync(file, Buffer.concat([zlib.gzipSync(Buffer.concat([tarFile('a.txt', 'a'), TAR_END])), gzippedZeros(64)]));
    // Past the ratio (4 GiB from 4 MB), if they were.
    await expect(entriesOf(file)).resolves.toEqual(['a.txt']);
  });

  test('a large member cut short fails its file and then the archive, naming the member', async () => {
    const file = path.join(work, 'cut.tar');
    await makeTar(file, [{ name: 'a.txt', content: 'a' }, { name: 'big.bin', content: Buffer.alloc(3 * 1024 * 1024, 7) }]);
    fs.truncateSync(file, 2 * 1024 * 1024);
    const { source } = await openSource(parseSourceSpec(file));
    const failures: string[] = [];
    const run = (async () => {
      for await (const entry of source.entries()) {
        if (entry.type !== 'file') continue;
        const content = await entry.open();
        if (content instanceof Readable) await (async () => { for await (const _ of content); })().catch((err) => failures.push(err.message));
      }
    })();
    await expect(run).rejects.toThrow(/cut\.tar is not a readable \.tar archive: the archive ends inside "big\.bin": the member declares 3145728 bytes but holds \d+/);
    expect(failures).toEqual([expect.stringMatching(/the archive ends inside "big\.bin"/)]);
  });
});

function fixChecksum(block: Buffer): void {
  block.fill(' ', 148, 156);
  const sum = block.reduce((total, byte) => total + byte, 0);
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
}
