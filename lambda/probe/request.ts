import { defaultScenarios, SCENARIOS, scenarioNamed } from './catalog';
import { CANARY_REQUEST, S3_FILES_CANARY_REQUEST } from '../../lib/probe/contract/canary-requests';
import { resolveParams, Scenario } from './scenario';

export interface PlannedScenario {
  readonly scenario: Scenario;
  readonly params: Record<string, unknown>;
}

export interface ParsedRequest {
  readonly scenarios: PlannedScenario[];
  readonly rounds: number;
  readonly pauseSeconds: number;
  readonly maxBytes: number;
  readonly maxSeconds?: number;
  readonly label: string;
}

/** The limits of whoever runs the probe: the deployer's byte cap, the Lambda's remaining time. */
export interface ProbeLimits {
  readonly maxBytes: number;
  readonly maxSeconds?: number;
  /** Whether the probe has the bucket behind an S3 Files mount (what S3 Files' own scenarios need). @default false */
  readonly bucket?: boolean;
}

const REQUEST_KEYS = ['scenarios', 'rounds', 'pauseSeconds', 'maxBytes', 'maxSeconds', 'label'];
const ROUNDS = { min: 1, max: 100, default: 1 };
const PAUSE_SECONDS = { min: 0, max: 600, default: 10 };

/**
 * Checks a request (any JSON: the library's ProbeRequest, lib/probe-request.ts, or one whose
 * `scenarios` is a list of names) and fills in defaults; every problem is listed, nothing is run.
 */
export function parseRequest(input: unknown, limits: ProbeLimits): { request?: ParsedRequest; errors: string[] } {
  const errors: string[] = [];
  if (input === undefined || input === null) input = {};
  if (typeof input !== 'object' || Array.isArray(input)) return { errors: [`the request must be a JSON object, got ${JSON.stringify(input)}`] };
  const given = input as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!REQUEST_KEYS.includes(key)) errors.push(`unknown field '${key}'; allowed: ${REQUEST_KEYS.join(', ')}`);
  }

  const scenarios: PlannedScenario[] = [];
  for (const [name, params] of scenarioEntries(given.scenarios, limits.bucket ?? false, errors)) {
    const scenario = scenarioNamed(name);
    if (!scenario) {
      errors.push(`unknown scenario '${name}'; allowed: ${SCENARIOS.map((s) => s.name).join(', ')}`);
      continue;
    }
    if (scenario.needsBucket && !limits.bucket) {
      errors.push(`scenario '${name}' measures S3 Files through its bucket, and this probe has none: give --bucket s3://<bucket>/<prefix> (the command line), or probe an S3 Files file system`);
      continue;
    }
    const resolved = resolveParams(scenario, params);
    errors.push(...resolved.errors);
    if (resolved.params) scenarios.push({ scenario, params: resolved.params });
  }

  const integer = (key: string, range: { min: number; max: number }, fallback: number) => {
    const value = given[key] ?? fallback;
    if (!Number.isInteger(value) || (value as number) < range.min || (value as number) > range.max) {
      errors.push(`'${key}' must be an integer from ${range.min} to ${range.max}, got ${JSON.stringify(value)}`);
    }
    return value as number;
  };
  const rounds = integer('rounds', ROUNDS, ROUNDS.default);
  const pauseSeconds = integer('pauseSeconds', PAUSE_SECONDS, PAUSE_SECONDS.default);
  const maxBytes = integer('maxBytes', { min: 1, max: limits.maxBytes }, limits.maxBytes);
  const secondsLimit = limits.maxSeconds === undefined ? Number.MAX_SAFE_INTEGER : Math.floor(limits.maxSeconds);
  const maxSeconds = given.maxSeconds === undefined ? limits.maxSeconds : integer('maxSeconds', { min: 1, max: secondsLimit }, secondsLimit);
  const label = given.label ?? 'probe';
  if (typeof label !== 'string' || !/^[\w.:@+-]{1,64}$/.test(label)) errors.push(`'label' must be 1 to 64 letters, digits or ._:@+-, got ${JSON.stringify(label)}`);

  if (errors.length) return { errors };
  return { request: { scenarios, rounds, pauseSeconds, maxBytes, maxSeconds, label: label as string }, errors };
}

function scenarioEntries(value: unknown, withBucket: boolean, errors: string[]): [string, unknown][] {
  if (value === undefined) return defaultScenarios(withBucket).map((s) => [s.name, undefined]);
  // The default canary's scenarios for this probe's kind (`cdk-efs-kit probe --function --canary`, which cannot tell the kind).
  if (value === 'canary') return Object.entries((withBucket ? S3_FILES_CANARY_REQUEST : CANARY_REQUEST).scenarios!);
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) return value.map((name) => [name, undefined]);
  if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) return Object.entries(value);
  errors.push(`'scenarios' must be a non-empty list of names, an object of names to parameters, or "canary", got ${JSON.stringify(value)}`);
  return [];
}

/** The scenarios, their parameters (defaults and limits) and the request fields: the answer to a bad request. */
export function allowedRequest(limits: ProbeLimits): Record<string, unknown> {
  return {
    scenarios: Object.fromEntries(SCENARIOS.map((s) => [s.name, { reproduces: s.reproduces, params: s.params, ...(s.needsBucket ? { needsBucket: true } : {}) }])),
    rounds: ROUNDS,
    pauseSeconds: PAUSE_SECONDS,
    maxBytes: { min: 1, max: limits.maxBytes, default: limits.maxBytes },
    maxSeconds: limits.maxSeconds === undefined ? { min: 1, default: 'unlimited' } : { min: 1, max: Math.floor(limits.maxSeconds), default: Math.floor(limits.maxSeconds) },
    label: 'up to 64 letters, digits or ._:@+-',
  };
}
