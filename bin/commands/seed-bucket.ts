import { folderPrefix } from '../../lib/seed/contract/s3-prefix';
import { NOT_PRESERVED, BucketSeedProgress, BucketSeedSummary, seedBucket } from '../../lambda/seed-bucket/bucket-seed';
import { overlaps, parseBucketTarget } from '../../lambda/seed-bucket/bucket-target';
import { VisibilityResult, waitUntilVisible } from '../../lambda/seed-bucket/boundary/mount-visibility';
import { firstFew } from '../../lambda/seed-bucket/seed-tally';
import type { ArchiveLimits } from '../../lambda/seed/sources/archive-limits';
import { openSource, parseSourceSpec } from '../../lambda/seed/sources/open-source';
import { printable } from '../../lambda/shared/printable';
import { EXIT_ENTRIES_FAILED } from '../exit-codes';

/** What `cdk-efs-kit seed <source> s3://bucket/prefix` takes (the seed command's options that apply to a bucket). */
export interface BucketSeedCliOptions {
  readonly concurrency: number;
  readonly prune: boolean;
  readonly dryRun: boolean;
  readonly json: boolean;
  readonly limits: ArchiveLimits;
  /** The source's S3 endpoint (--endpoint), and the bucket's (--s3-endpoint). */
  readonly endpoint?: string;
  readonly s3Endpoint?: string;
  readonly region?: string;
  readonly mount?: string;
  readonly mountWaitSeconds: number;
}

/**
 * Seeds the bucket behind an S3 Files file system (lambda/seed-bucket): writes its objects directly
 * and, with `--mount`, waits until every seeded file shows through the mount with the source's size.
 * Returns the exit code: 0, or 1 when some files failed or did not show through the mount in time.
 */
export async function runBucketSeed(sourceSpec: string, targetUrl: string, opts: BucketSeedCliOptions): Promise<number> {
  const target = parseBucketTarget(targetUrl);
  const location = parseSourceSpec(sourceSpec);
  if (location.bucket !== undefined) {
    if (opts.endpoint && opts.s3Endpoint && opts.endpoint !== opts.s3Endpoint) {
      throw new Error(`an S3 source is copied server-side (CopyObject), so it must be on the bucket's S3 endpoint: --endpoint ${opts.endpoint} and --s3-endpoint ${opts.s3Endpoint} differ`);
    }
    const sourcePlace = { bucket: location.bucket, prefix: location.format === 's3-objects' ? folderPrefix(location.key) : location.key };
    // Objects under a prefix overlap the target where either prefix holds the other; an archive (one key) where the target's prefix holds it.
    if (location.format === 's3-objects' ? overlaps(sourcePlace, target) : sourcePlace.bucket === target.bucket && sourcePlace.prefix.startsWith(target.prefix)) {
      throw new Error(`the source s3://${sourcePlace.bucket}/${sourcePlace.prefix} and the target s3://${target.bucket}/${target.prefix} overlap: a seed would copy onto its own source`);
    }
  }
  const endpoint = opts.s3Endpoint ?? opts.endpoint;
  const { s3Client } = await import('../../lambda/seed/sources/s3-client');
  const s3 = { endpoint, region: opts.region };
  const client = s3Client(s3);
  const opened = await openSource(location, { client, s3, limits: opts.limits });
  const progress = opts.json ? undefined : lineProgress();
  try {
    const summary = await seedBucket(client, opened.source, target, {
      concurrency: opts.concurrency, prune: opts.prune, dryRun: opts.dryRun, listFiles: opts.mount !== undefined && !opts.dryRun, onProgress: progress?.update,
    });
    progress?.end(summary);
    let visibility: VisibilityResult | undefined;
    if (opts.mount !== undefined && !opts.dryRun) {
      if (!opts.json) console.error(printable(`seed: checking that ${summary.seededFiles!.length} files show through ${opts.mount} with the source's size (up to ${opts.mountWaitSeconds} s)`));
      visibility = await waitUntilVisible(opts.mount, summary.seededFiles!, {
        timeoutMs: opts.mountWaitSeconds * 1000,
        onRound: opts.json ? undefined : (visible, total) => console.error(`seed: ${visible}/${total} files visible through the mount`),
      });
    }
    if (opts.json) {
      const { seededFiles, ...rest } = summary;
      console.log(JSON.stringify({ ...rest, source: opened.source.description, target: `s3://${target.bucket}/${target.prefix}`, notPreserved: NOT_PRESERVED, visibility }));
    } else {
      printSummary(summary, opts.dryRun, visibility, opts.mount);
    }
    // Incomplete (another run of the place saved its records first): not done, so not 0.
    return summary.failed.length > 0 || !summary.complete || (visibility?.missing.length ?? 0) > 0 ? EXIT_ENTRIES_FAILED : 0;
  } finally {
    await opened.close();
    client.destroy();
  }
}

/** A progress line every 5 s on standard error, and one with the final counts at the end when any was printed. */
function lineProgress() {
  let last = Date.now();
  let printed = false;
  const line = (p: BucketSeedProgress) => {
    const done = p.written + p.skipped + p.failed;
    console.error(`seed: ${done}/${p.files} files, written ${p.written}, unchanged ${p.skipped}, failed ${p.failed}, ${(done / Math.max(p.elapsedSeconds, 0.001)).toFixed(0)} files/s`);
    printed = true;
  };
  return {
    update: (p: BucketSeedProgress) => {
      if (Date.now() - last < 5000) return;
      last = Date.now();
      line(p);
    },
    end: (s: BucketSeedSummary) => {
      if (printed) line({ files: s.files, written: s.written, skipped: s.skipped, failed: s.failed.length, elapsedSeconds: s.seconds });
    },
  };
}

function printSummary(s: BucketSeedSummary, dryRun: boolean, visibility: VisibilityResult | undefined, mount: string | undefined): void {
  const verb = dryRun ? 'would write' : 'wrote';
  const copied = s.copied > 0 ? ` (${s.copied} copied server-side)` : '';
  console.log(`${s.files} files (${(s.bytes / 1048576).toFixed(1)} MiB) in ${s.seconds.toFixed(1)} s: ${verb} ${s.written}${copied}, unchanged ${s.skipped}, pruned ${s.pruned}, failed ${s.failed.length}${s.complete ? '' : ' (incomplete: run again to go on)'}`);
  console.log(`S3 requests: ${Object.entries(s.requests).sort(([a], [b]) => a.localeCompare(b)).map(([kind, n]) => `${kind} ${n}`).join(', ') || 'none'}`);
  if (visibility) {
    console.log(printable(`visible through ${mount}: ${visibility.visible}/${visibility.visible + visibility.missing.length} files with the source's size, after ${visibility.seconds.toFixed(1)} s`));
    for (const m of visibility.missing.slice(0, 20)) console.error(printable(`  not visible: ${m.path}: ${m.reason}`));
    if (visibility.missing.length > 20) console.error(`  ... and ${visibility.missing.length - 20} more`);
  }
  console.error(`  note: ${NOT_PRESERVED}`);
  if (s.specialFiles.length > 0) console.error(printable(`  skipped (FIFOs, sockets and devices have no content to copy): ${firstFew(s.specialFiles)}`));
  for (const warning of s.warnings) console.error(printable(`  warning: ${warning}`));
  for (const f of s.failed.slice(0, 20)) console.error(printable(`  ${f.error}`));
  if (s.failed.length > 20) console.error(`  ... and ${s.failed.length - 20} more`);
}
