import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { Readable } from 'stream';
import { ArchiveLimitError } from '../../../../lambda/seed/sources/archive-limits';
import { localFileReader, RangeReader } from '../../../../lambda/seed/sources/range-reader';
import { openNamedFile } from '../../../../lambda/seed/boundary/named-source';
import { ZipArchiveSource } from '../../../../lambda/seed/sources/zip-archive';
import { directoryRecords } from '../../../../lambda/seed/sources/zip-directory';
import { readZipEnd } from '../../../../lambda/seed/sources/zip-end';
import { readMember, WHOLE_MEMBER_BYTES } from '../../../../lambda/seed/sources/zip-member';
import { zipArchive, ZipMemberSpec, ZipSpec } from '../../../helpers/archive-crafting';
import { tempDir } from '../../../helpers/seed-fixtures';

// The zip reader: its end records read first, its central directory read in pieces, each member
// held to what the directory declares; on zips written by hand, through a reader that counts reads.

/** A zip in memory, read as the seed reads one, every read recorded. */
function inMemory(archive: Buffer) {
  const reads: Array<{ position: number; length: number }> = [];
  const reader: RangeReader = {
    size: archive.length,
    async read(position, length) {
      reads.push({ position, length });
      if (position + length > archive.length) throw new Error('past the end');
      return Buffer.from(archive.subarray(position, position + length));
    },
    stream(start, end) {
      reads.push({ position: start, length: end - start });
      return Readable.from([archive.subarray(start, end)]);
    },
    close: async () => undefined,
  };
  return { reader, reads, bytesRead: () => reads.reduce((sum, r) => sum + r.length, 0) };
}

function source(archive: Buffer, limits = {}) {
  const zip = inMemory(archive);
  return { zip, source: new ZipArchiveSource('test.zip', async () => zip.reader, limits) };
}

async function listed(archive: Buffer, limits = {}) {
  const names: string[] = [];
  for await (const entry of source(archive, limits).source.entries()) names.push(entry.path);
  return names;
}

/** A member's content as the seed would get it, or the message it fails with. */
async function contentOf(member: ZipMemberSpec, spec: ZipSpec = {}): Promise<string> {
  const archive = zipArchive([member, { name: 'after', content: 'after' }], spec);
  const { reader } = inMemory(archive);
  const end = await readZipEnd(reader);
  for await (const record of directoryRecords(reader, end)) {
    try {
      const content = await readMember(reader, record, end.directoryOffset);
      if (Buffer.isBuffer(content)) return content.toString();
      const chunks: Buffer[] = [];
      for await (const chunk of content) chunks.push(chunk);
      return Buffer.concat(chunks).toString();
    } catch (err) {
      return `failed: ${(err as Error).message}`;
    }
  }
  throw new Error('no member');
}

describe('the end records', () => {
  test('a zip\'s Zip64 end record that declares 5,000,000 members is refused from the last few bytes alone', async () => {
    const { zip, source: zipSource } = source(zipArchive([{ name: 'a', content: 'a' }], { zip64: true, declaredEntries: 5_000_000 }));
    const error = await (async () => { for await (const _ of zipSource.entries()); })().catch((err) => err);
    expect(error).toBeInstanceOf(ArchiveLimitError);
    expect(error.message).toBe('test.zip: the archive declares 5000000 members, more than 1000000 (raise maxEntries (archiveLimits.maxEntries, --max-entries) if the archive is trusted)');
    // The tail of the archive (it is short: all of it) and the Zip64 end record; not the directory.
    expect(zip.reads).toHaveLength(2);
    expect(zip.reads[1].length).toBe(56);
  });

  test('the plain end record\'s count is held to the limit too', async () => {
    const members = Array.from({ length: 30 }, (_, i) => ({ name: `f${i}`, content: 'x' }));
    await expect(listed(zipArchive(members), { maxEntries: 20 })).rejects.toThrow('test.zip: the archive declares 30 members, more than 20 (raise maxEntries');
  });

  test('a count the central directory is too small to hold is refused as damaged', async () => {
    await expect(listed(zipArchive([{ name: 'a', content: 'a' }], { declaredEntries: 1000 })))
      .rejects.toThrow(/test\.zip is not a readable \.zip archive: its end record declares 1000 members in a central directory of 47 bytes, too small to hold them/);
  });

  test('an end-record signature inside the comment does not pass for the record', async () => {
    const fake = Buffer.alloc(22);
    fake.writeUInt32LE(0x06054b50, 0);
    fake.writeUInt16LE(7, 10);
    expect(await listed(zipArchive([{ name: 'a', content: 'a' }], { comment: Buffer.concat([Buffer.from('see: '), fake, Buffer.from(' and more')]) }))).toEqual(['a']);
  });

  test('Zip64 end records and Zip64 sizes in the directory are read', async () => {
    const { reader } = inMemory(zipArchive([{ name: 'a', content: 'aaa', zip64: true }, { name: 'b', content: 'bb' }], { zip64: true }));
    const end = await readZipEnd(reader);
    expect(end.entries).toBe(2);
    const records = [];
    for await (const record of directoryRecords(reader, end)) records.push(record);
    expect(records.map((r) => [r.name, r.size])).toEqual([['a', 3], ['b', 2]]);
    expect((await readMember(reader, records[0], end.directoryOffset)).toString()).toBe('aaa');
  });

  test('not a zip', async () => {
    await expect(listed(Buffer.from('just text, no zip here'))).rejects.toThrow('test.zip is not a readable .zip archive: no end-of-central-directory record');
  });
});

describe('the central directory', () => {
  test('is read in pieces of 1 MiB at most, twice over, never held whole', async () => {
    const members = Array.from({ length: 40_000 }, (_, i) => ({ name: `some/directory/file-${i}.txt`, content: '' }));
    const { zip, source: zipSource } = source(zipArchive(members, { zip64: true }));
    const end = await readZipEnd(zip.reader);
    expect(end.directoryBytes).toBeGreaterThan(2 * 1024 * 1024);
    zip.reads.length = 0;
    let count = 0;
    for await (const _ of zipSource.entries()) count++;
    expect(count).toBe(40_000);
    expect(Math.max(...zip.reads.map((r) => r.length))).toBeLessThanOrEqual(1024 * 1024);
    expect(zip.bytesRead()).toBeLessThan(2 * end.directoryBytes + 2 * 1024 * 1024);
  });

  test('its totals are the first pass\'s, and a member over the limit stops the archive before any is handed out', async () => {
    const { source: zipSource } = source(zipArchive([{ name: 'a', content: 'a' }, { name: 'dir/', content: '' }, { name: 'b', content: 'x'.repeat(2000) }]), { maxMemberBytes: 1000 });
    await expect(zipSource.totals()).resolves.toBeUndefined();
    const handed: string[] = [];
    const run = (async () => { for await (const entry of zipSource.entries()) handed.push(entry.path); })();
    await expect(run).rejects.toThrow('test.zip: stopped at "b": the member is 2000 bytes, over the 1000-byte limit per member');
    expect(handed).toEqual([]);
    await expect(source(zipArchive([{ name: 'a', content: 'a' }, { name: 'dir/', content: '' }])).source.totals()).resolves.toEqual({ files: 1, bytes: 1 });
  });

  test('a record that runs past the directory is refused as damaged', async () => {
    const archive = zipArchive([{ name: 'a', content: 'a' }]);
    archive.writeUInt16LE(500, archive.indexOf(Buffer.from([0x50, 0x4b, 1, 2])) + 30); // an extra field longer than the directory
    await expect(listed(archive)).rejects.toThrow(/test\.zip is not a readable \.zip archive: central directory record 1 of 1 runs past the end of the central directory/);
  });
});

describe('a member\'s content is held to what the directory declares', () => {
  const text = 'the quick brown fox '.repeat(20_000); // 400 KB: streamed
  const small = 'abc'.repeat(1000);

  test.each([
    ['read whole (small)', small],
    ['streamed (large)', text],
  ])('%s: honest members are read, deflated and stored', async (_name, content) => {
    expect(await contentOf({ name: 'm', content })).toBe(content);
    expect(await contentOf({ name: 'm', content, method: 0 })).toBe(content);
  });

  test.each([
    ['small, deflated, holds more', { content: small, declaredSize: 1000 }, 'failed: the member declares 1000 bytes but holds more'],
    ['large, deflated, holds more', { content: text, declaredSize: 300_000 }, 'failed: the member declares 300000 bytes but holds more'],
    ['small, deflated, holds less', { content: small, declaredSize: 5000 }, 'failed: the member declares 5000 bytes but holds less (3000)'],
    ['large, deflated, holds less', { content: text, declaredSize: 500_000 }, 'failed: the member declares 500000 bytes but holds less (400000)'],
    ['stored, data longer than its sizes', { content: small, method: 0, declaredSize: 1000, declaredCompressedSize: 1000 }, /^failed: the member's content does not match the CRC-32/],
    ['stored, sizes that differ', { content: small, method: 0, declaredSize: 5000 }, 'failed: the member declares 5000 bytes but holds less (3000)'],
    ['a wrong CRC-32 (small)', { content: small, declaredCrc: 1 }, /^failed: the member's content does not match the CRC-32 the archive declares for it/],
    ['a wrong CRC-32 (large)', { content: text, declaredCrc: 1 }, /^failed: the member's content does not match the CRC-32 the archive declares for it/],
    ['compressed data cut short', { content: text, declaredCompressedSize: 100 }, /^failed: the member's compressed data is damaged \(unexpected end of file\)/],
    ['encrypted', { content: small, flags: 1 }, 'failed: the member is encrypted: the seed cannot read it'],
    ['compressed with bzip2', { content: small, method: 12 }, 'failed: the member is compressed with method 12; the seed reads stored (0) and deflated (8) members'],
    ['a local header that is not there', { content: small, declaredOffset: 3 }, 'failed: its local header is not where the central directory says (at byte 3)'],
  ] as Array<[string, Partial<ZipMemberSpec>, string | RegExp]>)('%s', async (_name, spec, expected) => {
    const got = await contentOf({ name: 'm', ...spec });
    if (typeof expected === 'string') expect(got).toBe(expected);
    else expect(got).toMatch(expected);
  });

  test.each([
    ['64 MiB of zeros (read whole: 64 KiB compressed)', Buffer.alloc(64 * 1024 * 1024), true],
    ['2 MiB of noise (streamed)', randomBytes(2 * 1024 * 1024), false],
  ])('a member declared 200 KiB that holds %s is stopped at its declared size', async (_name, content, whole) => {
    const archive = zipArchive([{ name: 'bomb', content, declaredSize: 200 * 1024 }]);
    const { reader } = inMemory(archive);
    const end = await readZipEnd(reader);
    for await (const record of directoryRecords(reader, end)) {
      expect(record.compressedSize <= WHOLE_MEMBER_BYTES).toBe(whole);
      let handedOut = 0;
      const read = (async () => {
        const member = await readMember(reader, record, end.directoryOffset);
        for await (const chunk of member as Readable) handedOut += chunk.length;
      })();
      await expect(read).rejects.toThrow('the member declares 204800 bytes but holds more');
      expect(handedOut).toBeLessThanOrEqual(200 * 1024);
    }
  });
});

describe('a zip on disk', () => {
  let work: string;
  beforeEach(() => { work = tempDir('zip-reader-'); });
  afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

  test('many members read at once, half of them lying and given up midway, all settle and the file closes', async () => {
    // The shape that crashed yauzl's file reader (a read queued for a stream destroyed meanwhile).
    const members = Array.from({ length: 60 }, (_, i) => ({ name: `m${i}`, content: Buffer.alloc(600_000, i), declaredSize: i % 2 ? 300_000 : undefined }));
    const file = path.join(work, 'liars.zip');
    fs.writeFileSync(file, zipArchive(members));
    const zipSource = new ZipArchiveSource(file, () => openNamedFile(file).then(localFileReader));
    const outcomes: string[] = [];
    const reads: Promise<void>[] = [];
    for await (const entry of zipSource.entries()) {
      if (entry.type !== 'file') continue;
      reads.push((async () => {
        const content = await entry.open() as Readable;
        let bytes = 0;
        for await (const chunk of content) bytes += chunk.length;
        outcomes.push(`ok ${bytes}`);
      })().catch((err) => { outcomes.push(err.message); }));
    }
    await Promise.all(reads);
    await zipSource.close();
    expect(outcomes.filter((o) => o === 'ok 600000')).toHaveLength(30);
    expect(outcomes.filter((o) => o === 'the member declares 300000 bytes but holds more')).toHaveLength(30);
  });
});
