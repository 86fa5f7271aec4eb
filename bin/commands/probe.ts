import * as fs from 'fs';
import { Command, InvalidArgumentError } from 'commander';
import { defaultScenarios, SCENARIOS, scenarioNamed } from '../../lambda/probe/catalog';
import { DEFAULT_MAX_BYTES } from '../../lib/probe/contract/limits';
import { CANARY_REQUEST } from '../../lib/probe/contract/canary-requests';
import type { ProbeRequest } from '../../lib/probe/probe-request';
import { isRejection, ProbeRejection, ProbeResult } from '../../lambda/probe/result';
import type { ProbeProgress } from '../../lambda/probe/runner';
import { packageVersion } from '../../lib/core/package-root';
import { jsonOption, markdownOption, OutputOptions } from '../output-options';
import { outputLayout } from '../report/text-layout';
import { terminalBar } from '../terminal-bar';

/**
 * `cdk-efs-kit probe --dir <path>`: the scenarios the BenchmarkProbe Lambda runs, on any mount;
 * `--function <name or ARN>`: the same request run by a deployed BenchmarkProbe, rendered the same.
 */
export function register(program: Command): void {
  program.command('probe')
    .description('measure what applications feel on a mounted file system: latency percentiles and throughput of the experiments published EFS benchmarks ran (--list names them)')
    .option('--dir <path>', 'the directory to probe, e.g. /mnt/efs (scratch files go in a subdirectory, removed afterwards)')
    .option('--function <name or ARN>', 'instead of --dir: invoke a deployed BenchmarkProbe\'s function and show its result as a local run\'s')
    .option('--bucket <s3-url>', 'with --dir on an S3 Files mount: the bucket and prefix the directory is (s3://bucket/prefix/); adds S3 Files\' own scenarios (import, direct-read, export-lag)')
    .option('--s3-endpoint <url>', 'with --bucket: another S3 endpoint, e.g. a local test server')
    .option('--canary', 'with --function: send the default canary request of the probe\'s kind (on S3 Files with its own scenarios)')
    .option('--region <region>', 'with --function or --bucket: the function\'s or the bucket\'s Region (default: AWS_REGION, or the profile\'s)')
    .option('--profile <name>', 'with --function: named profile of the AWS config files (default: AWS_PROFILE)')
    .option('--endpoint <url>', 'with --function: endpoint for the Lambda call, e.g. a local stand-in')
    .option('--scenarios <names>', `comma-separated scenarios (default: all; S3 Files' own with --bucket): ${SCENARIOS.map((s) => s.name).join(', ')}`, (v) => v.split(',').map((s) => s.trim()).filter(Boolean))
    .option('--set <scenario.param=value>', 'a scenario parameter, repeatable; lists with commas; sizes may end in KiB, MiB or GiB', collectSetting, {})
    .option('--rounds <n>', 'times every scenario runs (the Elastic vs Bursting benchmark ran 5)', integer)
    .option('--pause <seconds>', 'seconds between rounds (that benchmark paused 10)', integer)
    .option('--max-bytes <n>', `refuse a run that would move more bytes (default: ${DEFAULT_MAX_BYTES / 1024 ** 3} GiB)`, integer)
    .option('--max-seconds <n>', 'refuse a run estimated to take longer', integer)
    .option('--label <name>', 'a name for this run, shown by compare and the HTML report')
    .addOption(jsonOption('the result (the input of `cdk-efs-kit compare`: redirect it to a file)'))
    .addOption(markdownOption())
    .option('--html <file>', 'also write a self-contained HTML report with charts')
    .option('--list', 'list the scenarios, what they reproduce and their parameters')
    .addHelpText('after', `
Examples:
  $ cdk-efs-kit probe --dir /mnt/efs --scenarios write-sizes --rounds 5 --pause 10 --label elastic --json > elastic.json
  $ cdk-efs-kit probe --dir /mnt/efs --scenarios create-files,metadata --set create-files.files=4096
  $ cdk-efs-kit probe --dir /mnt/efs --set write-sizes.sizesBytes=1KiB,1MiB --html report.html
  $ cdk-efs-kit probe --dir /mnt/s3files/probe --bucket s3://my-bucket/probe/ --scenarios import,direct-read,export-lag
  $ cdk-efs-kit probe --function MyStack-FilesProbeFunction1A2B3C4D --scenarios metadata --region eu-west-1
  $ cdk-efs-kit probe --function arn:aws:lambda:eu-west-1:123456789012:function:probe --canary --json > canary.json`)
    .action(async (opts: ProbeCliOptions) => {
      if (opts.list) return printScenarios();
      if (opts.dir && opts.function) throw new Error('--dir and --function: give one, the directory to probe or the deployed probe to invoke');
      if (!opts.dir && !opts.function) throw new Error('--dir or --function is required: the directory to probe, or the deployed probe to invoke');
      const remoteOnly = (['canary', 'profile', 'endpoint', ...(opts.bucket ? [] : ['region'] as const)] as const).filter((o) => opts[o] !== undefined);
      if (opts.dir && remoteOnly.length) throw new Error(`--${remoteOnly[0]} applies to --function only`);
      if (opts.function && opts.bucket) throw new Error('--bucket applies to --dir only: a deployed probe on S3 Files has its bucket already');
      if (opts.s3Endpoint && !opts.bucket) throw new Error('--s3-endpoint applies to --bucket only');
      const request = requestOf(opts);
      process.exitCode = await render(opts.function ? await runDeployed(opts.function, request, opts) : await runLocal(opts.dir!, request, opts), opts);
    });
}

interface ProbeCliOptions extends OutputOptions {
  dir?: string;
  scenarios?: string[];
  set: Record<string, Record<string, unknown>>;
  rounds?: number;
  pause?: number;
  maxBytes?: number;
  maxSeconds?: number;
  label?: string;
  html?: string;
  list?: boolean;
  function?: string;
  bucket?: string;
  s3Endpoint?: string;
  canary?: boolean;
  region?: string;
  profile?: string;
  endpoint?: string;
}

/** The request the flags describe: what a local run runs and what a deployed probe is sent. */
function requestOf(opts: ProbeCliOptions): ProbeRequest {
  if (opts.canary) {
    const given = (['scenarios', 'rounds', 'pause'] as const).filter((o) => opts[o] !== undefined);
    if (given.length || Object.keys(opts.set).length) throw new Error(`--canary sends the canary's own request: leave out ${given.length ? `--${given[0]}` : '--set'}`);
    // "canary": the probe runs its kind's canary scenarios (EFS's, or S3 Files' with its own).
    return { ...CANARY_REQUEST, scenarios: 'canary' as unknown as ProbeRequest['scenarios'], maxBytes: opts.maxBytes, maxSeconds: opts.maxSeconds, label: opts.label ?? CANARY_REQUEST.label };
  }
  const names = opts.scenarios ?? (Object.keys(opts.set).length ? Object.keys(opts.set) : defaultScenarios(opts.bucket !== undefined).map((s) => s.name));
  for (const name of Object.keys(opts.set)) {
    if (!names.includes(name)) throw new Error(`--set ${name}.…: '${name}' is not among --scenarios ${names.join(',')}`);
  }
  return {
    scenarios: Object.fromEntries(names.map((n) => [n, opts.set[n] ?? {}])),
    rounds: opts.rounds, pauseSeconds: opts.pause, maxBytes: opts.maxBytes, maxSeconds: opts.maxSeconds, label: opts.label,
  };
}

async function runLocal(dir: string, request: ProbeRequest, opts: ProbeCliOptions): Promise<ProbeResult | ProbeRejection> {
  // Loaded here, not at start: every `cdk-efs-kit` command would pay for it.
  const { runProbe } = await import('../../lambda/probe/runner');
  const bucket = opts.bucket === undefined ? undefined
    : (await import('../../lambda/probe/probe-bucket')).ProbeBucket.open(opts.bucket, dir, { region: opts.region, endpoint: opts.s3Endpoint });
  const progress = await progressReporter();
  try {
    return await runProbe(request, {
      target: dir, maxBytes: opts.maxBytes, maxSeconds: opts.maxSeconds, bucket, tool: 'cdk-efs-kit probe (CLI)', version: packageVersion(), onProgress: progress.update,
    });
  } finally {
    progress.stop();
    bucket?.close();
  }
}

async function runDeployed(functionName: string, request: ProbeRequest, opts: ProbeCliOptions): Promise<ProbeResult | ProbeRejection> {
  const { invokeProbe } = await import('../deployed-probe/invoke-probe');
  // The function answers once the run is over: no progress to show until then.
  console.error(`probe: invoking ${functionName}; it answers when the run is over (at most the function's timeout)`);
  return invokeProbe({ functionName, region: opts.region, profile: opts.profile, endpoint: opts.endpoint }, request);
}

/** The outcome as text, JSON or Markdown (and --html), the same for a local run and a deployed probe's; the exit code. */
async function render(outcome: ProbeResult | ProbeRejection, opts: ProbeCliOptions): Promise<number> {
  if (isRejection(outcome)) {
    console.error(`cdk-efs-kit probe: the request is ${outcome.status}:`);
    for (const e of outcome.errors) console.error(`  ${e}`);
    console.error('Run `cdk-efs-kit probe --list` for the scenarios and their parameters.');
    return 2;
  }
  // Loaded here, not at start: every `cdk-efs-kit` command would pay for them.
  const { renderResultTables } = await import('../report/result-table');
  const { renderHtmlReport } = await import('../report/html-report');
  console.log(opts.json ? JSON.stringify(outcome, null, 2) : renderResultTables(outcome, outputLayout(opts)));
  if (opts.html) fs.writeFileSync(opts.html, renderHtmlReport([outcome]));
  return outcome.status === 'ok' ? 0 : 1;
}

/** A bar over the scenario rounds on a terminal; a line per scenario round otherwise, and one when all are done. */
async function progressReporter(): Promise<{ update: (p: ProbeProgress) => void; stop: () => void }> {
  if (process.stderr.isTTY) {
    const bar = await terminalBar('probe [{bar}] {value}/{total} | round {round}/{rounds} {scenario}');
    return { update: (p) => bar.update(p.done, p.total, p), stop: bar.stop };
  }
  return {
    update: (p) => {
      if (p.phase === 'start') console.error(`probe: round ${p.round}/${p.rounds} ${p.scenario} (${p.done}/${p.total} done)`);
      // The last line before the tables is the final count, not the last round's start.
      else if (p.done === p.total) console.error(`probe: ${p.done}/${p.total} done`);
    },
    stop: () => undefined,
  };
}

function printScenarios(): void {
  for (const s of SCENARIOS) {
    console.log(`${s.name}\n  ${s.description}\n  Reproduces ${s.reproduces}.`);
    for (const [name, spec] of Object.entries(s.params)) {
      const limits = spec.type === 'boolean' ? 'true|false' : `${spec.min}-${spec.max}`;
      console.log(`    ${s.name}.${name} = ${JSON.stringify(spec.default)} (${spec.type} ${limits}): ${spec.doc}`);
    }
    console.log('');
  }
}

function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError('must be an integer');
  return n;
}

const UNITS: Record<string, number> = { '': 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };

/** `scenario.param=value`: integers (with an optional KiB/MiB/GiB unit), comma lists, true/false. */
function collectSetting(setting: string, into: Record<string, Record<string, unknown>>): Record<string, Record<string, unknown>> {
  const match = /^([\w-]+)\.(\w+)=(.+)$/.exec(setting);
  if (!match) throw new InvalidArgumentError('expected scenario.param=value, e.g. write-sizes.files=10');
  const [, scenario, param, raw] = match;
  const one = (v: string): number | boolean => {
    if (v === 'true' || v === 'false') return v === 'true';
    const m = /^(\d+(?:\.\d+)?)(KiB|MiB|GiB)?$/.exec(v.trim());
    if (!m) throw new InvalidArgumentError(`'${v}' is not a number, a size like 64KiB, or true/false`);
    return Math.round(Number(m[1]) * UNITS[m[2] ?? '']);
  };
  const values = raw.split(',').map(one);
  const isList = scenarioNamed(scenario)?.params[param]?.type === 'integer[]';
  return { ...into, [scenario]: { ...into[scenario], [param]: isList || values.length > 1 ? values : values[0] } };
}
