/**
 * An S3 seed through the fault-injecting proxy (test/helpers/fault-proxy.ts) in front of moto's S3:
 * a few thousand small objects with no faults, with 10% of the GETs answered 503 SlowDown at random,
 * and with GETs throttled above a request rate (as S3 throttles a prefix). For each: the exit code,
 * the objects written and failed, the copy's seconds, and the requests the proxy saw (retries are the
 * requests beyond one per object and one per listing page). Rounds alternate between this build and
 * a baseline build, if one is given, so that the machine's drift falls on both.
 *
 *   npx tsx bench/seed-s3-faults.ts [--objects 3000] [--object-bytes 400] [--rounds 3] [--faults none] [--baseline <other build>/dist/bin/cdk-efs-kit.js]
 *
 * `--faults none` runs only the seed without faults (an A/B of the plain S3 seed).
 *
 * Needs `npm run build` and tools/setup.sh (moto).
 */
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { FaultRule, startFaultProxy } from '../test/helpers/fault-proxy';
import { startMoto } from '../test/helpers/moto';

const args = process.argv.slice(2);
const flag = (name: string) => { const i = args.indexOf(name); return i === -1 ? undefined : args[i + 1]; };
const OBJECTS = Number(flag('--objects') ?? 3000);
const OBJECT_BYTES = Number(flag('--object-bytes') ?? 400);
const ROUNDS = Number(flag('--rounds') ?? 3);
const builds: Record<string, string> = { this: path.join(__dirname, '..', 'dist', 'bin', 'cdk-efs-kit.js') };
if (flag('--baseline')) builds.baseline = flag('--baseline')!;
/** GETs of objects (path style: /bucket/key?x-id=GetObject), not the listing (/bucket/?list-type=2&prefix=...). */
const GET_OBJECT = /^\/objects\/site\//;

const allScenarios: Record<string, FaultRule[]> = {
  'no faults': [],
  '10% SlowDown': [{ fault: 'slow-down', method: 'GET', url: GET_OBJECT, rate: 0.1 }],
  'SlowDown above 100 GET/s': [{ fault: 'slow-down', method: 'GET', url: GET_OBJECT, abovePerSecond: 100 }],
};
const scenarios = flag('--faults') === 'none' ? { 'no faults': [] } : allScenarios;

interface Run {
  readonly exit: number;
  readonly seconds: number;
  readonly cpu: number;
  readonly written: number;
  readonly failed: number;
  readonly requests: number;
  readonly faults: number;
  readonly message: string;
}

async function main(): Promise<void> {
  const moto = await startMoto();
  const s3 = new S3Client(moto.clientConfig);
  await s3.send(new CreateBucketCommand({ Bucket: 'objects' }));
  for (let i = 0; i < OBJECTS; i += 64) {
    await Promise.all(Array.from({ length: Math.min(64, OBJECTS - i) }, (_, j) => s3.send(new PutObjectCommand({
      Bucket: 'objects', Key: `site/d${(i + j) % 50}/o${i + j}.txt`, Body: Buffer.alloc(OBJECT_BYTES, `object ${i + j} `),
    }))));
  }
  const proxy = await startFaultProxy(moto.endpoint);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 's3-faults-'));
  const results = new Map<string, Run[]>();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [scenario, rules] of Object.entries(scenarios)) {
        for (const [build, cli] of Object.entries(builds)) {
          proxy.rules = rules.map((rule) => ({ ...rule })); // fresh counters
          const before = proxy.log.length;
          const target = path.join(work, `${build}-${round}-${scenario.replace(/\W+/g, '-')}`);
          const run = await seedOnce(cli, proxy.endpoint, target);
          const seen = proxy.log.slice(before);
          const key = `${scenario} | ${build}`;
          results.set(key, [...results.get(key) ?? [], { ...run, requests: seen.length, faults: seen.filter((r) => r.fault).length }]);
          fs.rmSync(target, { recursive: true, force: true });
        }
      }
    }
  } finally {
    await proxy.stop();
    await moto.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
  const pages = Math.ceil(OBJECTS / 1000);
  console.log(`# S3 seed through the fault proxy: ${OBJECTS} objects of ${OBJECT_BYTES} bytes, ${ROUNDS} rounds, medians`);
  console.log();
  console.log('| faults | build | exit codes | written | failed | copy s | copy CPU s | requests | retries | faults met |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const [key, runs] of results) {
    const exits = [...new Set(runs.map((r) => r.exit))].join(', ');
    console.log(`| ${key} | ${exits} | ${median(runs.map((r) => r.written))} | ${median(runs.map((r) => r.failed))} | ${median(runs.map((r) => r.seconds)).toFixed(1)} | ${median(runs.map((r) => r.cpu)).toFixed(2)} `
      + `| ${median(runs.map((r) => r.requests))} | ${median(runs.map((r) => r.requests - OBJECTS - pages))} | ${median(runs.map((r) => r.faults))} |`);
    const messages = [...new Set(runs.map((r) => r.message).filter(Boolean))];
    for (const message of messages) console.log(`|  | | ${message.slice(0, 200).replace(/\|/g, '\\|')} | | | | | | | |`);
  }
}

function seedOnce(cli: string, endpoint: string, target: string): Promise<Omit<Run, 'requests' | 'faults'>> {
  const env = { ...process.env, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, 'seed', 's3://objects/site/', target, '--endpoint', endpoint, '--json'], { env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const exit = err ? Number((err as { code?: number }).code ?? 1) : 0;
      try {
        const summary = JSON.parse(stdout) as { seconds: number; written: number; failed: Array<{ error: string }>; cpu: { seedSeconds: number } };
        resolve({ exit, seconds: summary.seconds, cpu: summary.cpu.seedSeconds, written: summary.written, failed: summary.failed.length, message: summary.failed[0]?.error ?? '' });
      } catch {
        resolve({ exit, seconds: (Date.now() - started) / 1000, cpu: NaN, written: 0, failed: 0, message: stderr.trim().split('\n').pop() ?? '' });
      }
    });
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

void main();
