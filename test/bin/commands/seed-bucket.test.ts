import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

// `cdk-efs-kit seed <source> s3://bucket/prefix`: what it refuses before it sends any request, in one
// line naming the problem (exit 2, no stack trace), and its --help. The runs against S3 and an S3
// Files mount are in test/lambda/seed-bucket/ (integration project).
const CLI = path.join(__dirname, '..', '..', '..', 'dist', 'bin', 'cdk-efs-kit.js');
let src: string;
beforeAll(() => {
  src = fs.mkdtempSync(path.join(os.tmpdir(), 'seed-bucket-cli-'));
  fs.writeFileSync(path.join(src, 'a.txt'), 'a');
});
afterAll(() => fs.rmSync(src, { recursive: true, force: true }));

// No endpoint is ever reached: each is refused first (a port nothing listens on, in case).
const run = (...args: string[]) => spawnSync(process.execPath, [CLI, 'seed', ...args], { encoding: 'utf8', env: { ...process.env, AWS_ENDPOINT_URL: 'http://127.0.0.1:9' } });

test.each([
  [['SRC', 's3://Bad_Bucket/www'], /^cdk-efs-kit: 'Bad_Bucket' is not an S3 bucket name/m],
  [['SRC', 's3://bucket/../www'], /^cdk-efs-kit: the bucket prefix '\.\.\/www' cannot be seeded: refused "\.\.\/www": '\.\.' is not allowed/m],
  [['SRC', 's3://bucket/www', '--workers', '2'], /^cdk-efs-kit: --workers cannot be used with a bucket target \(s3:\/\/bucket\/www\): only directory targets take it$/m],
  [['SRC', 'DST', '--mount', '/mnt/x'], /^cdk-efs-kit: --mount: only a bucket target \(s3:\/\/bucket\/prefix\) takes it; the target .* is a directory$/m],
  [['s3://bucket/www/', 's3://bucket/www/sub'], /^cdk-efs-kit: the source s3:\/\/bucket\/www\/ and the target s3:\/\/bucket\/www\/sub\/ overlap/m],
  [['s3://a-bucket/www/', 's3://bucket/www', '--endpoint', 'http://127.0.0.1:9', '--s3-endpoint', 'http://127.0.0.1:10'], /^cdk-efs-kit: an S3 source is copied server-side \(CopyObject\), so it must be on the bucket's S3 endpoint/m],
])('fails when given %j, naming the problem', (args, message) => {
  const r = run(...args.map((a) => (a === 'SRC' ? src : a === 'DST' ? path.join(src, '..', 'seed-bucket-cli-dst') : a)));
  expect(r.status).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(/\n\s+at /);
});

test('--help says what a bucket target does and takes', () => {
  const help = run('--help').stdout.replace(/\s+/g, ' ');
  for (const text of ['--s3-endpoint <url>', '--mount <dir>', '--mount-wait <seconds>', 's3://bucket/prefix, the bucket of an S3 Files file system',
    'POSIX owner, mode, mtime, symlinks and empty directories are not carried']) {
    expect({ text, inHelp: help.includes(text) }).toEqual({ text, inHelp: true });
  }
});
