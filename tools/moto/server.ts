import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';

/**
 * moto's server on 127.0.0.1 from the project's .venv (tools/setup.sh makes it): a real S3 (and
 * Step Functions, CloudWatch...) endpoint for the tests, the benchmarks and the S3 Files demo.
 */
export interface Moto {
  readonly endpoint: string;
  /** Client settings for AWS SDK v3 clients pointed at this server. */
  readonly clientConfig: { endpoint: string; region: string; forcePathStyle: boolean; credentials: { accessKeyId: string; secretAccessKey: string } };
  stop(): Promise<void>;
}

export const MOTO_SERVER = path.join(__dirname, '..', '..', '.venv', 'bin', 'moto_server');

/** Whether the .venv has moto's server (`bash tools/setup.sh moto` installs it). */
export function motoInstalled(): boolean {
  try {
    fs.accessSync(MOTO_SERVER, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    }).on('error', reject);
  });
}

async function waitUntilAnswering(endpoint: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`moto_server exited with code ${child.exitCode}`);
    try {
      const res = await fetch(`${endpoint}/moto-api/`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`moto_server did not answer on ${endpoint} within 30 s`);
}

export async function startMoto(): Promise<Moto> {
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const child = spawn(MOTO_SERVER, ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  try {
    await waitUntilAnswering(endpoint, child);
  } catch (err) {
    // A server that never answered is not left running behind the error.
    child.kill('SIGKILL');
    throw err;
  }
  return {
    endpoint,
    clientConfig: { endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } },
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}
