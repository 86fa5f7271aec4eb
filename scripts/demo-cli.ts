import { ChildProcess, spawn } from 'child_process';
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
    if (stopping) {
      reject(new Error(`cdk-efs-kit ${args[0]}: not started, the demo is stopping`));
      return;
    }
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', options.captureStdout ? 'pipe' : 'inherit', 'inherit'] });
    running.add(child);
    child.on('close', () => running.delete(child));
    const chunks: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', reject);
    child.on('close', (status, signal) => resolve({ status, signal, stdout: Buffer.concat(chunks).toString('utf8') }));
  });
}

const running = new Set<ChildProcess>();
let stopping = false;

/**
 * Stops the command lines still running and waits for them to end, before the demo takes away what
 * they use: a Ctrl-C that came before one was started never reached it. Each gets SIGINT (its own
 * clean-up), then SIGKILL after 10 s. None starts after this.
 */
export async function stopRunningClis(): Promise<void> {
  stopping = true;
  await Promise.all([...running].map((child) => new Promise<void>((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('close', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGINT');
  })));
}
