import { addMetered, meterOperation, MeteredIo, NfsRequests, NOTHING_METERED, scaleMetered } from './metering';
import { OperationRound } from './result';
import { percentiles } from './stats';

/** Times one operation of a phase; a failure is counted (and its message kept), never thrown. */
export type Timer = (operation: () => Promise<unknown>, bytes?: number) => Promise<boolean>;

/** Distinct error messages kept per phase and per scenario. */
export const MAX_MESSAGES = 5;

/**
 * Collects a scenario round's measurements, one phase per operation kind: the phase's wall time
 * gives ops/s and bytes/s, each timed operation one latency sample, and each operation that
 * succeeded what EFS meters for the NFS requests it sends (`requests`).
 */
export class Recorder {
  readonly operations: OperationRound[] = [];
  private readonly messages = new Set<string>();

  /** Runs `body` as the phase `operation`; `body` times each operation with the timer it is given. */
  async phase(operation: string, requests: NfsRequests, body: (time: Timer) => Promise<void>): Promise<void> {
    const latencies: number[] = [];
    let errors = 0;
    let bytes = 0;
    let metered = NOTHING_METERED;
    const time: Timer = async (fn, opBytes = 0) => {
      const start = process.hrtime.bigint();
      try {
        await fn();
      } catch (err) {
        errors++;
        this.remember(err);
        return false;
      }
      latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
      bytes += opBytes;
      metered = addMetered(metered, meterOperation(requests, opBytes));
      return true;
    };
    const started = process.hrtime.bigint();
    try {
      await body(time);
    } finally {
      this.record(operation, latencies, Number(process.hrtime.bigint() - started) / 1e9, bytes, errors, metered);
    }
  }

  /** Adds a phase measured elsewhere (e.g. by child processes): `bytes` spread evenly over its operations. */
  add(operation: string, requests: NfsRequests, latenciesMs: number[], seconds: number, bytes: number, errors: number): void {
    const count = latenciesMs.length;
    const metered = scaleMetered(meterOperation(requests, count > 0 ? bytes / count : 0), count);
    this.record(operation, latenciesMs, seconds, bytes, errors, metered);
  }

  private record(operation: string, latenciesMs: number[], seconds: number, bytes: number, errors: number, metered: MeteredIo): void {
    const perSecond = (n: number) => (seconds > 0 ? n / seconds : 0);
    this.operations.push({
      operation, count: latenciesMs.length, errors, seconds, bytes,
      opsPerSecond: perSecond(latenciesMs.length), bytesPerSecond: perSecond(bytes), latencyMs: percentiles(latenciesMs), metered,
    });
  }

  remember(err: unknown): void {
    if (this.messages.size < MAX_MESSAGES) this.messages.add((err as Error).message ?? String(err));
  }

  get errorMessages(): string[] {
    return [...this.messages];
  }
}
