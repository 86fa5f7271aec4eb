import { execFile } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import type { NfsRequests } from '../metering';
import type { Recorder } from '../recorder';
import { Scenario, ScenarioContext } from '../scenario';

export interface LockingParams {
  readonly processes: number;
  readonly iterations: number;
  readonly transactions: number;
}

/**
 * A worker process: `iterations` times, take the lock file (O_CREAT|O_EXCL, the lock NFSv4 makes
 * atomic), read the counter, write it back plus one, release. Prints its latencies as JSON.
 * Plain JavaScript run with `node -e`, so it needs no bundle of its own.
 */
const LOCK_WORKER = `
const fs = require('fs');
const [dir, iterations] = process.argv.slice(1);
const pause = new Int32Array(new SharedArrayBuffer(4));
const ms = (t) => Number(process.hrtime.bigint() - t) / 1e6;
const acquire = [], update = [];
for (let i = 0; i < Number(iterations); i++) {
  let t = process.hrtime.bigint();
  for (;;) {
    try { fs.closeSync(fs.openSync(dir + '/lock', 'wx')); break; }
    catch (e) { if (e.code !== 'EEXIST') throw e; Atomics.wait(pause, 0, 0, 1 + Math.random() * 4); }
  }
  acquire.push(ms(t));
  t = process.hrtime.bigint();
  const value = Number(fs.readFileSync(dir + '/counter', 'utf8'));
  fs.writeFileSync(dir + '/counter', String(value + 1));
  fs.unlinkSync(dir + '/lock');
  update.push(ms(t));
}
process.stdout.write(JSON.stringify({ acquire, update }));
`;

/** Seed 000: ownCloud's SQLite database failed on EFS. Are locks honoured, and what does a commit cost? */
export const locking: Scenario<LockingParams> = {
  name: 'locking',
  reproduces: '"The Challenges of EFS" (Noah Zoschke, 2016): "SQLite on EFS doesn\'t work": ownCloud\'s SQLite database failed under EFS\'s write latency',
  description: '`processes` processes take turns on a lock file (O_CREAT|O_EXCL) to increment a shared counter: a lost update means locks '
    + 'or close-to-open consistency are broken. Then, where Node has SQLite (node:sqlite, Node 22.13+, the Lambda runtime), '
    + '`transactions` SQLite commits in rollback-journal mode, a second connection that must be refused the write lock, and an '
    + 'integrity check. Findings say whether the file system is safe for it and how many commits per second an app can expect.',
  params: {
    processes: { type: 'integer', default: 4, min: 1, max: 64, doc: 'worker processes contending for the lock' },
    iterations: { type: 'integer', default: 25, min: 1, max: 10_000, doc: 'locked updates per process' },
    transactions: { type: 'integer', default: 50, min: 0, max: 100_000, doc: 'SQLite transactions (0 = skip SQLite)' },
  },
  plan: ({ processes, iterations, transactions }) => ({ bytes: transactions * 8192, roundTrips: processes * iterations * 6 + transactions * 12 + 20 }),
  async run({ dir, params, recorder, finding }) {
    const counted = await lockFileUpdates(dir, params, recorder);
    finding('lockedUpdates', counted);
    finding('lockMutualExclusion', counted === params.processes * params.iterations);
    if (params.transactions > 0) await sqliteCommits(path.join(dir, 'probe.sqlite'), params.transactions, recorder, finding);
  },
};

const execFileAsync = promisify(execFile);

// What one of each operation sends. A lock attempt that finds the lock taken sends an OPEN more, not counted.
const LOCK_ACQUIRE_REQUESTS: NfsRequests = { data: 'none', metadataReads: 1, metadataWrites: 1 }; // OPEN that creates, CLOSE
// Read the counter (OPEN, READ, CLOSE), write it (OPEN that truncates, WRITE, CLOSE), remove the lock (REMOVE).
const LOCKED_UPDATE_REQUESTS: NfsRequests = { data: 'none', metadataReads: 3, metadataWrites: 2, smallDataReads: 1, smallDataWrites: 1 };
// About what a rollback-journal commit with synchronous=FULL sends: the database's first page read, three
// byte-range locks and an unlock, the journal created, written (header and page) and removed, the row's page
// (counted) and the header page written, and the journal's CLOSE and a GETATTR.
const SQLITE_COMMIT_REQUESTS: NfsRequests = { data: 'write', metadataReads: 2, metadataWrites: 6, smallDataReads: 1, smallDataWrites: 3 };

async function lockFileUpdates(dir: string, params: LockingParams, recorder: Recorder): Promise<number> {
  await fs.promises.writeFile(path.join(dir, 'counter'), '0');
  const started = process.hrtime.bigint();
  const workers = await Promise.allSettled(Array.from({ length: params.processes }, () =>
    execFileAsync(process.execPath, ['-e', LOCK_WORKER, dir, String(params.iterations)], { maxBuffer: 64 * 1024 * 1024 })));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const acquire: number[] = [];
  const update: number[] = [];
  let failed = 0;
  for (const worker of workers) {
    if (worker.status === 'rejected') {
      failed++;
      recorder.remember(new Error(`a lock worker failed: ${String((worker.reason as { stderr?: string }).stderr || worker.reason).trim().split('\n').pop()}`));
      continue;
    }
    const out = JSON.parse(worker.value.stdout) as { acquire: number[]; update: number[] };
    acquire.push(...out.acquire);
    update.push(...out.update);
  }
  recorder.add('lock-acquire', LOCK_ACQUIRE_REQUESTS, acquire, seconds, 0, failed);
  recorder.add('locked-update', LOCKED_UPDATE_REQUESTS, update, seconds, 0, failed);
  return Number(await fs.promises.readFile(path.join(dir, 'counter'), 'utf8'));
}

/** node:sqlite where this Node has it (22.13+ without a flag); undefined on older Node. */
function loadSqlite(): { DatabaseSync: new (file: string) => any } | undefined {
  try {
    // Not an import: the module must be looked up at run time, and may be missing.
    return require('node:sqlite');
  } catch {
    return undefined;
  }
}

async function sqliteCommits(file: string, transactions: number, recorder: Recorder, finding: ScenarioContext<LockingParams>['finding']): Promise<void> {
  const sqlite = loadSqlite();
  finding('sqliteAvailable', sqlite !== undefined);
  if (!sqlite) {
    finding('safeForSqlite', null);
    finding('verdict', `locks measured with lock files only: node:sqlite is not available on Node ${process.version} (it is on the Lambda runtime, Node 22)`);
    return;
  }
  const db = new sqlite.DatabaseSync(file);
  const other = new sqlite.DatabaseSync(file);
  try {
    db.exec('PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL; CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v BLOB)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const row = crypto.randomBytes(1024);
    await recorder.phase('sqlite-commit', SQLITE_COMMIT_REQUESTS, async (time) => {
      for (let i = 0; i < transactions; i++) {
        await time(async () => {
          db.exec('BEGIN');
          insert.run(row);
          db.exec('COMMIT');
        }, row.length);
      }
    });
    // A second connection must not get the write lock while the first holds it.
    db.exec('BEGIN IMMEDIATE');
    let refused = false;
    try {
      other.exec('BEGIN IMMEDIATE');
      other.exec('ROLLBACK');
    } catch (err) {
      refused = /locked|busy/i.test((err as Error).message);
    }
    db.exec('ROLLBACK');
    const integrity = (db.prepare('PRAGMA integrity_check').get() as Record<string, string>).integrity_check;
    const rows = (db.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n;
    const commit = recorder.operations.find((o) => o.operation === 'sqlite-commit')!;
    const safe = refused && integrity === 'ok' && rows === commit.count;
    finding('sqliteLocksHonoured', refused);
    finding('sqliteIntegrity', integrity);
    finding('safeForSqlite', safe);
    finding('sqliteCommitsPerSecond', Math.round(commit.opsPerSecond * 10) / 10);
    finding('verdict', safe
      ? `locks are honoured and the database stays intact; each commit waits ${commit.latencyMs.p50.toFixed(1)} ms (p50), so one writer manages about ${Math.floor(commit.opsPerSecond)} commits/s`
      : `not safe for SQLite: ${!refused ? 'a second connection got the write lock while the first held it' : `integrity_check says ${integrity}, ${rows} of ${commit.count} rows`}`);
  } finally {
    other.close();
    db.close();
  }
}
