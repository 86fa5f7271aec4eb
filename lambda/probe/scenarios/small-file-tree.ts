import * as crypto from 'crypto';
import * as path from 'path';
import { forEachConcurrently, futimes, mkdir, O_CREAT, O_EXCL, O_WRONLY, prng, sizeBetween, withOpenFile, writeAll } from '../io';
import type { NfsRequests } from '../metering';
import { Scenario } from '../scenario';

export interface SmallFileTreeParams {
  readonly files: number;
  readonly directories: number;
  readonly minFileBytes: number;
  readonly maxFileBytes: number;
  readonly threads: number;
}

/** What extract sends: an OPEN that creates, the WRITEs, a SETATTR, a CLOSE (a file's new directory, once per directory, is not counted). */
const EXTRACT_REQUESTS: NfsRequests = { data: 'write', metadataReads: 1, metadataWrites: 2 };

/** Extracts one file as tar does: create it, write it, set its times, close. */
function extract(file: string, content: Buffer): Promise<void> {
  return withOpenFile(file, O_WRONLY | O_CREAT | O_EXCL, async (fd) => {
    await writeAll(fd, content);
    await futimes(fd, ARCHIVED_MTIME, ARCHIVED_MTIME);
  });
}

const ARCHIVED_MTIME = new Date(1_600_000_000_000);

/** Seeds 000 and 002: an application's first boot untarring its tree onto EFS. */
export const smallFileTree: Scenario<SmallFileTreeParams> = {
  name: 'small-file-tree',
  reproduces: '"The Challenges of EFS" (Noah Zoschke, 2016): untarring 11,000 files (98 MB) took 8 m 48 s, 48 ms per file; "Performance: Amazon EFS vs ObjectiveFS" (ObjectiveFS, 2020): the Linux tree (54K files, 762 MB) took 1,444 s',
  description: 'Writes a tree of small files (sizes between `minFileBytes` and `maxFileBytes`, 8.7 KB on average by default, near the ownCloud tree\'s 8.9 KB) '
    + 'the way tar extracts it: directory by directory, each file created, written, given its times and closed. With `threads` 1 this is untar; '
    + 'with more, files go round-robin across directories as cdk-efs-kit seed writes them. Multiply the per-file latency by your file count '
    + 'to know how long a first boot that unpacks onto EFS takes.',
  params: {
    files: { type: 'integer', default: 2000, min: 1, max: 1_000_000, doc: 'files in the tree' },
    directories: { type: 'integer', default: 50, min: 1, max: 100_000, doc: 'directories the files are spread over' },
    minFileBytes: { type: 'integer', default: 1024, min: 0, max: 64 * 1024 * 1024, doc: 'smallest file in bytes' },
    maxFileBytes: { type: 'integer', default: 16 * 1024, min: 0, max: 64 * 1024 * 1024, doc: 'largest file in bytes' },
    threads: { type: 'integer', default: 1, min: 1, max: 1024, doc: 'files extracted at once (1 = tar)' },
  },
  plan: ({ files, directories, minFileBytes, maxFileBytes, threads }) => ({
    bytes: files * Math.max(minFileBytes, maxFileBytes),
    roundTrips: Math.ceil(files / Math.min(threads, directories)) * 3 + directories,
  }),
  async run({ dir, params, recorder }) {
    const random = prng(2);
    const pool = crypto.randomBytes(Math.max(params.minFileBytes, params.maxFileBytes));
    const directories = Array.from({ length: params.directories }, (_, d) => path.join(dir, `d-${d}`));
    // tar's order: directory by directory. Threads take files round-robin across directories.
    const files = Array.from({ length: params.files }, (_, i) => {
      const byDirectory = params.threads === 1 ? Math.floor((i * params.directories) / params.files) : i % params.directories;
      return { path: path.join(directories[byDirectory], `f-${i}`), bytes: sizeBetween(random, params.minFileBytes, params.maxFileBytes) };
    });
    // Each directory is made before its first file, as tar meets it; that file's latency includes it.
    const made = new Map<string, Promise<void>>();
    const ensureDirectory = (d: string) => made.get(d) ?? made.set(d, mkdir(d)).get(d)!;
    await recorder.phase('untar-file', EXTRACT_REQUESTS, (time) =>
      forEachConcurrently(files, params.threads, async (file) => {
        await time(async () => {
          await ensureDirectory(path.dirname(file.path));
          await extract(file.path, pool.subarray(0, file.bytes));
        }, file.bytes);
      }));
  },
};
