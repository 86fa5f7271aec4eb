import type { S3Client } from '@aws-sdk/client-s3';
import { Readable } from 'stream';
import type { RemoteObject } from './entry';
import { s3Client } from './s3-client';
import { readObject } from './s3-object-read';

/** A copy worker's S3 clients (copy-thread.ts), one per way of reaching S3 (there is one in practice), made on first use. */
const clients = new Map<string, S3Client>();

/** An object a copy worker was sent, read as the main thread reads one: with timeouts, retries and resumption. */
export async function fetchRemoteObject({ bucket, key, location }: RemoteObject): Promise<Readable> {
  const settings = JSON.stringify(location);
  let client = clients.get(settings);
  if (!client) {
    client = s3Client(location);
    clients.set(settings, client);
  }
  return (await readObject(client, bucket, key)).stream;
}
