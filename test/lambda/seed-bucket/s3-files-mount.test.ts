import { ListObjectVersionsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { describeWithFuse, EfsSim, startEfsSim } from '../../helpers/efs-sim';
import { tempDir } from '../../helpers/seed-fixtures';

// `cdk-efs-kit seed <dir> s3://bucket/prefix --mount DIR` against efs-sim's S3 Files profile: the
// bucket seed writes moto's bucket (started by efs-sim on 127.0.0.1), the profile imports what it
// wrote into the mount, and the CLI waits until every file shows there with its size. Time is only
// ever a bound: the import delay makes a change reach an imported directory no sooner than it.
const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'bin', 'cdk-efs-kit.js');

describeWithFuse('bucket seed through an S3 Files mount (efs-sim s3files)', () => {
  let sim: EfsSim | undefined;
  afterEach(async () => {
    await sim?.stop();
    sim = undefined;
  });

  function cli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [CLI, 'seed', ...args], { env: { ...process.env, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => { stdout += d; });
      child.stderr.on('data', (d) => { stderr += d; });
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
  }

  function source(): string {
    const dir = tempDir('seed-bucket-mount-');
    for (let d = 0; d < 4; d++) {
      fs.mkdirSync(path.join(dir, `d${d}`, 'deeper'), { recursive: true });
      for (let f = 0; f < 10; f++) fs.writeFileSync(path.join(dir, `d${d}`, `f${f}.txt`), `${d}/${f}\n`.repeat(f + 1));
      fs.writeFileSync(path.join(dir, `d${d}`, 'deeper', 'big.bin'), Buffer.alloc(300 * 1024 + d, d));
    }
    fs.writeFileSync(path.join(dir, 'index.html'), '<h1>hi</h1>');
    return dir;
  }

  /** Every regular file under `dir`, relative, sorted, with its bytes. */
  const files = (dir: string, skip = (_: string) => false) => (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((name) => !skip(name) && fs.lstatSync(path.join(dir, name)).isFile()).sort()
    .map((name) => [name, fs.readFileSync(path.join(dir, name)).toString('base64')]);

  test('the seeded files show through the mount with the source\'s content; a re-run writes nothing; prune spares the application\'s objects', async () => {
    sim = await startEfsSim({ profile: 's3files', flags: ['--latency-any=0', '--export-window=2', '--import-delay=2'] });
    const { endpoint, bucket } = sim.s3files!;
    const src = source();
    const www = path.join(sim.mount, 'www');
    const args = [src, `s3://${bucket}/www`, '--s3-endpoint', endpoint, '--mount', www, '--mount-wait', '60'];
    const first = await cli(args);
    expect(first.stderr).not.toMatch(/cdk-efs-kit:/);
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^45 files \([\d.]+ MiB\) in [\d.]+ s: wrote 45, unchanged 0, pruned 0, failed 0\n/);
    expect(first.stdout).toMatch(/S3 requests: .*PutObject 46/);
    expect(first.stdout).toMatch(/visible through .*: 45\/45 files with the source's size/);
    expect(first.stderr).toMatch(/note: written as objects: POSIX owner, mode and modification time, symlinks and empty directories are not carried/);
    // Byte for byte through the mount (small files imported, large ones read from S3).
    expect(files(www, (name) => name.startsWith('.cdk-efs-kit'))).toEqual(files(src));

    const again = await cli([...args, '--json']);
    expect(again.status).toBe(0);
    const summary = JSON.parse(again.stdout);
    expect(summary).toMatchObject({ written: 0, skipped: 45, visibility: { visible: 45, missing: [] } });
    expect(summary.requests.PutObject ?? 0).toBe(0);
    expect(summary.requests.CopyObject ?? 0).toBe(0);

    // The application writes one object and rewrites a seeded one; the source drops three files.
    const s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'www/d0/app.txt', Body: 'the application\'s' }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'www/d0/f1.txt', Body: 'rewritten' }));
    for (const name of ['d0/f1.txt', 'd0/f2.txt', 'd1/f3.txt']) fs.unlinkSync(path.join(src, name));
    const pruned = await cli([...args, '--prune', '--json']);
    expect(pruned.status).toBe(0);
    expect(JSON.parse(pruned.stdout)).toMatchObject({ written: 0, skipped: 42, pruned: 2, kept: ['d0/f1.txt'] });
    const versions = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: 'www/' }));
    expect(versions.DeleteMarkers ?? []).toEqual([]);
    const current = (versions.Versions ?? []).filter((v) => v.IsLatest).map((v) => v.Key);
    expect(current).toEqual(expect.arrayContaining(['www/d0/app.txt', 'www/d0/f1.txt']));
    expect(current).not.toContain('www/d0/f2.txt');
    s3.destroy();
  });

  test('a file that never shows through the mount fails the run, named, once the wait is over', async () => {
    sim = await startEfsSim({ profile: 's3files', flags: ['--latency-any=0', '--import-delay=2'] });
    const { endpoint, bucket } = sim.s3files!;
    const src = source();
    // The mount named is not where the prefix shows: nothing seeded is there.
    const r = await cli([src, `s3://${bucket}/www`, '--s3-endpoint', endpoint, '--mount', path.join(sim.mount, 'elsewhere'), '--mount-wait', '3']);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/visible through .*elsewhere: 0\/45 files/);
    expect(r.stderr).toMatch(/not visible: d0\/f0\.txt: not in the mount/);
  });
});
