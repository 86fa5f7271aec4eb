import { O_RDONLY, READ_WHOLE_FILE_REQUESTS, readdir, readWholeFile } from '../io';
import { Scenario } from '../scenario';
import { withBucketDirectory } from './s3-files-import';

export interface DirectReadParams {
  readonly files: number;
  readonly smallBytes: number;
  readonly largeBytes: number;
  readonly appearSeconds: number;
}

/** S3 Files: reads below the threshold come from the high-performance storage, large ones straight from the bucket. */
export const s3FilesDirectRead: Scenario<DirectReadParams> = {
  name: 'direct-read',
  needsBucket: true,
  reproduces: 'the S3 User Guide, "Performance specifications": reads of 128 KiB or more of synchronized data, and reads of data not on the file system, '
    + 'are served directly from the bucket; a t3.micro read 1 KB in 0.69 ms, 100 KB in 1.39 ms and 1 MB in 33.6 ms (paradigmadigital, 2026-05)',
  description: 'Puts `files` objects of `smallBytes` (under the 128 KiB import threshold: imported onto the high-performance storage) and `files` of '
    + '`largeBytes` (left in the bucket) under a new prefix, waits for the directory to appear, lists it (the import), then reads each small '
    + 'file whole (read-small) and each large one (read-large, from the bucket), one at a time. Needs the bucket (--bucket).',
  params: {
    files: { type: 'integer', default: 8, min: 1, max: 1000, doc: 'files of each size' },
    smallBytes: { type: 'integer', default: 64 * 1024, min: 1, max: 128 * 1024 - 1, doc: 'bytes of each small file' },
    largeBytes: { type: 'integer', default: 8 * 1024 * 1024, min: 128 * 1024, max: 1024 * 1024 * 1024, doc: 'bytes of each large file' },
    appearSeconds: { type: 'integer', default: 180, min: 10, max: 900, doc: 'how long to wait for the new directory to appear' },
  },
  plan: ({ files, smallBytes, largeBytes }) => ({ bytes: 2 * files * (smallBytes + largeBytes), roundTrips: 1 + 4 * files, waitSeconds: 30 }),
  async run({ dir, params, recorder, bucket }) {
    const sizes = [...Array(params.files).fill(params.smallBytes), ...Array(params.files).fill(params.largeBytes)];
    await withBucketDirectory(bucket!, dir, 'reads', sizes, params.appearSeconds, recorder, async (directory, files) => {
      await readdir(directory);
      const read = (operation: string, list: string[], bytes: number) => recorder.phase(operation, READ_WHOLE_FILE_REQUESTS, async (time) => {
        for (const file of list) await time(() => readWholeFile(file, O_RDONLY, bytes), bytes);
      });
      await read('read-small', files.slice(0, params.files), params.smallBytes);
      await read('read-large', files.slice(params.files), params.largeBytes);
    });
  },
};
