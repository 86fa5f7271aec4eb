import * as crypto from 'crypto';
import * as path from 'path';
import { forEachConcurrently, mkdir, O_DIRECT, O_RDONLY, prng, READ_WHOLE_FILE_REQUESTS, readWholeFile, sizeBetween, writeWholeFile } from '../io';
import { Scenario } from '../scenario';

export interface RandomReadsParams {
  readonly files: number;
  readonly minFileBytes: number;
  readonly maxFileBytes: number;
  readonly readers: number;
  readonly reads: number;
  readonly hotFilesPercent: number;
  readonly hotReadsPercent: number;
  readonly bypassCache: boolean;
}

const DIRECTORIES = 32;

/** Seed 002: a web server's small-file reads, 16 readers with an 80/20 access pattern (fsperf). */
export const randomReads: Scenario<RandomReadsParams> = {
  name: 'random-reads',
  reproduces: '"Performance: Amazon EFS vs ObjectiveFS" (ObjectiveFS, 2020): fsperf, 16 parallel readers over 10K small files with an 80/20 access pattern, read 9.4 MB/s (Bursting) and 10.1 MB/s (Provisioned)',
  description: 'Writes a set of small files (before the clock), then `readers` readers read `reads` whole files, `hotReadsPercent` of the reads '
    + 'going to the hottest `hotFilesPercent` of the files. With `bypassCache` the files are opened O_DIRECT, as after that benchmark\'s cache drop, '
    + 'so every read reaches EFS: this is what a cold instance serving small files feels.',
  params: {
    files: { type: 'integer', default: 2000, min: 1, max: 1_000_000, doc: 'files in the set' },
    minFileBytes: { type: 'integer', default: 1024, min: 1, max: 64 * 1024 * 1024, doc: 'smallest file in bytes' },
    maxFileBytes: { type: 'integer', default: 32 * 1024, min: 1, max: 64 * 1024 * 1024, doc: 'largest file in bytes' },
    readers: { type: 'integer', default: 16, min: 1, max: 1024, doc: 'parallel readers' },
    reads: { type: 'integer', default: 10_000, min: 1, max: 10_000_000, doc: 'files read in all' },
    hotFilesPercent: { type: 'integer', default: 20, min: 1, max: 100, doc: 'percent of the files that are hot' },
    hotReadsPercent: { type: 'integer', default: 80, min: 0, max: 100, doc: 'percent of the reads that go to hot files' },
    bypassCache: { type: 'boolean', default: true, doc: 'open with O_DIRECT so reads reach the server (where the file system supports it)' },
  },
  plan: ({ files, maxFileBytes, minFileBytes, readers, reads }) => ({
    bytes: (files + reads) * Math.max(minFileBytes, maxFileBytes),
    roundTrips: Math.ceil(files / 64) * 3 + Math.ceil(reads / readers) * 3,
  }),
  async run({ dir, params, recorder, finding }) {
    const random = prng(3);
    const content = crypto.randomBytes(Math.max(params.minFileBytes, params.maxFileBytes));
    const files = Array.from({ length: params.files }, (_, i) => ({
      path: path.join(dir, `d-${i % DIRECTORIES}`, `f-${i}`),
      bytes: sizeBetween(random, params.minFileBytes, params.maxFileBytes),
    }));
    // The file set, before the clock: parallel across directories.
    await forEachConcurrently(Array.from({ length: Math.min(DIRECTORIES, params.files) }, (_, d) => path.join(dir, `d-${d}`)), DIRECTORIES, (d) => mkdir(d));
    await forEachConcurrently(files, 64, (f) => writeWholeFile(f.path, content.subarray(0, f.bytes)));

    const hot = Math.max(1, Math.round((params.files * params.hotFilesPercent) / 100));
    const order = Array.from({ length: params.reads }, () => {
      const toHot = random() * 100 < params.hotReadsPercent || hot === params.files;
      return toHot ? Math.floor(random() * hot) : hot + Math.floor(random() * (params.files - hot));
    });
    const flags = O_RDONLY | (params.bypassCache ? await directIoFlag(files[0].path, files[0].bytes) : 0);
    finding('cacheBypassed', (flags & O_DIRECT) !== 0 && O_DIRECT !== 0);
    await recorder.phase('read-file', READ_WHOLE_FILE_REQUESTS, (time) =>
      forEachConcurrently(order, params.readers, async (index) => {
        await time(() => readWholeFile(files[index].path, flags, files[index].bytes), files[index].bytes);
      }));
  },
};

/**
 * O_DIRECT where the file system takes it: NFS does, for any buffer; local file systems refuse it
 * (tmpfs) or want aligned buffers (ext4), which a real read of the sample tells.
 */
async function directIoFlag(sample: string, bytes: number): Promise<number> {
  if (!O_DIRECT) return 0;
  try {
    await readWholeFile(sample, O_RDONLY | O_DIRECT, bytes);
    return O_DIRECT;
  } catch {
    return 0;
  }
}
