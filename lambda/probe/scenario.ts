import type { ProbeBucket } from './probe-bucket';
import type { Recorder } from './recorder';
import type { FindingValue } from './result';

/** A parameter of a scenario: its type, default and limits (what `allowed` lists on bad input). */
export type ParamSpec =
  | { readonly type: 'integer'; readonly default: number; readonly min: number; readonly max: number; readonly doc: string }
  | { readonly type: 'integer[]'; readonly default: readonly number[]; readonly min: number; readonly max: number; readonly maxItems: number; readonly doc: string }
  | { readonly type: 'boolean'; readonly default: boolean; readonly doc: string };

export type ParamValue = number | readonly number[] | boolean;
export type ParamSpecs<P> = { readonly [K in keyof P]: ParamSpec };

/** What a scenario will cost, for the budgets: checked before anything runs. */
export interface Plan {
  /** Bytes written and read, scratch setup included. */
  readonly bytes: number;
  /**
   * Operations on its critical path, in units of the calibrated round trip (creating one empty
   * file): parallel work counts once per wave, serial work once per operation.
   */
  readonly roundTrips: number;
  /** Seconds it waits on something other than the file system (an S3 Files sync), besides. @default 0 */
  readonly waitSeconds?: number;
}

export interface ScenarioContext<P> {
  /** An empty scratch directory for this round, removed afterwards. */
  readonly dir: string;
  readonly params: P;
  readonly recorder: Recorder;
  /** Reports a finding besides timings (e.g. whether locks are honoured). */
  readonly finding: (key: string, value: FindingValue) => void;
  /** The bucket behind an S3 Files mount, where one was given: set for every scenario with `needsBucket`. */
  readonly bucket?: ProbeBucket;
}

/** One experiment of the probe, reproducing a measurement of a published EFS benchmark. */
export interface Scenario<P = any> {
  readonly name: string;
  /** The published benchmark and figure it reproduces. */
  readonly reproduces: string;
  /** What it does and what the result means for an application. */
  readonly description: string;
  readonly params: ParamSpecs<P>;
  /** Measures what only S3 Files has, through its bucket: runs only where the probe is given one. */
  readonly needsBucket?: boolean;
  plan(params: P): Plan;
  run(context: ScenarioContext<P>): Promise<void>;
}

/** Checks `given` against the scenario's parameter specs; fills in defaults. */
export function resolveParams<P>(scenario: Scenario<P>, given: unknown): { params?: P; errors: string[] } {
  const errors: string[] = [];
  const where = `scenario '${scenario.name}'`;
  if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given))) {
    return { errors: [`${where}: parameters must be an object, got ${JSON.stringify(given)}`] };
  }
  const input = (given ?? {}) as Record<string, unknown>;
  const specs = scenario.params as Record<string, ParamSpec>;
  for (const key of Object.keys(input)) {
    if (!(key in specs)) errors.push(`${where}: unknown parameter '${key}'; allowed: ${Object.keys(specs).join(', ')}`);
  }
  const params: Record<string, ParamValue> = {};
  for (const [key, spec] of Object.entries(specs)) {
    const value = input[key] ?? spec.default;
    const problem = checkValue(spec, value);
    if (problem) errors.push(`${where}: parameter '${key}' ${problem}, got ${JSON.stringify(value)}`);
    params[key] = value as ParamValue;
  }
  return errors.length ? { errors } : { params: params as P, errors };
}

function checkValue(spec: ParamSpec, value: unknown): string | undefined {
  const inRange = (v: unknown) => Number.isInteger(v) && (v as number) >= (spec as { min: number }).min && (v as number) <= (spec as { max: number }).max;
  switch (spec.type) {
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'integer':
      return inRange(value) ? undefined : `must be an integer from ${spec.min} to ${spec.max}`;
    case 'integer[]':
      return Array.isArray(value) && value.length >= 1 && value.length <= spec.maxItems && value.every(inRange)
        ? undefined
        : `must be a list of 1 to ${spec.maxItems} integers from ${spec.min} to ${spec.max}`;
  }
}
