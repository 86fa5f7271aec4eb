import { S3Client } from '@aws-sdk/client-s3';
import { s3TimeoutMs } from './s3-retry';

/** Where to reach S3: the defaults in Lambda; an endpoint (moto, MinIO) from the CLI and the tests. */
export interface S3Location {
  readonly endpoint?: string;
  readonly region?: string;
  /** Path-style URLs, which S3-compatible servers on one host need. */
  readonly forcePathStyle?: boolean;
}

export function s3Client(location: S3Location = {}): S3Client {
  const endpoint = location.endpoint ?? process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL;
  const timeout = s3TimeoutMs();
  return new S3Client({
    endpoint,
    region: location.region ?? process.env.AWS_REGION ?? 'us-east-1',
    // Custom endpoints (moto, MinIO, LocalStack) serve buckets by path, not by host name.
    forcePathStyle: location.forcePathStyle ?? Boolean(endpoint),
    // The seed retries each request itself, per object (s3-retry.ts): the SDK's retries draw on one
    // quota shared by every request in flight, and give up after 3 attempts. Its adaptive mode, which
    // slows the client at each throttling answer, took 20 times as long when 10% of GETs were
    // throttled at random (bench/seed-s3-faults.ts): per-object waits slow only what S3 turned away.
    maxAttempts: 1,
    requestHandler: {
      connectionTimeout: timeout,
      // Without throwOnRequestTimeout the SDK only logs a warning and waits on.
      requestTimeout: timeout,
      throwOnRequestTimeout: true,
      socketTimeout: timeout,
      // Many parallel GETs: the default agent's 50 sockets would queue the pool's requests.
      httpsAgent: { maxSockets: 1024 },
      httpAgent: { maxSockets: 1024 },
    },
  });
}
