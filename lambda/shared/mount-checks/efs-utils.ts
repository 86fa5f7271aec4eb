import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * What amazon-efs-utils leaves on a client, read as its sources (github.com/aws/efs-utils, 3.2.0)
 * write it:
 * - `mount.efs --version` prints `<argv0> Version: <x.y.z>`;
 * - since 2.0 every `mount -t efs` goes through a local proxy (efs-proxy; stunnel in 1.x or with
 *   `-o stunnel`), so the kernel mounts `127.0.0.1:/path` with `port=<local port>`;
 * - for each such mount a JSON state file `/var/run/efs/<fs-id>.<mount-point with dots>.<port>`
 *   holds the proxy's `pid` and command line (`cmd`, with `--tls` when efs-proxy encrypts), and
 *   `awsCredentialsMethod` when the mount uses IAM, `accessPoint` when it goes through one.
 */

export const EFS_UTILS_STATE_DIR = '/var/run/efs';
/** Where mount.efs and mount.s3files are installed, besides PATH. */
const MOUNT_EFS_DIRS = ['/sbin', '/usr/sbin', '/usr/local/sbin', '/usr/bin', '/usr/local/bin'];

export interface EfsUtilsVersion {
  readonly command: string;
  readonly version: string;
}

/**
 * The installed mount helper (mount.efs, or mount.s3files from 3.0.0 on, which prints its version
 * the same way) and its version, or undefined when there is none.
 */
export async function efsUtilsVersion(command?: string, helper = 'mount.efs'): Promise<EfsUtilsVersion | undefined> {
  const found = command ?? findMountHelper(helper);
  if (!found) return undefined;
  const out = await new Promise<string>((resolve) => {
    execFile(found, ['--version'], { timeout: 10_000 }, (err, stdout) => resolve(err ? '' : stdout));
  });
  const match = /Version:\s*(\d+(?:\.\d+)*)/.exec(out);
  return match ? { command: found, version: match[1] } : undefined;
}

function findMountHelper(helper: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean), ...MOUNT_EFS_DIRS];
  for (const dir of dirs) {
    const candidate = path.join(dir, helper);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** -1, 0 or 1 as version a is older than, equal to or newer than b ('2.10.0' > '2.9.1'). */
export function compareVersions(a: string, b: string): number {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** A local-proxy mount as its state file describes it. */
export interface TunnelState {
  readonly stateFile: string;
  readonly fileSystemId: string;
  readonly pid?: number;
  readonly command: string[];
  /** 'efs-proxy' or 'stunnel', from the command line. */
  readonly proxy: string;
  readonly tls: boolean;
  readonly iam: boolean;
  readonly accessPointId?: string;
}

/** The state file efs-utils wrote for the local port a mount uses, or undefined when there is none. */
export function tunnelStateFor(port: number, stateDir = EFS_UTILS_STATE_DIR): TunnelState | undefined {
  let names: string[];
  try {
    names = fs.readdirSync(stateDir);
  } catch {
    return undefined;
  }
  // '~' marks a mount still being set up; '+' directories hold certificates.
  const name = names.find((n) => n.endsWith(`.${port}`) && !n.startsWith('~') && /^fs-[0-9a-f]+\./.test(n));
  if (!name) return undefined;
  let state: Record<string, unknown>;
  try {
    state = JSON.parse(fs.readFileSync(path.join(stateDir, name), 'utf8'));
  } catch {
    return undefined;
  }
  const command = Array.isArray(state.cmd) ? state.cmd.map(String) : [];
  const proxy = command.some((c) => path.basename(c) === 'efs-proxy') ? 'efs-proxy' : command.some((c) => path.basename(c).startsWith('stunnel')) ? 'stunnel' : 'unknown proxy';
  return {
    stateFile: path.join(stateDir, name),
    fileSystemId: name.slice(0, name.indexOf('.')),
    pid: typeof state.pid === 'number' && state.pid > 0 ? state.pid : undefined,
    command,
    proxy,
    // stunnel only ever runs for TLS; efs-proxy encrypts when started with --tls.
    tls: proxy === 'stunnel' || command.includes('--tls'),
    iam: typeof state.awsCredentialsMethod === 'string',
    accessPointId: typeof state.accessPoint === 'string' ? state.accessPoint : undefined,
  };
}

/** Whether a process runs with that pid. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}
