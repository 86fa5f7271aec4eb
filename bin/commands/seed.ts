import { Command, InvalidArgumentError, Option } from 'commander';
import { defaultWorkerCount } from '../../lambda/seed/copy/copy-workers';
import { DEFAULT_LOCK_WAIT_MS, seed } from '../../lambda/seed/copy/copy';
import type { SeedProgress, SeedSummary } from '../../lambda/seed/copy/seed-summary';
import { describeHolder } from '../../lambda/seed/state/target-lock';
import { settleRootRun } from '../seed-as-root/settle';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from '../../lib/seed/contract/limits';
import { ArchiveLimits, DEFAULT_ARCHIVE_LIMITS } from '../../lambda/seed/sources/archive-limits';
import { openSource, parseSourceSpec } from '../../lambda/seed/sources/open-source';
import { DEFAULT_S3_TIMEOUT_MS, S3_TIMEOUT_ENV } from '../../lambda/seed/sources/s3-retry';
import { EXIT_BAD_INPUT, EXIT_ENTRIES_FAILED, EXIT_SOURCE_FAILED } from '../exit-codes';
import { printable } from '../../lambda/shared/printable';
import { terminalBar } from '../terminal-bar';

/** `cdk-efs-kit seed <source> <target>`: the copier the FileSystemSeed construct deploys, on any machine. */
export function register(program: Command): void {
  program.command('seed')
    .description('copy a directory, an S3 prefix or an archive onto a (mounted EFS) directory, or into the bucket behind an S3 Files file system: parallel, atomic per file, incremental')
    .argument('<source>', 'a directory, s3://bucket/prefix/, or a .zip/.tar/.tar.gz file (local or s3://bucket/key)')
    .argument('<target>', 'the directory to fill, e.g. /mnt/efs/www; or s3://bucket/prefix, the bucket of an S3 Files file system, written directly')
    .option('--concurrency <n>', `files written at once (1-${MAX_CONCURRENCY})`, parseConcurrency, DEFAULT_CONCURRENCY)
    .addOption(new Option('--workers <n>', 'worker threads that write files, 0 to write on the main thread').argParser(parseWorkers)
      .default(defaultWorkerCount(), `one per vCPU beyond the first, none below 3 vCPUs: ${defaultWorkerCount()} here`))
    .option('--prune', 'delete files an earlier seed wrote that the source no longer has', false)
    .option('--dry-run', 'report what would be written, write nothing', false)
    .option('--json', 'print only a JSON summary {files, bytes, written, skipped, seconds, ...}', false)
    .option('--max-member-size <size>', `archives: largest member, in bytes or with KiB/MiB/GiB/TiB (default: ${formatSize(DEFAULT_ARCHIVE_LIMITS.maxMemberBytes)})`, parseSize)
    .option('--max-total-size <size>', `archives: all members together (default: ${formatSize(DEFAULT_ARCHIVE_LIMITS.maxTotalBytes)})`, parseSize)
    .option('--max-entries <n>', `archives: members at most (default: ${DEFAULT_ARCHIVE_LIMITS.maxEntries.toLocaleString('en-US')})`, parsePositiveInteger)
    .option('--max-ratio <n>', `archives: expanded bytes per archive byte, at most, once past 64 MiB (default: ${DEFAULT_ARCHIVE_LIMITS.maxCompressionRatio})`, parsePositiveInteger)
    .option('--lock-wait <seconds>', `how long to wait for another seed run of the same target to finish (default: ${DEFAULT_LOCK_WAIT_MS / 1000})`, parseSeconds)
    .option('--allow-root', 'as root: copy as root, not as the target\'s owner, even where another user can change the target or the source', false)
    .option('--endpoint <url>', 'S3 endpoint for S3-compatible servers (path-style addressing)')
    .option('--region <region>', 'S3 region (default: AWS_REGION or us-east-1)')
    .option('--s3-endpoint <url>', 'bucket targets: the bucket\'s S3 endpoint (S3-compatible servers, path-style); an S3 source must be on the same one')
    .option('--mount <dir>', 'bucket targets: the directory the S3 Files mount shows the prefix at; the run ends once every seeded file shows there with the source\'s size')
    .option('--mount-wait <seconds>', 'bucket targets: how long --mount waits for files to show (default: 120; S3 Files shows a bucket change in a directory it imported already about 30 s later)', parseSeconds)
    .addHelpText('after', `
Examples:
  $ cdk-efs-kit seed ./site /mnt/efs/www
  $ cdk-efs-kit seed s3://my-bucket/www/ /mnt/efs/www --concurrency 128
  $ cdk-efs-kit seed release.tar.gz /mnt/efs/app --json
  $ cdk-efs-kit seed ./site s3://files-bucket/www --mount /mnt/s3files/www --prune

A target s3://bucket/prefix seeds the bucket behind an S3 Files file system by writing its objects
directly (PutObject, multipart above 8 MiB, CopyObject server-side from an S3 source), incremental
against a manifest at <prefix>.cdk-efs-kit/bucket-manifest.json; --prune deletes only the exact
versions the seed wrote that nobody changed since. POSIX owner, mode, mtime, symlinks and empty
directories are not carried (docs/seed-s3-files.md). --workers, --lock-wait and --allow-root apply
to directory targets only.

One run per target at a time: a second run waits for the first (--lock-wait), then gives up.
As root, the seed works as the target's owner (her uid, primary and supplementary groups), root only
on a target only root can change; where anyone else can change the target, a directory on the way to
it or the source, it refuses, naming who, unless --allow-root.

S3: a request with no answer for ${DEFAULT_S3_TIMEOUT_MS / 1000} s (${S3_TIMEOUT_ENV}, in ms), a reset connection, a 5xx answer
or throttling is retried with growing random waits; an object whose requests still fail fails alone.

Exit codes:
  0  everything was copied
  ${EXIT_ENTRIES_FAILED}  some entries failed (each is named; the rest are copied)
  ${EXIT_BAD_INPUT}  bad input: arguments, a source that does not exist or cannot be read, an archive limit
  ${EXIT_SOURCE_FAILED}  the run could not go on: S3 kept failing past the retries while listing or reading an
     archive, or another seed held the target past --lock-wait: run again later`)
    .action(async (sourceSpec: string, target: string, opts: SeedCliOptions, command: Command) => {
      if (target.startsWith('s3://')) {
        const notForBuckets = [['workers', '--workers'], ['lockWait', '--lock-wait'], ['allowRoot', '--allow-root']].filter(([key]) => command.getOptionValueSource(key) === 'cli');
        if (notForBuckets.length > 0) throw new Error(`${notForBuckets.map(([, flag]) => flag).join(', ')} cannot be used with a bucket target (${target}): only directory targets take ${notForBuckets.length > 1 ? 'them' : 'it'}`);
        // Loaded here, not at start: every `cdk-efs-kit` command would load the AWS SDK for it.
        const { runBucketSeed } = await import('./seed-bucket');
        process.exitCode = await runBucketSeed(sourceSpec, target, {
          concurrency: opts.concurrency, prune: opts.prune, dryRun: opts.dryRun, json: opts.json,
          limits: { maxMemberBytes: opts.maxMemberSize, maxTotalBytes: opts.maxTotalSize, maxEntries: opts.maxEntries, maxCompressionRatio: opts.maxRatio },
          endpoint: opts.endpoint, s3Endpoint: opts.s3Endpoint, region: opts.region, mount: opts.mount, mountWaitSeconds: opts.mountWait ?? 120,
        });
        return;
      }
      const forBuckets = [['s3Endpoint', '--s3-endpoint'], ['mount', '--mount'], ['mountWait', '--mount-wait']].filter(([key]) => command.getOptionValueSource(key) === 'cli');
      if (forBuckets.length > 0) throw new Error(`${forBuckets.map(([, flag]) => flag).join(', ')}: only a bucket target (s3://bucket/prefix) takes ${forBuckets.length > 1 ? 'them' : 'it'}; the target ${target} is a directory`);
      const summary = await runSeed(sourceSpec, target, opts);
      process.exitCode = summary.failed.length > 0 ? EXIT_ENTRIES_FAILED : 0;
    });
}

interface SeedCliOptions {
  concurrency: number;
  workers: number;
  prune: boolean;
  dryRun: boolean;
  json: boolean;
  maxMemberSize?: number;
  maxTotalSize?: number;
  maxEntries?: number;
  maxRatio?: number;
  lockWait?: number;
  allowRoot: boolean;
  endpoint?: string;
  region?: string;
  s3Endpoint?: string;
  mount?: string;
  mountWait?: number;
}

function parseConcurrency(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_CONCURRENCY) throw new InvalidArgumentError(`must be an integer from 1 to ${MAX_CONCURRENCY}`);
  return n;
}

function parseWorkers(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 64) throw new InvalidArgumentError('must be an integer from 0 to 64');
  return n;
}

function parseSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('must be a number of seconds, 0 or more');
  return n;
}

function parsePositiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

/** Size units as they are written, largest first. */
const UNITS: Array<[string, number]> = [['TiB', 1024 ** 4], ['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024], ['B', 1]];

/** '1048576', '512MiB', '8 GiB' (any case) -> bytes. */
function parseSize(value: string): number {
  const match = /^(\d+)\s*([A-Za-z]*)$/.exec(value.trim());
  const unit = !match ? undefined : match[2] === '' ? 1 : UNITS.find(([name]) => name.toUpperCase() === match[2].toUpperCase())?.[1];
  if (!match || unit === undefined || Number(match[1]) < 1) throw new InvalidArgumentError('must be a positive number of bytes, or with KiB, MiB, GiB or TiB (e.g. 8GiB)');
  return Number(match[1]) * unit;
}

/** Bytes in the largest unit that divides them: 8 GiB. */
function formatSize(bytes: number): string {
  const [unit, size] = UNITS.find(([, size]) => bytes % size === 0)!;
  return size === 1 ? `${bytes} bytes` : `${bytes / size} ${unit}`;
}

/** CPU seconds (user + system, every thread of the process) since the process started. */
const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

async function runSeed(sourceSpec: string, target: string, opts: SeedCliOptions): Promise<SeedSummary> {
  // Node's start and loading the CLI, apart from the copy's own CPU.
  const startupCpuSeconds = cpuSeconds();
  const location = parseSourceSpec(sourceSpec);
  settleRootRun(location.bucket === undefined ? location.key : undefined, target, { allowRoot: opts.allowRoot });
  const limits: ArchiveLimits = { maxMemberBytes: opts.maxMemberSize, maxTotalBytes: opts.maxTotalSize, maxEntries: opts.maxEntries, maxCompressionRatio: opts.maxRatio };
  const opened = await openSource(location, { s3: { endpoint: opts.endpoint, region: opts.region }, limits });
  const progress = opts.json ? undefined : await progressReporter();
  try {
    const summary = await seed(opened.source, target, {
      concurrency: opts.concurrency, workers: opts.workers, prune: opts.prune, dryRun: opts.dryRun, onProgress: progress?.update,
      lockWaitMs: opts.lockWait === undefined ? undefined : opts.lockWait * 1000,
      onLockWait: (holder) => console.error(printable(`seed: another seed run holds ${target}'s lock (${describeHolder(holder)}); waiting up to ${opts.lockWait ?? DEFAULT_LOCK_WAIT_MS / 1000} s`)),
    });
    progress?.stop(finalProgress(summary));
    if (opts.json) {
      const cpu = { startupSeconds: startupCpuSeconds, seedSeconds: cpuSeconds() - startupCpuSeconds };
      console.log(JSON.stringify({ ...summary, source: opened.source.description, target, cpu }));
    } else {
      printSummary(summary, opts.dryRun);
    }
    return summary;
  } finally {
    progress?.stop();
    await opened.close();
  }
}

/** Files finished: written, left unchanged, or failed (`files` counts those found so far). */
const doneOf = (p: SeedProgress) => p.written + p.skipped + p.failed;

/** The run's end as progress: every file counted, so the last progress shown is the final count. */
function finalProgress(s: SeedSummary): SeedProgress {
  return { files: s.files, bytes: s.bytes, written: s.written, skipped: s.skipped, failed: s.failed.length, totalFiles: s.files, totalBytes: s.bytes, elapsedSeconds: s.seconds };
}

/**
 * A progress bar on a terminal; a line every 5 seconds otherwise (logs, CI). Stopped with the
 * final counts, the bar shows them, and a line-by-line report ends on a line with them.
 */
async function progressReporter(): Promise<{ update: (p: SeedProgress) => void; stop: (final?: SeedProgress) => void }> {
  if (process.stderr.isTTY) {
    const bar = await terminalBar('seed [{bar}] {percentage}% | {value}/{total} files | {rate} files/s | ETA {eta_formatted}');
    const update = (p: SeedProgress) => {
      const done = doneOf(p);
      bar.update(done, p.totalFiles ?? Math.max(p.files, 1), { rate: p.elapsedSeconds > 0 ? Math.round(done / p.elapsedSeconds) : 0 });
    };
    return {
      update,
      stop: (final) => {
        if (final) update(final);
        bar.stop();
      },
    };
  }
  let last = 0;
  let printed = false;
  const line = (p: SeedProgress) => {
    const done = doneOf(p);
    console.error(`seed: ${done}/${p.totalFiles ?? p.files} files, ${(p.bytes / 1048576).toFixed(1)} MiB found, ${(done / Math.max(p.elapsedSeconds, 0.001)).toFixed(0)} files/s`);
    printed = true;
  };
  return {
    update: (p: SeedProgress) => {
      if (Date.now() - last < 5000) return;
      last = Date.now();
      line(p);
    },
    stop: (final) => {
      if (final && printed) line(final);
      printed = false;
    },
  };
}

/** The summary on a terminal: every line that holds a name from input (a path, a warning, a failure) printed as printable() shows it. */
function printSummary(s: SeedSummary, dryRun: boolean): void {
  const verb = dryRun ? 'would write' : 'wrote';
  const special = s.specialFiles.length > 0 ? `, skipped ${s.specialFiles.length} special` : '';
  console.log(`${s.files} files (${(s.bytes / 1048576).toFixed(1)} MiB) in ${s.seconds.toFixed(1)} s: ${verb} ${s.written}, unchanged ${s.skipped}, pruned ${s.pruned}${special}, failed ${s.failed.length}`);
  if (s.specialFiles.length > 0) {
    console.error(printable(`  skipped (FIFOs, sockets and devices have no content to copy): ${s.specialFiles.slice(0, 5).join(', ')}${s.specialFiles.length > 5 ? ', ...' : ''}`));
  }
  for (const warning of s.warnings) console.error(printable(`  warning: ${warning}`));
  for (const f of s.failed.slice(0, 20)) console.error(printable(`  ${f.error}`));
  if (s.failed.length > 20) console.error(`  ... and ${s.failed.length - 20} more`);
}
