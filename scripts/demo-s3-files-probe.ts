import type { ProbeResult } from '../lambda/probe/result';
import { S3_FILES_CANARY_REQUEST } from '../lib/probe/contract/canary-requests';
import { renderResultTables } from '../bin/report/result-table';
import { outputLayout } from '../bin/report/text-layout';
import { runCli } from './demo-cli';

/**
 * The S3 Files demo's probe: `cdk-efs-kit probe --dir <mount> --bucket s3://bucket/` with the
 * request a BenchmarkProbe on S3 Files runs as its canary (lib/probe/contract/canary-requests.ts):
 * EFS's small writes, creates and metadata calls, and S3 Files' own import, direct reads and export
 * lag, through the bucket on moto.
 */
/** The canary request as the command line's flags: --scenarios, a --set per parameter, --rounds. */
export function canaryFlags(): string[] {
  const { scenarios, rounds } = S3_FILES_CANARY_REQUEST;
  const sets = Object.entries(scenarios).flatMap(([scenario, params]) =>
    Object.entries(params).flatMap(([param, value]) => ['--set', `${scenario}.${param}=${Array.isArray(value) ? value.join(',') : value}`]));
  return ['--scenarios', Object.keys(scenarios).join(','), ...sets, '--rounds', String(rounds)];
}

/** Probes `mount`, whose bucket is `bucketUrl` on `endpoint`; prints the probe's tables and returns its result. */
export async function probeS3FilesMount(mount: string, bucketUrl: string, endpoint: string): Promise<ProbeResult> {
  const args = ['probe', '--dir', mount, '--bucket', bucketUrl, '--s3-endpoint', endpoint, ...canaryFlags(), '--label', 's3-files-canary'];
  console.log(`  $ cdk-efs-kit ${args.join(' ')}`);
  // Standard error (a progress line per scenario round) goes to the terminal as it comes.
  const run = await runCli([...args, '--json'], { captureStdout: true });
  if (run.status !== 0 && !run.stdout) throw new Error(`the probe failed (exit ${run.status ?? run.signal})`);
  const result = JSON.parse(run.stdout) as ProbeResult;
  console.log(renderResultTables(result, outputLayout()));
  return result;
}

/** Each scenario with the operations it measured and their errors, and the scenario's failure if any. */
export function probeOutcome(result: ProbeResult): Array<{ scenario: string; operations: number; errors: number; failure?: string }> {
  return result.scenarios.map((s) => {
    const operations = s.rounds.flatMap((r) => r.operations);
    return {
      scenario: s.scenario,
      operations: operations.reduce((n, o) => n + o.count, 0),
      errors: operations.reduce((n, o) => n + o.errors, 0),
      failure: s.failure,
    };
  });
}
