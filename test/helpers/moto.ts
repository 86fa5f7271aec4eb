import { ChildProcess, spawn } from 'child_process';
import * as net from 'net';
import * as path from 'path';
import { refuseInUnitProject } from './test-project';

refuseInUnitProject('moto\'s server');

/** moto's server on 127.0.0.1: a real S3 (and Step Functions, CloudWatch...) endpoint for tests. */
export interface Moto {
  readonly endpoint: string;
  /** Client settings for AWS SDK v3 clients pointed at this server. */
  readonly clientConfig: { endpoint: string; region: string; forcePathStyle: boolean; credentials: { accessKeyId: string; secretAccessKey: string } };
  stop(): Promise<void>;
}

const MOTO_SERVER = path.join(__dirname, '..', '..', '.venv', 'bin', 'moto_server');

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
  await waitUntilAnswering(endpoint, child);
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
