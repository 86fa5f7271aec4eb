import type { S3Client } from '@aws-sdk/client-s3';
import { MiB } from '../../shared/sizes';
import type { SeedFormat } from '../../../lib/seed/contract/resource-properties';
import { EntrySource } from './entry';
import { namedSourceKind, openNamedFile } from '../boundary/named-source';
import { ArchiveLimits } from './archive-limits';
import { LocalDirectorySource } from './local-directory';
import type { TarArchiveSource } from './tar-archive';
import type { ZipArchiveSource } from './zip-archive';
import type { S3Location } from './s3-client';

/** What a seed reads: the formats of the FileSystemSeed's contract, and a local directory (the CLI's). */
export type SourceFormat = 'directory' | SeedFormat;

export interface SourceLocation {
  readonly format: SourceFormat;
  /** A local path, or with `bucket` an S3 key (archive) or prefix (objects). */
  readonly key: string;
  readonly bucket?: string;
}

export interface OpenSource {
  readonly source: EntrySource;
  /** Releases what opening took (a downloaded zip, an open archive). */
  close(): Promise<void>;
}

/** 's3://bucket/prefix/', 's3://bucket/site.tar.gz', '/local/dir' or 'site.zip', as the CLI takes them. */
export function parseSourceSpec(spec: string): SourceLocation {
  const s3 = /^s3:\/\/([^/]+)\/?(.*)$/.exec(spec);
  if (s3) {
    const format = archiveFormat(s3[2]);
    return { format: format ?? 's3-objects', bucket: s3[1], key: s3[2] };
  }
  const kind = namedSourceKind(spec);
  if (!kind) throw new Error(`the source ${spec} does not exist`);
  if (kind === 'directory') return { format: 'directory', key: spec };
  const format = archiveFormat(spec);
  if (!format) throw new Error(`the source ${spec} is a file but not a .zip, .tar, .tar.gz or .tgz archive`);
  return { format, key: spec };
}

export function archiveFormat(name: string): SourceFormat | undefined {
  const lower = name.toLowerCase();
  if (lower.endsWith('.zip')) return 'zip';
  if (lower.endsWith('.tar')) return 'tar';
  if (lower.endsWith('.tar.gz') || lower.endsWith('.tgz')) return 'tar.gz';
  return undefined;
}

export async function openSource(location: SourceLocation, options: { s3?: S3Location; client?: S3Client; limits?: ArchiveLimits } = {}): Promise<OpenSource> {
  const { format, bucket, key } = location;
  const nothing = async () => undefined;
  if (!bucket) {
    if (format === 'directory') {
      const directory = new LocalDirectorySource(key);
      return { source: directory, close: () => directory.close() };
    }
    if (format === 'zip') {
      const { openZipFile } = await import('./zip-archive');
      const zip = await zipSource(key, () => openZipFile(key), options.limits);
      return { source: zip, close: () => zip.close() };
    }
    if (format === 'tar' || format === 'tar.gz') {
      const open = async () => {
        const handle = await openNamedFile(key, true);
        return { stream: handle.createReadStream({ highWaterMark: MiB }), bytes: (await handle.stat()).size };
      };
      return { source: await tarSource(key, open, format === 'tar.gz', options.limits), close: nothing };
    }
    throw new Error(`a local source must be a directory or an archive, got format ${format}`);
  }

  // Loaded only for S3 sources: the SDK adds a tenth of a second to every start of the CLI.
  const { HeadObjectCommand } = await import('@aws-sdk/client-s3');
  const { s3Client } = await import('./s3-client');
  const { readObject } = await import('./s3-object-read');
  const { S3Attempts } = await import('./s3-retry');
  const { S3ObjectsSource } = await import('./s3-objects');
  const client = options.client ?? s3Client(options.s3);
  const description = `s3://${bucket}/${key}`;
  const getObject = () => readObject(client, bucket, key);
  switch (format) {
    case 's3-objects':
      // A client given without its settings cannot be rebuilt in a worker: the main thread fetches then.
      return { source: new S3ObjectsSource(client, bucket, key, options.client && !options.s3 ? undefined : options.s3 ?? {}), close: nothing };
    case 'tar':
    case 'tar.gz':
      return { source: await tarSource(description, getObject, format === 'tar.gz', options.limits), close: nothing };
    case 'zip': {
      // A zip's directory is at its end: read it, and then its members, where it lies, by ranged GETs.
      const { S3BlockReader } = await import('./s3-block-reader');
      const { openZipReader } = await import('./zip-archive');
      const head = await new S3Attempts(`HEAD ${description}`).run(() => client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).catch((err: Error & { cause?: { $metadata?: { httpStatusCode?: number } } }) => {
        // A HEAD answers without a body: S3's status is the only reason there is.
        const status = err.cause?.$metadata?.httpStatusCode;
        if (status === 404) throw new Error(`${description} does not exist (HTTP 404)`);
        if (status === 403) throw new Error(`${description} cannot be read: access denied (HTTP 403)`);
        throw err;
      });
      const reader = new S3BlockReader(client, bucket, key, head.ContentLength ?? 0);
      const zip = await zipSource(description, () => openZipReader(reader, reader.size), options.limits);
      return { source: zip, close: () => zip.close() };
    }
    default:
      throw new Error(`an S3 source must be objects or an archive, got format ${format}`);
  }
}

// Each archive format's code is loaded when a source needs it, not on every start of the CLI.
async function tarSource(...args: ConstructorParameters<typeof TarArchiveSource>): Promise<TarArchiveSource> {
  return new (await import('./tar-archive')).TarArchiveSource(...args);
}

async function zipSource(...args: ConstructorParameters<typeof ZipArchiveSource>): Promise<ZipArchiveSource> {
  return new (await import('./zip-archive')).ZipArchiveSource(...args);
}
