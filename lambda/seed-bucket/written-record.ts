import type { FileEntry } from '../seed/sources/entry';
import type { ObjectRecord } from './bucket-manifest';
import { versionOf } from './bucket-state';

/** The record of an object just written from `entry`: the source's identity and size, and the ETag and version id S3 answered with. */
export const writtenRecord = (entry: FileEntry, etag: string | undefined, versionId: string | undefined): ObjectRecord => (
  { identity: entry.identity, etag: etag ?? '', versionId: versionOf(versionId), size: entry.size }
);
