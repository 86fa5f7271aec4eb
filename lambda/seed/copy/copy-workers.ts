import * as os from 'os';
import { Worker } from 'worker_threads';
import { LAMBDA_MIB_PER_VCPU } from '../../../lib/core/contract/lambda-cpu';
import { copyWorkersFor, SEED_WORKERS_ENV } from '../../../lib/seed/contract/copy-workers';
import type { AtomicWriteOptions, WrittenFile } from '../target/atomic-write';
import { FileContent, LocalFileContent, RemoteObject } from '../sources/entry';
import type { Placement } from '../target/placement';
import { besideSeedBundle, firstExisting } from '../boundary/seed-bundle';

/**
 * The file writes of a seed spread over worker threads, one per vCPU, so that a copy bound by the
 * CPU (many small files on a fast target, or the thread-pool hops of a slow one) uses every vCPU the
 * process has, not one. The main thread keeps everything else (the walk, the scheduling, the directories,
 * the manifest) on its own thread: a worker only writes a file it is told to, at the place it is
 * told, with the seed's usual guarantees (a new inode, atomic, nothing followed). Only content a
 * worker can reach itself travels: a local file by its path beneath the source root's descriptor
 * (threads share it; the worker opens it beneath that root as the main thread would), an S3 object by its bucket and key
 * (the worker fetches it with a client of its own, so HTTP and TLS spread over the vCPUs too),
 * in-memory content by value; other streams (zip members, large tar members) are written by the
 * main thread.
 * Jobs and results cross in batches, one message per turn of the event loop, not one per file.
 */

/**
 * What a worker is asked to do: the directories by descriptor (threads share them), which the
 * main thread holds open until the answer comes.
 */
export interface CopyRequest {
  readonly id: number;
  readonly placement: { readonly dirFd: number; readonly name: string; readonly inPlace: boolean; readonly tempDirFd?: number };
  readonly write: AtomicWriteOptions;
  readonly content: { readonly root: number; readonly path: string; readonly size: number } | { readonly bytes: Uint8Array } | { readonly remote: RemoteObject };
}

/** What it answers: the file written, or the error (its message and code, as Node gave them). */
export interface CopyResponse {
  readonly id: number;
  readonly written?: WrittenFile;
  readonly error?: { readonly message: string; readonly code?: string };
}

/**
 * Copy workers for this process: as SEED_WORKERS says (the construct sets it from the function's
 * vCPUs), else by the vCPUs it may use (in Lambda, by its memory).
 */
export function defaultWorkerCount(): number {
  const given = process.env[SEED_WORKERS_ENV];
  if (given !== undefined && /^\d+$/.test(given)) return Number(given);
  const memory = Number(process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE);
  return copyWorkersFor(Math.min(os.availableParallelism(), memory > 0 ? Math.max(1, Math.round(memory / LAMBDA_MIB_PER_VCPU)) : Infinity));
}

/** The worker thread's script, bundled beside the seed handler (the CLI uses the package's copy). */
const WORKER_SCRIPTS = besideSeedBundle('copy-thread.js');

interface Lane {
  readonly worker: Worker;
  outbox: CopyRequest[];
  inFlight: number;
  written: number;
}

export class CopyWorkers {
  /** `count` workers, or undefined for 0 (the main thread writes them all). */
  static start(count: number): CopyWorkers | undefined {
    if (count === 0) return undefined;
    const script = firstExisting(WORKER_SCRIPTS);
    if (!script) throw new Error(`the copy worker script is missing (looked for ${WORKER_SCRIPTS.join(' and ')}): build the package (npm run build), or run with 0 workers`);
    return new CopyWorkers(script, count);
  }

  private readonly lanes: Lane[];
  private readonly waiting = new Map<number, { resolve: (written: WrittenFile) => void; reject: (err: Error) => void }>();
  private nextId = 0;
  private failure?: Error;

  private constructor(script: string, count: number) {
    this.lanes = Array.from({ length: count }, () => {
      // The main thread's environment as it is now (AWS settings and credentials for the S3 clients).
      const worker = new Worker(script, { env: { ...process.env } });
      const lane: Lane = { worker, outbox: [], inFlight: 0, written: 0 };
      worker.on('message', (responses: CopyResponse[]) => this.settle(lane, responses));
      worker.on('error', (err) => this.broken(err));
      worker.on('exit', (code) => this.broken(new Error(`a copy worker stopped (exit code ${code})`)));
      return lane;
    });
  }

  /** Whether a worker can take this content (it can read a local file, or be handed the bytes). */
  static canTake(content: FileContent): content is LocalFileContent | Buffer {
    return content instanceof LocalFileContent || Buffer.isBuffer(content);
  }

  /** Has a worker write `content` (see canTake, or an S3 object) at `placement`; the file written. */
  write({ dir, name, inPlace, tempDir }: Placement, write: AtomicWriteOptions, content: LocalFileContent | Buffer | RemoteObject): Promise<WrittenFile> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    const lane = this.lanes.reduce((least, l) => (l.inFlight < least.inFlight ? l : least));
    const shipped = content instanceof LocalFileContent ? { root: content.root, path: content.path, size: content.size }
      : Buffer.isBuffer(content) ? { bytes: content } : { remote: content };
    if (lane.outbox.length === 0) setImmediate(() => this.flush(lane));
    lane.outbox.push({ id, placement: { dirFd: dir.fd, name, inPlace, tempDirFd: tempDir?.fd }, write, content: shipped });
    lane.inFlight++;
    return new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject }));
  }

  /** Files each worker wrote. */
  get filesWritten(): number[] {
    return this.lanes.map((lane) => lane.written);
  }

  /** Stops the workers (once every write has settled). */
  async close(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => {
      lane.worker.removeAllListeners('exit');
      return lane.worker.terminate();
    }));
  }

  private flush(lane: Lane): void {
    if (lane.outbox.length === 0) return;
    lane.worker.postMessage(lane.outbox);
    lane.outbox = [];
  }

  private settle(lane: Lane, responses: CopyResponse[]): void {
    for (const response of responses) {
      lane.inFlight--;
      const waiter = this.waiting.get(response.id);
      this.waiting.delete(response.id);
      if (!waiter) continue;
      if (response.error) {
        waiter.reject(Object.assign(new Error(response.error.message), { code: response.error.code }));
      } else {
        lane.written++;
        waiter.resolve(response.written!);
      }
    }
  }

  /** A worker that dies fails what it had, and every later write: the run reports them and ends. */
  private broken(err: Error): void {
    this.failure ??= err;
    for (const waiter of this.waiting.values()) waiter.reject(err);
    this.waiting.clear();
  }
}
