import { spawn } from 'child_process';
import * as path from 'path';

/** The built command line (`npm run build`), as the demos run it. */
const CLI = path.join(__dirname, '..', 'dist', 'bin', 'cdk-efs-kit.js');

export interface CliRun {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Its standard output when captured; otherwise it went to the demo's. */
  readonly stdout: string;
}

/**
 * Runs `cdk-efs-kit <args>` without blocking this process, so that a Ctrl-C reaches the demo's
 * clean-up while it runs (tsx kills a process that does not take the signal within 30 ms).
 * Standard error goes to the demo's as it comes; standard output too, unless `captureStdout`.
 */
export function runCli(args: readonly string[], options: { captureStdout?: boolean } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', options.captureStdout ? 'pipe' : 'inherit', 'inherit'] });
    const chunks: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', reject);
    child.on('close', (status, signal) => resolve({ status, signal, stdout: Buffer.concat(chunks).toString('utf8') }));
  });
}
