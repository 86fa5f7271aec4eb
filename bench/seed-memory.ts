/**
 * Peak memory of the seeder on large inputs: extracting a 1 GiB .tar.gz and a 1 GiB .zip, copying
 * a directory holding a 1 GiB file, and copying a 1 GiB S3 object (from moto's server on
 * 127.0.0.1), each in its own process, its peak RSS read from /usr/bin/time.
 *
 *   npx tsx bench/seed-memory.ts            # 1 GiB inputs (a few minutes here)
 *   npx tsx bench/seed-memory.ts --mib 256
 */
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { startMoto } from '../test/helpers/moto';

const CLI = path.join(__dirname, '..', 'dist', 'bin', 'cdk-efs-kit.js');
const i = process.argv.indexOf('--mib');
const MIB = i === -1 ? 1024 : Number(process.argv[i + 1]);

function measure(source: string, target: string, ...flags: string[]): number {
  try {
    const args = [process.execPath, CLI, 'seed', source, target, '--json', ...flags].map((a) => JSON.stringify(a)).join(' ');
    const stderr = execFileSync('bash', ['-c', `/usr/bin/time -f 'MAXRSS %M' ${args} 2>&1 >/dev/null`], { encoding: 'utf8' });
    return Number(/MAXRSS (\d+)/.exec(stderr)![1]) / 1024;
  } finally {
    fs.rmSync(target, { recursive: true, force: true });
  }
}

async function s3ObjectRss(file: string, target: string): Promise<number> {
  const moto = await startMoto();
  try {
    const s3 = new S3Client(moto.clientConfig);
    await s3.send(new CreateBucketCommand({ Bucket: 'big' }));
    await new Upload({ client: s3, params: { Bucket: 'big', Key: 'data/big.bin', Body: fs.createReadStream(file) } }).done();
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' });
    return measure('s3://big/data/', target, '--endpoint', moto.endpoint);
  } finally {
    await moto.stop();
  }
}

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'seed-memory-'));
  try {
    const src = path.join(work, 'src');
    fs.mkdirSync(path.join(src, 'small'), { recursive: true });
    execFileSync('bash', ['-c', `head -c ${MIB}M /dev/urandom > ${src}/big.bin`]);
    for (let f = 0; f < 1000; f++) fs.writeFileSync(path.join(src, 'small', `f${f}.txt`), `file ${f}\n`.repeat(100));
    execFileSync('tar', ['czf', path.join(work, 'input.tar.gz'), '-C', src, '.']);
    execFileSync('zip', ['-qr1', path.join(work, 'input.zip'), '.'], { cwd: src });
    const rows = [
      [`${MIB} MiB .tar.gz (one ${MIB} MiB member + 1,000 small files)`, measure(path.join(work, 'input.tar.gz'), path.join(work, 'out'))],
      [`${MIB} MiB .zip (same content)`, measure(path.join(work, 'input.zip'), path.join(work, 'out'))],
      [`${MIB} MiB directory (same content)`, measure(src, path.join(work, 'out'))],
      [`${MIB} MiB S3 object (moto on 127.0.0.1)`, await s3ObjectRss(path.join(src, 'big.bin'), path.join(work, 'out'))],
    ] as const;
    console.log('| input | peak RSS (MiB) |\n|---|---:|');
    for (const [name, rss] of rows) console.log(`| ${name} | ${rss.toFixed(0)} |`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
