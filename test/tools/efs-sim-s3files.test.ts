import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import * as fs from 'fs';
import * as path from 'path';
import { describeWithFuse, EfsSim, startEfsSim } from '../helpers/efs-sim';

// The S3 Files profile against the bucket behind it (moto's server on 127.0.0.1, started by the
// tool): the write-back window, the import on first directory access and after the delay, the
// bucket winning a conflict, a rename's per-object copies, and reads from S3. Time is only ever a
// lower bound (a change never arrives before its window, whatever the load); waits poll with a bound.
describeWithFuse('efs-sim s3files profile', () => {
  let sim: EfsSim | undefined;
  afterEach(async () => {
    await sim?.stop();
    sim = undefined;
  });
  const start = async (flags: string[]) => {
    sim = await startEfsSim({ profile: 's3files', flags: ['--latency-any=0', ...flags] });
    const s3 = new S3Client({
      endpoint: sim.s3files!.endpoint, region: 'us-east-1', forcePathStyle: true,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    return { s: sim, s3, bucket: sim.s3files!.bucket };
  };

  /** Polls `fn` until it returns a value other than undefined, for at most `seconds`. */
  async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, seconds = 60): Promise<T> {
    const deadline = Date.now() + seconds * 1000;
    for (;;) {
      const value = await fn();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`${what}: not within ${seconds} s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const keys = async (s3: S3Client, bucket: string) =>
    ((await s3.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? []).map((o) => o.Key!).sort();
  const body = async (s3: S3Client, bucket: string, key: string) =>
    (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key })).then((r) => r.Body!.transformToString()).catch(() => undefined));
  const put = (s3: S3Client, bucket: string, key: string, data: string | Buffer) => s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: data }));

  test('a write reaches the bucket no sooner than the export window, then in one batch', async () => {
    const { s, s3, bucket } = await start(['--export-window=3']);
    const written = Date.now();
    fs.writeFileSync(path.join(s.mount, 'a.txt'), 'one');
    fs.writeFileSync(path.join(s.mount, 'b.txt'), 'two');
    await until('a.txt in the bucket', async () => ((await keys(s3, bucket)).includes('a.txt') ? true : undefined));
    expect(Date.now() - written).toBeGreaterThanOrEqual(3000);
    await until('b.txt in the bucket', async () => ((await keys(s3, bucket)).includes('b.txt') ? true : undefined));
    expect(await body(s3, bucket, 'a.txt')).toBe('one');
    const sync = (await s.stats()).s3files!;
    expect(sync).toMatchObject({ exports: 2, exportBatches: 1, conflicts: 0, pendingExports: 0 });
    expect(sync.s3Requests).toMatchObject({ put: 2, copy: 0, delete: 0 });
  });

  test('the first listing of a directory imports every entry, and the data of files below the threshold only', async () => {
    // Nothing comes in by the delay in this test: only the first access imports.
    const { s, s3, bucket } = await start(['--import-delay=600']);
    await put(s3, bucket, 'docs/small.txt', 'small');
    await put(s3, bucket, 'docs/large.bin', Buffer.alloc(200 * 1024, 7));
    await put(s3, bucket, 'docs/deeper/x', 'x');
    expect(fs.readdirSync(s.mount)).toEqual(expect.arrayContaining(['docs']));
    expect(fs.readdirSync(path.join(s.mount, 'docs')).sort()).toEqual(['deeper', 'large.bin', 'small.txt']);
    let sync = (await s.stats()).s3files!;
    // The root and docs/ (deeper/ is not listed yet): docs/ itself, then deeper/, large.bin and small.txt.
    expect(sync).toMatchObject({ directoryImports: 2, imports: 4, importedData: 1 });
    expect(sync.s3Requests).toMatchObject({ list: 2, get: 1 });
    expect(fs.readFileSync(path.join(s.mount, 'docs', 'small.txt'), 'utf8')).toBe('small');
    expect(fs.statSync(path.join(s.mount, 'docs', 'large.bin')).size).toBe(200 * 1024);
    // Opening a name in a directory not yet imported imports it too.
    expect(fs.readFileSync(path.join(s.mount, 'docs', 'deeper', 'x'), 'utf8')).toBe('x');
    sync = (await s.stats()).s3files!;
    expect(sync.directoryImports).toBe(3);
  });

  test('a change in the bucket reaches an imported directory no sooner than the import delay', async () => {
    const { s, s3, bucket } = await start(['--import-delay=2']);
    expect(fs.readdirSync(s.mount).filter((n) => !n.startsWith('.s3files-'))).toEqual([]);
    const changed = Date.now();
    await put(s3, bucket, 'late.txt', 'late');
    await until('late.txt in the mount', () => (fs.existsSync(path.join(s.mount, 'late.txt')) ? true : undefined));
    expect(Date.now() - changed).toBeGreaterThanOrEqual(2000);
    expect(fs.readFileSync(path.join(s.mount, 'late.txt'), 'utf8')).toBe('late');
  });

  test('a new prefix under an imported directory appears as a directory after the delay; its entries come on its first listing', async () => {
    const { s, s3, bucket } = await start(['--import-delay=2']);
    fs.mkdirSync(path.join(s.mount, 'work'));
    expect(fs.readdirSync(path.join(s.mount, 'work'))).toEqual([]);
    const changed = Date.now();
    await put(s3, bucket, 'work/batch/a.txt', 'a');
    await put(s3, bucket, 'work/batch/deeper/b.txt', 'b');
    await until('work/batch in the mount', () => (fs.existsSync(path.join(s.mount, 'work', 'batch')) ? true : undefined));
    expect(Date.now() - changed).toBeGreaterThanOrEqual(2000);
    const before = (await s.stats()).s3files!.directoryImports;
    expect(fs.readdirSync(path.join(s.mount, 'work', 'batch')).sort()).toEqual(['a.txt', 'deeper']);
    expect((await s.stats()).s3files!.directoryImports).toBe(before + 1);
    expect(fs.readFileSync(path.join(s.mount, 'work', 'batch', 'deeper', 'b.txt'), 'utf8')).toBe('b');
  });

  test('the bucket wins a conflict: the mount\'s copy goes to lost+found and is never exported', async () => {
    const { s, s3, bucket } = await start(['--export-window=2', '--import-delay=600']);
    const lostAndFound = path.join(s.mount, s.s3files!.lostAndFound);
    expect(s.s3files!.lostAndFound).toBe(`.s3files-lost+found-${s.s3files!.fsid}`);
    fs.writeFileSync(path.join(s.mount, 'c.txt'), 'mine');
    // The bucket changes before the mount's write is exported.
    await put(s3, bucket, 'c.txt', 'theirs');
    await until('the conflict', async () => ((await s.stats()).s3files!.conflicts === 1 ? true : undefined));
    // The daemon drops the kernel's cached copy as soon as it hears of the change (as an NFS client
    // would after its attribute cache times out).
    await until('the bucket\'s version in the mount', () => (fs.readFileSync(path.join(s.mount, 'c.txt'), 'utf8') === 'theirs' ? true : undefined), 5);
    expect(fs.readFileSync(path.join(lostAndFound, 'c.txt'), 'utf8')).toBe('mine');
    // A later write is exported; lost+found, there for longer than a window, still is not.
    fs.writeFileSync(path.join(s.mount, 'later.txt'), 'later');
    await until('later.txt in the bucket', async () => ((await keys(s3, bucket)).includes('later.txt') ? true : undefined));
    expect(await keys(s3, bucket)).toEqual(['c.txt', 'later.txt']);
    expect(await body(s3, bucket, 'c.txt')).toBe('theirs');
  });

  test('a rename is exported as a copy and a delete per object', async () => {
    const { s, s3, bucket } = await start(['--export-window=1']);
    fs.mkdirSync(path.join(s.mount, 'd'));
    for (const n of ['1', '2', '3']) fs.writeFileSync(path.join(s.mount, 'd', n), `file ${n}`);
    await until('d/ in the bucket', async () => ((await keys(s3, bucket)).length === 3 ? true : undefined));
    await s.resetStats();
    fs.renameSync(path.join(s.mount, 'd'), path.join(s.mount, 'e'));
    await until('e/ in the bucket, d/ gone', async () => ((await keys(s3, bucket)).join() === 'e/1,e/2,e/3' ? true : undefined));
    const sync = (await s.stats()).s3files!;
    expect(sync.s3Requests).toMatchObject({ copy: 3, delete: 3, put: 0 });
    expect(await body(s3, bucket, 'e/2')).toBe('file 2');
  });

  test('reads of 128 KiB or more, and of data left in the bucket, are reads from S3', async () => {
    const { s, s3, bucket } = await start(['--import-delay=600']);
    await put(s3, bucket, 'remote.bin', Buffer.alloc(256 * 1024, 1));
    fs.writeFileSync(path.join(s.mount, 'local.bin'), Buffer.alloc(1024 * 1024, 2));
    // O_DIRECT: every read reaches the daemon, none is answered from the page cache.
    const readAt = (name: string, bytes: number) => {
      const fd = fs.openSync(path.join(s.mount, name), fs.constants.O_RDONLY | fs.constants.O_DIRECT);
      try {
        return fs.readSync(fd, Buffer.alloc(bytes), 0, bytes, 0);
      } finally {
        fs.closeSync(fd);
      }
    };
    await s.resetStats();
    expect(readAt('local.bin', 64 * 1024)).toBe(64 * 1024);
    expect((await s.stats()).ops).toMatchObject({ read: 1, s3read: 0 });
    await s.resetStats();
    expect(readAt('local.bin', 128 * 1024)).toBe(128 * 1024);
    expect((await s.stats()).ops).toMatchObject({ read: 0, s3read: 1 });
    await s.resetStats();
    expect(readAt('remote.bin', 4096)).toBe(4096);
    expect((await s.stats()).ops).toMatchObject({ read: 0, s3read: 1 });
  });
});
