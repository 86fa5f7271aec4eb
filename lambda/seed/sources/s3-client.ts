import { S3Client } from '@aws-sdk/client-s3';

/** Where to reach S3: the defaults in Lambda; an endpoint (moto, MinIO) from the CLI and the tests. */
export interface S3Location {
  readonly endpoint?: string;
  readonly region?: string;
  /** Path-style URLs, which S3-compatible servers on one host need. */
  readonly forcePathStyle?: boolean;
}

export function s3Client(location: S3Location = {}): S3Client {
  const endpoint = location.endpoint ?? process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL;
  return new S3Client({
    endpoint,
    region: location.region ?? process.env.AWS_REGION ?? 'us-east-1',
    // Custom endpoints (moto, MinIO, LocalStack) serve buckets by path, not by host name.
    forcePathStyle: location.forcePathStyle ?? Boolean(endpoint),
    // Many parallel GETs: the default agent's 50 sockets would queue the pool's requests.
    requestHandler: { requestTimeout: 120_000, httpsAgent: { maxSockets: 1024 }, httpAgent: { maxSockets: 1024 } },
  });
}
