/**
 * One made-up day of an S3 Files file system, minute by minute, as AWS/S3/Files (and AWS/S3 for
 * its bucket) would report it: a web application reading and writing through the working day; at
 * 14:37 a conflict the bucket wins (one file into lost+found); and from 19:00 to 22:00 a job writing
 * 200 files of 4 KiB a second, faster than the sync exports them (160 a second here), so the
 * backlog and its age rise until the job stops, then drain. For the dashboard mock only: these are
 * not measurements.
 */
import { daily, GiB, MadeUpDay, MINUTES, perMinute } from './day';

const KiB = 1024;
const JOB_START = 19 * 60;
const JOB_END = 22 * 60;
const JOB_FILES_PER_SECOND = 200;
const EXPORTS_PER_MINUTE = 160 * 60;
const CONFLICT_MINUTE = 14 * 60 + 37;
const WEB_CLIENTS = 4;

const job = (minute: number) => minute >= JOB_START && minute < JOB_END;
/** A repeatable wobble in [0, 1), so flat lines look like data. */
const wobble = (minute: number) => { const v = Math.sin(minute * 12.9898) * 43758.5453; return v - Math.floor(v); };

type Kind = 'DataReadBytes' | 'DataWriteBytes' | 'MetadataReadBytes' | 'MetadataWriteBytes';

/** Operations and bytes per second of each kind in `minute`. */
function io(minute: number): Record<Kind, { ops: number; bytes: number }> {
  const load = 0.3 + 0.7 * daily(minute);
  const files = job(minute) ? JOB_FILES_PER_SECOND : 0;
  const web = { reads: 40 * load, writes: 4 * load, lookups: 400 * load, updates: 20 * load };
  return {
    // The web application reads 64 KiB and writes 48 KiB at a time; the job writes each file in one 4 KiB write.
    DataReadBytes: { ops: web.reads, bytes: web.reads * 64 * KiB },
    DataWriteBytes: { ops: web.writes + files, bytes: web.writes * 48 * KiB + files * 4 * KiB },
    // Metadata operations of 512 bytes: a lookup per file the job creates, and a create and a setattr.
    MetadataReadBytes: { ops: web.lookups + files, bytes: (web.lookups + files) * 512 },
    MetadataWriteBytes: { ops: web.updates + 2 * files, bytes: (web.updates + 2 * files) * 512 },
  };
}

/** Files changed in `minute`: each web write is a whole file, as is each of the job's. */
const changedFiles = (minute: number) => io(minute).DataWriteBytes.ops * 60;

/**
 * The sync, minute by minute: a change becomes exportable a minute after it is written, and at most
 * EXPORTS_PER_MINUTE leave a minute. PendingExports counts those not yet exported; ExportAge is the
 * oldest one's age, its minute plus the wait behind the queue.
 */
const SYNC = (() => {
  const pending: number[] = [];
  const age: number[] = [];
  let queue = 0;
  for (let m = 0; m < MINUTES; m++) {
    queue = Math.max(0, queue + (m > 0 ? changedFiles(m - 1) : 0) - EXPORTS_PER_MINUTE);
    pending.push(queue + changedFiles(m));
    age.push(55 + 10 * wobble(m) + (queue / EXPORTS_PER_MINUTE) * 60);
  }
  return { pending, age };
})();

/** Running totals from midnight of bytes written and files created. */
const WRITTEN = (() => {
  let bytes = 0;
  let files = 0;
  return perMinute((m) => { bytes += io(m).DataWriteBytes.bytes * 60; files += changedFiles(m); return { bytes, files }; });
})();

function minuteValues(namespace: string, name: string, dimensions: Record<string, string>, stat: string): number[] | undefined {
  if (namespace === 'AWS/S3') {
    // Every version of every object, S3 Standard, as of the day's one datapoint.
    return name === 'BucketSizeBytes' && dimensions.StorageType === 'StandardStorage' ? perMinute(() => 420 * GiB) : undefined;
  }
  if (namespace !== 'AWS/S3/Files') return undefined;
  switch (name) {
    case 'DataReadBytes': case 'DataWriteBytes': case 'MetadataReadBytes': case 'MetadataWriteBytes':
      return perMinute((m) => { const k = io(m)[name]; return (stat === 'SampleCount' ? k.ops : k.bytes) * 60; });
    case 'PendingExports': return SYNC.pending;
    case 'ExportAge': return SYNC.age;
    case 'ImportAge': return perMinute((m) => 2 + 6 * wobble(m + 7));
    case 'ImportFailures': case 'ExportFailures': return perMinute(() => 0);
    case 'StorageBytes': return WRITTEN.map((w) => 150 * GiB + w.bytes);
    case 'Inodes': return WRITTEN.map((w) => 1_200_000 + w.files);
    case 'LostAndFoundFiles': return perMinute((m) => (m >= CONFLICT_MINUTE ? 1 : 0));
    // A Sum per minute: one per mounted client, the job's from 19:00 to 22:00.
    case 'ClientConnections': return perMinute((m) => WEB_CLIENTS + (job(m) ? 1 : 0));
    default: return undefined;
  }
}

/** The day of an S3 Files file system behind a web application, with a conflict the bucket wins and an evening job of small files. */
export const S3_FILES_DAY: MadeUpDay = {
  minuteValues,
  // What efs-utils clients report (1: the NFS connection and the bucket are fine): one line at 1 all day.
  search: (_expression, periodSeconds) => Array((MINUTES * 60) / periodSeconds).fill(1),
};
