import type { Context } from 'aws-lambda';
import { PROBE_METRICS_NAMESPACE } from '../../lib/probe/contract/metric-names';
import { publishProbeMetrics } from './metrics';
import { parsePosixUser } from './mount-checks';
import { ProbeBucket } from './probe-bucket';
import { isRejection } from './result';
import { runProbe } from './runner';

const SAFETY_MARGIN_SECONDS = 15;

/**
 * The probe Lambda: runs the request it is invoked with (or the canary request of its schedule) on
 * the mounted access point, within its remaining time, publishes EMF metrics and returns the result.
 * On S3 Files the construct names the bucket and key prefix the access point is (PROBE_BUCKET_URL),
 * which S3 Files' own scenarios put to, list and delete from.
 */
export async function handler(event: unknown, context: Context) {
  const env = process.env;
  const remaining = context.getRemainingTimeInMillis() / 1000;
  // Leave time to clean up scratch files and print metrics: the larger of 15 s and a tenth.
  const maxSeconds = Math.max(1, remaining - Math.max(SAFETY_MARGIN_SECONDS, remaining / 10));
  const fileSystemId = env.PROBE_FILE_SYSTEM_ID ?? 'unknown';
  // Set by the construct when it knows the access point (the one it creates); no POSIX_USER then means it enforces none.
  const accessPoint = env.PROBE_ACCESS_POINT_ID ? { id: env.PROBE_ACCESS_POINT_ID, posixUser: parsePosixUser(env.PROBE_ACCESS_POINT_POSIX_USER) } : undefined;
  const target = env.PROBE_MOUNT_PATH ?? '/mnt/probe';
  // The function's Region (AWS_REGION); AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, the SDKs' own settings, point it at another S3 (path-style).
  const endpoint = env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
  const bucket = env.PROBE_BUCKET_URL ? ProbeBucket.open(env.PROBE_BUCKET_URL, target, { endpoint }) : undefined;
  const outcome = await runProbe(event, {
    target,
    bucket,
    maxBytes: env.PROBE_MAX_BYTES ? Number(env.PROBE_MAX_BYTES) : undefined,
    maxSeconds,
    fileSystemId,
    accessPoint,
    insideLambda: true,
    tool: 'cdk-efs-kit probe (Lambda)',
    version: env.CDK_EFS_KIT_VERSION ?? 'unknown',
    onProgress: (p) => console.log(JSON.stringify({ message: `probe ${p.phase} ${p.scenario}`, round: p.round, rounds: p.rounds, done: p.done, total: p.total })),
  }).finally(() => bucket?.close());
  if (isRejection(outcome)) console.log(JSON.stringify({ message: `probe ${outcome.status}`, errors: outcome.errors }));
  publishProbeMetrics(outcome, env.PROBE_METRICS_NAMESPACE ?? PROBE_METRICS_NAMESPACE, fileSystemId);
  return outcome;
}
