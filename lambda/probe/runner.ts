import * as fs from 'fs';
import * as path from 'path';
import { EfsPricing } from '../../lib/cost/efs-pricing';
import { S3FilesPricing } from '../../lib/cost/s3-files-pricing';
import { calibrate, estimateSeconds } from './calibrate';
import { scenarioCost } from './cost';
import { probeMountChecks, ProbeAccessPoint } from './mount-checks';
import type { ProbeBucket } from './probe-bucket';
import { MAX_MESSAGES, Recorder } from './recorder';
import { DEFAULT_MAX_BYTES } from '../../lib/probe/contract/limits';
import { allowedRequest, ParsedRequest, parseRequest, PlannedScenario } from './request';
import { Calibration, FindingValue, OperationRound, OperationSummary, ProbeRejection, ProbeResult, ScenarioResult, ScenarioRound, scenarioFailed } from './result';
import { createScratchRoot, removeStaleScratch, removeTree } from './scratch';
import { spread } from './stats';
import { MiB } from '../shared/sizes';

/** Where and within which limits the probe runs: the Lambda's mount and remaining time, or the CLI's flags. */
export interface ProbeEnvironment {
  /** The directory to probe (a mounted EFS access point, say). */
  readonly target: string;
  /** Bytes any request may move. @default 8 GiB */
  readonly maxBytes?: number;
  /** Seconds any request may take. @default - unlimited */
  readonly maxSeconds?: number;
  readonly fileSystemId?: string;
  /** The access point `target` is mounted through, when known: its POSIX user is checked against this process's. */
  readonly accessPoint?: ProbeAccessPoint;
  /** Whether the probe runs in Lambda, which mounts the access point itself (see ProbeMountContext). @default false */
  readonly insideLambda?: boolean;
  /** The mount table, for the mount checks. @default reads /proc/self/mountinfo */
  readonly mountinfo?: () => string;
  /** The bucket behind an S3 Files mount at `target`: S3 Files' own scenarios run through it. @default - none: they are refused */
  readonly bucket?: ProbeBucket;
  /** The prices of the scenarios' costs. @default EfsPricing.US_EAST_1 */
  readonly pricing?: EfsPricing;
  /** The prices of the scenarios' costs on S3 Files. @default S3FilesPricing.forRegion('us-east-1') */
  readonly s3FilesPricing?: S3FilesPricing;
  readonly tool: string;
  readonly version: string;
  /** Told when each scenario round starts and ends. */
  readonly onProgress?: (event: ProbeProgress) => void;
  /** @default a real pause */
  readonly sleep?: (seconds: number) => Promise<void>;
}

export interface ProbeProgress {
  readonly round: number;
  readonly rounds: number;
  readonly scenario: string;
  /** Scenario rounds finished so far, of `total`. */
  readonly done: number;
  readonly total: number;
  readonly phase: 'start' | 'end';
}

/**
 * Runs a probe request: checks it (an invalid request returns the errors and what is allowed),
 * calibrates the target and refuses up front what would not fit the byte or time budget, then runs
 * each round of each scenario in its own scratch directory, removed afterwards even on failure.
 */
export async function runProbe(input: unknown, env: ProbeEnvironment): Promise<ProbeResult | ProbeRejection> {
  const limits = { maxBytes: env.maxBytes ?? DEFAULT_MAX_BYTES, maxSeconds: env.maxSeconds, bucket: env.bucket !== undefined };
  const parsed = parseRequest(input, limits);
  if (!parsed.request) return { status: 'invalid', errors: parsed.errors, allowed: allowedRequest(limits) };
  const request = parsed.request;

  const started = Date.now();
  let root: string;
  try {
    await removeStaleScratch(env.target);
    root = await createScratchRoot(env.target);
  } catch (err) {
    return { status: 'invalid', errors: [`cannot use the target: ${(err as Error).message}`], allowed: allowedRequest(limits) };
  }
  try {
    let calibration: Calibration | undefined;
    try {
      calibration = request.maxSeconds === undefined ? undefined : await calibrate(root);
    } catch (err) {
      return { status: 'refused', errors: [`cannot measure the target to plan the run: ${(err as Error).message}`], allowed: allowedRequest(limits) };
    }
    const budget = checkBudget(request, calibration);
    if (budget.errors.length) return { status: 'refused', errors: budget.errors, allowed: allowedRequest(limits) };

    const deadline = request.maxSeconds === undefined ? Infinity : started + request.maxSeconds * 1000;
    const pricing = env.pricing ?? EfsPricing.US_EAST_1;
    const s3FilesPricing = env.s3FilesPricing ?? S3FilesPricing.forRegion('us-east-1')!;
    const mountChecks = probeMountChecks({ target: env.target, fileSystemId: env.fileSystemId, accessPoint: env.accessPoint, insideLambda: env.insideLambda, mountinfo: env.mountinfo });
    const scenarios = await runRounds(request, root, deadline, env, pricing, s3FilesPricing);
    return {
      status: scenarios.some(scenarioFailed) ? 'failed' : 'ok',
      tool: env.tool,
      version: env.version,
      label: request.label,
      target: env.target,
      fileSystemId: env.fileSystemId,
      startedAt: new Date(started).toISOString(),
      seconds: (Date.now() - started) / 1000,
      rounds: request.rounds,
      pauseSeconds: request.pauseSeconds,
      budget: { maxBytes: request.maxBytes, maxSeconds: request.maxSeconds ?? null, plannedBytes: budget.bytes, estimatedSeconds: budget.seconds ?? null },
      calibration,
      pricing: pricing.label,
      s3FilesPricing: s3FilesPricing.label,
      fileSystemKind: env.bucket ? 's3-files' : 'efs',
      scenarios,
      mountChecks,
    };
  } finally {
    // A file system that fails even this leaves the directory to the next run's sweep of stale scratch.
    await removeTree(root).catch(() => undefined);
  }
}

/** The whole run's bytes and, with a calibration, its estimated time; errors name what does not fit. */
function checkBudget(request: ParsedRequest, calibration: Calibration | undefined): { bytes: number; seconds?: number; errors: string[] } {
  const plans = request.scenarios.map((s) => ({ name: s.scenario.name, plan: s.scenario.plan(s.params) }));
  const bytes = request.rounds * plans.reduce((sum, p) => sum + p.plan.bytes, 0);
  const errors: string[] = [];
  const each = (f: (p: typeof plans[number]) => string) => plans.map(f).join(', ');
  if (bytes > request.maxBytes) {
    errors.push(`the run would move ${mib(bytes)} (${request.rounds} round(s) of ${each((p) => `${p.name} ${mib(p.plan.bytes)}`)}), `
      + `more than the byte budget of ${mib(request.maxBytes)}: lower the scenarios' sizes or rounds, or raise maxBytes`);
  }
  if (!calibration || request.maxSeconds === undefined) return { bytes, errors };
  const perRound = plans.map((p) => ({ ...p, seconds: estimateSeconds(p.plan, calibration) }));
  const seconds = request.rounds * perRound.reduce((sum, p) => sum + p.seconds, 0) + (request.rounds - 1) * request.pauseSeconds;
  if (seconds > request.maxSeconds) {
    errors.push(`the run would take about ${seconds.toFixed(0)} s (${request.rounds} round(s) of ${perRound.map((p) => `${p.name} ${p.seconds.toFixed(1)} s`).join(', ')}`
      + `${request.rounds > 1 ? ` and ${request.rounds - 1} pause(s) of ${request.pauseSeconds} s` : ''}; measured here: ${calibration.roundTripMs.toFixed(2)} ms per file create, `
      + `${mib(calibration.writeBytesPerSecond)}/s writes), more than the time budget of ${request.maxSeconds} s: lower the scenarios' sizes or rounds, or give the probe more time`);
  }
  return { bytes, seconds, errors };
}

async function runRounds(request: ParsedRequest, root: string, deadline: number, env: ProbeEnvironment, pricing: EfsPricing, s3FilesPricing: S3FilesPricing): Promise<ScenarioResult[]> {
  const sleep = env.sleep ?? ((s: number) => new Promise<void>((resolve) => setTimeout(resolve, s * 1000)));
  const states = request.scenarios.map((planned) => ({ planned, rounds: [] as ScenarioRound[], findings: {} as Record<string, FindingValue>, messages: new Set<string>(), failure: undefined as string | undefined }));
  const total = request.rounds * states.length;
  let done = 0;
  for (let round = 1; round <= request.rounds; round++) {
    if (round > 1) await sleep(request.pauseSeconds);
    for (const state of states) {
      const name = state.planned.scenario.name;
      if (state.failure) continue;
      if (Date.now() >= deadline) {
        state.failure = `not run from round ${round} on: the time budget ran out`;
        continue;
      }
      env.onProgress?.({ round, rounds: request.rounds, scenario: name, done, total, phase: 'start' });
      const recorder = new Recorder();
      const startedAt = new Date().toISOString();
      try {
        await runOnce(state.planned, path.join(root, `${name}-${round}`), recorder, state.findings, env.bucket);
      } catch (err) {
        state.failure = `round ${round}: ${(err as Error).message}`;
      }
      state.rounds.push({ round, startedAt, operations: recorder.operations });
      recorder.errorMessages.forEach((m) => state.messages.add(m));
      env.onProgress?.({ round, rounds: request.rounds, scenario: name, done: ++done, total, phase: 'end' });
    }
  }
  return states.map((s) => ({
    scenario: s.planned.scenario.name,
    reproduces: s.planned.scenario.reproduces,
    params: s.planned.params,
    rounds: s.rounds,
    summary: summarize(s.rounds),
    findings: s.findings,
    errorMessages: [...s.messages].slice(0, MAX_MESSAGES),
    ...(s.failure ? { failure: s.failure } : {}),
    cost: scenarioCost(s.rounds, pricing, s3FilesPricing),
  }));
}

async function runOnce(planned: PlannedScenario, dir: string, recorder: Recorder, findings: Record<string, FindingValue>, bucket?: ProbeBucket): Promise<void> {
  await fs.promises.mkdir(dir);
  try {
    await planned.scenario.run({ dir, params: planned.params, recorder, finding: (key, value) => { findings[key] = value; }, bucket });
  } finally {
    await removeTree(dir);
  }
}

/** Each operation's figures over the rounds: mean and spread. */
function summarize(rounds: ScenarioRound[]): OperationSummary[] {
  const byOperation = new Map<string, OperationRound[]>();
  for (const r of rounds) for (const o of r.operations) byOperation.set(o.operation, [...(byOperation.get(o.operation) ?? []), o]);
  return [...byOperation].map(([operation, list]) => ({
    operation,
    count: list.reduce((n, o) => n + o.count, 0),
    errors: list.reduce((n, o) => n + o.errors, 0),
    opsPerSecond: spread(list.map((o) => o.opsPerSecond)),
    bytesPerSecond: spread(list.map((o) => o.bytesPerSecond)),
    latencyMs: {
      p50: spread(list.map((o) => o.latencyMs.p50)),
      p90: spread(list.map((o) => o.latencyMs.p90)),
      p99: spread(list.map((o) => o.latencyMs.p99)),
      max: spread(list.map((o) => o.latencyMs.max)),
    },
  }));
}

function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(bytes < 10 * MiB ? 1 : 0)} MiB`;
}
