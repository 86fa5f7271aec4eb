import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { Moto, startMoto } from '../../helpers/moto';
import { nodeBinDir } from '../../helpers/node-lines';
import { makeTree, tempDir, treeDigest } from '../../helpers/seed-fixtures';

// The bundles as they ship, on Lambda's Node.js (22): once the target is slow (here
// CDK_EFS_KIT_SYNC_CALLS=0, as on EFS), the seed makes each file of up to 1 MiB with the native
// writer, whose create is an openat relative to the directory's descriptor; a larger one (or each,
// with CDK_EFS_KIT_NATIVE=0) by Node's calls, whose open the addon makes as openat2 beneath that
// descriptor (where there is no addon, Node opens /proc/self/fd/<descriptor>/<name>). strace shows
// which made each file.
const root = path.join(__dirname, '..', '..', '..');
const node22 = () => path.join(nodeBinDir(22), 'node');
const CREATE = 'O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW';

let work: string;
let source: string;
beforeAll(() => {
  work = tempDir('native-seed-');
  source = path.join(work, 'source');
  makeTree(source, 3, 10);
  fs.writeFileSync(path.join(source, 'dir-0', 'one-mib.bin'), Buffer.alloc(1024 * 1024, 7));
  fs.writeFileSync(path.join(source, 'dir-0', 'large.bin'), Buffer.alloc(2 * 1024 * 1024, 9));
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/**
 * The source's files made in an strace log: by the native writer (openat on the descriptor), by
 * Node's calls with the addon's openat2 beneath the descriptor, or through /proc (AT_FDCWD).
 */
function creates(log: string): { native: number; node: number; proc: number } {
  const seeded = new Set(Object.keys(treeDigest(source)).map((file) => path.basename(file)));
  const made = fs.readFileSync(log, 'utf8').split('\n').filter((line) => line.includes(CREATE))
    .map((line) => /(openat2?)\((\d+|AT_FDCWD), "(?:\/proc\/self\/fd\/\d+\/)?([^/"]+)", /.exec(line))
    .filter((match) => match && seeded.has(match[3]));
  const count = (call: string, at: (fd: string) => boolean) => made.filter((match) => match![1] === call && at(match![2])).length;
  return { native: count('openat', (fd) => fd !== 'AT_FDCWD'), node: count('openat2', (fd) => fd !== 'AT_FDCWD'), proc: count('openat', (fd) => fd === 'AT_FDCWD') };
}

function seedTraced(name: string, env: NodeJS.ProcessEnv): { native: number; node: number } {
  const log = path.join(work, `${name}.strace`);
  const target = path.join(work, name);
  execFileSync('strace', ['-f', '-qq', '-e', 'trace=openat,openat2', '-o', log, node22(), path.join(root, 'dist', 'bin', 'cdk-efs-kit.js'), 'seed', source, target, '--json'],
    { env: { ...process.env, CDK_EFS_KIT_SYNC_CALLS: '0', ...env }, stdio: 'pipe' });
  expect(treeDigest(target)).toMatchObject(treeDigest(source));
  return creates(log);
}

test('the command line writes every file up to 1 MiB with the native writer, and a larger one with Node\'s calls', () => {
  expect(seedTraced('cli', {})).toEqual({ native: 31, node: 1, proc: 0 });
});

test('CDK_EFS_KIT_NATIVE=0 writes them all with Node\'s calls, to the same tree', () => {
  expect(seedTraced('cli-without', { CDK_EFS_KIT_NATIVE: '0' })).toEqual({ native: 0, node: 32, proc: 0 });
});

describe('the Lambda handler\'s bundle', () => {
  let moto: Moto;
  beforeAll(async () => {
    moto = await startMoto();
    const s3 = new S3Client(moto.clientConfig);
    await s3.send(new CreateBucketCommand({ Bucket: 'assets' }));
    execFileSync('zip', ['-qr', path.join(work, 'site.zip'), '.'], { cwd: source });
    await s3.send(new PutObjectCommand({ Bucket: 'assets', Key: 'site.zip', Body: fs.readFileSync(path.join(work, 'site.zip')) }));
  });
  afterAll(async () => moto.stop());

  test('writes a zip\'s members with the native writer too', () => {
    // As in Lambda, the file system is mounted at /mnt/<name> (a link to a test directory here).
    fs.mkdirSync(path.join(work, 'mnt'));
    const mount = `/mnt/cdk-efs-kit-test-${path.basename(work)}`;
    fs.symlinkSync(path.join(work, 'mnt'), mount);
    const event = {
      RequestType: 'Create', LogicalResourceId: 'Seed',
      ResourceProperties: { Bucket: 'assets', Key: 'site.zip', Format: 'zip', Fingerprint: 'site', MountPath: mount, TargetSubPath: 'www', Concurrency: '16', Prune: 'false', RemoveOnDelete: 'false' },
    };
    // onEvent claims the place; isComplete copies.
    const script = `const handler = require(${JSON.stringify(path.join(root, 'dist', 'handlers', 'seed', 'index.js'))});
      const event = ${JSON.stringify(event)}, context = { getRemainingTimeInMillis: () => 900000 };
      handler.onEvent(event, context).then((r) => handler.isComplete({ ...event, ...r }, context))
        .then((r) => { if (!r.IsComplete) throw new Error(JSON.stringify(r)); });`;
    const log = path.join(work, 'handler.strace');
    try {
      execFileSync('strace', ['-f', '-qq', '-e', 'trace=openat,openat2', '-o', log, node22(), '-e', script], {
        env: { ...process.env, CDK_EFS_KIT_SYNC_CALLS: '0', AWS_ENDPOINT_URL: moto.endpoint, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' },
        stdio: 'pipe',
      });
    } finally {
      fs.rmSync(mount);
    }
    expect(treeDigest(path.join(work, 'mnt', 'www'))).toMatchObject(treeDigest(source));
    expect(creates(log)).toEqual({ native: 31, node: 1, proc: 0 });
  });
});
