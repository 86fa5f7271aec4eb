import { createHash } from 'crypto';
import * as fs from 'fs';

/**
 * A Lambda function's mount, stood in for by a directory of the test: `/mnt/<prefix>-<hash of dir>`,
 * a link to `dir`. The seed handler refuses a MountPath that is not /mnt/<name>, as Lambda's
 * LocalMountPath must be, so the stand-in keeps that shape. `removeLambdaMounts` removes the links
 * a suite made.
 */
const made: string[] = [];

export function lambdaMountOf(dir: string, prefix: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const mount = `/mnt/${prefix}-${createHash('sha256').update(dir).digest('hex').slice(0, 16)}`;
  if (!fs.existsSync(mount)) {
    fs.symlinkSync(dir, mount);
    made.push(mount);
  }
  return mount;
}

export function removeLambdaMounts(): void {
  for (const mount of made.splice(0)) fs.rmSync(mount, { force: true });
}
