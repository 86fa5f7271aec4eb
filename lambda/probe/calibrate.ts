import * as crypto from 'crypto';
import * as path from 'path';
import { fsync, O_CREAT, O_EXCL, O_WRONLY, unlink, withOpenFile, writeAll } from './io';
import { Calibration } from './result';
import { percentiles } from './stats';

const SAMPLES = 5;
const WRITE_BYTES = 2 * 1024 * 1024;

/**
 * Measures the target before planning: the round trip of creating an empty file (median of a few)
 * and sequential write throughput. Each scenario's time is estimated from these, so a scenario that
 * cannot fit the time budget is refused before it starts.
 */
export async function calibrate(dir: string): Promise<Calibration> {
  const roundTrips: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const file = path.join(dir, `calibrate-${i}`);
    const start = process.hrtime.bigint();
    await withOpenFile(file, O_WRONLY | O_CREAT | O_EXCL, async () => undefined);
    roundTrips.push(Number(process.hrtime.bigint() - start) / 1e6);
    await unlink(file);
  }
  const file = path.join(dir, 'calibrate-write');
  const data = crypto.randomBytes(WRITE_BYTES);
  const start = process.hrtime.bigint();
  await withOpenFile(file, O_WRONLY | O_CREAT | O_EXCL, async (fd) => {
    await writeAll(fd, data);
    await fsync(fd);
  });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await unlink(file);
  return { roundTripMs: percentiles(roundTrips).p50, writeBytesPerSecond: WRITE_BYTES / seconds };
}

/** Seconds a plan should take on a target with this calibration. */
export function estimateSeconds(plan: { bytes: number; roundTrips: number; waitSeconds?: number }, calibration: Calibration): number {
  return (plan.roundTrips * calibration.roundTripMs) / 1000 + plan.bytes / calibration.writeBytesPerSecond + (plan.waitSeconds ?? 0);
}
