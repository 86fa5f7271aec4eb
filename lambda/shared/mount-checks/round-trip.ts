import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CheckResult, fail, pass, warn } from './check-result';

/**
 * A small write, read, rename and unlink in a directory of the mount, each timed: what proves the
 * mount works end to end for this identity, and how long EFS takes to answer.
 *
 * What EFS should give (EFS User Guide, "Amazon EFS performance", read 2026-11): General Purpose
 * file systems serve reads from about 0.25 ms and writes from about 2.7 ms (1.6 ms One Zone);
 * metadata operations take a round trip or two. An operation past SLOW_OPERATION_MS points at
 * something between client and EFS: a mount target in another Availability Zone, a VPN, a
 * saturated client, or a file system throttled (no burst credits, PercentIOLimit at 100).
 */
export const EFS_READ_LATENCY_FLOOR_MS = 0.25;
export const EFS_WRITE_LATENCY_FLOOR_MS = 2.7;
export const SLOW_OPERATION_MS = 50;
export const ROUND_TRIP_CHECK = 'round-trip';

const PAYLOAD_BYTES = 4096;

export interface RoundTrip {
  /** Milliseconds per step: create+write+fsync+close, open+read+close, rename, unlink. */
  readonly ms: { write: number; read: number; rename: number; unlink: number };
}

/** Runs the round trip in `dir` with a name no other client uses; leaves nothing behind. */
export async function roundTrip(dir: string): Promise<RoundTrip> {
  const name = `.cdk-efs-kit-doctor-${os.hostname()}-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  const first = path.join(dir, name);
  const second = `${first}-renamed`;
  const payload = crypto.randomBytes(PAYLOAD_BYTES);
  const timed = async (step: () => Promise<void>) => {
    const started = process.hrtime.bigint();
    await step();
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  try {
    const write = await timed(async () => {
      const handle = await fs.promises.open(first, 'wx', 0o600);
      try {
        await handle.writeFile(payload);
        await handle.sync();
      } finally {
        await handle.close();
      }
    });
    const read = await timed(async () => {
      const back = await fs.promises.readFile(first);
      if (!back.equals(payload)) throw new Error(`read back ${back.length} bytes that differ from the ${payload.length} written`);
    });
    const rename = await timed(() => fs.promises.rename(first, second));
    const unlink = await timed(() => fs.promises.unlink(second));
    return { ms: { write, read, rename, unlink } };
  } finally {
    await fs.promises.rm(first, { force: true });
    await fs.promises.rm(second, { force: true });
  }
}

/** The round trip as a check: its latencies, or the step that failed and why. */
export async function roundTripCheck(dir: string): Promise<CheckResult> {
  let result: RoundTrip;
  try {
    result = await roundTrip(dir);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return fail(ROUND_TRIP_CHECK, `a 4 KiB write/read/rename/unlink in ${dir} failed: ${e.message}`, roundTripFix(e.code));
  }
  const { write, read, rename, unlink } = result.ms;
  const shown = `write+fsync ${ms(write)}, read ${ms(read)}, rename ${ms(rename)}, unlink ${ms(unlink)}`;
  const slowest = Math.max(write, read, rename, unlink);
  if (slowest > SLOW_OPERATION_MS) {
    return warn(ROUND_TRIP_CHECK, `4 KiB round trip in ${dir} works but is slow: ${shown} (EFS answers reads from ${EFS_READ_LATENCY_FLOOR_MS} ms and writes from ${EFS_WRITE_LATENCY_FLOOR_MS} ms)`,
      'mount through the mount target in this client\'s Availability Zone (the file system DNS name does); check PercentIOLimit and BurstCreditBalance in CloudWatch; over a VPN this is expected');
  }
  return pass(ROUND_TRIP_CHECK, `4 KiB round trip in ${dir}: ${shown}`);
}

function roundTripFix(code: string | undefined): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'the identity the requests carry may not write here: see posix-identity and file-system-policy (ClientWrite; root without ClientRootAccess is squashed to 65534)';
    case 'EROFS': return 'the mount is read-only: remount read-write, and check the file system policy grants ClientWrite';
    case 'ENOSPC':
    case 'EDQUOT': return 'the file system refuses new data (quota or size limit)';
    default: return 'check the mount (mount-options, tls) and the client\'s kernel log (dmesg) for NFS errors';
  }
}

const ms = (value: number) => `${value < 10 ? value.toFixed(2) : value.toFixed(0)} ms`;
