import * as fs from 'fs';
import * as path from 'path';
import { forEachConcurrently, O_RDONLY, READ_WHOLE_FILE_REQUESTS, readdir, readWholeFile } from '../io';
import type { NfsRequests } from '../metering';
import type { ProbeBucket } from '../probe-bucket';
import type { Recorder } from '../recorder';
import { Scenario } from '../scenario';

export interface ImportParams {
  readonly files: number;
  readonly fileBytes: number;
  readonly appearSeconds: number;
}

const LISTING: NfsRequests = { data: 'none', metadataReads: 1, metadataWrites: 0 };
/** Listings after the first, to time what an imported directory answers. */
const WARM_LISTINGS = 5;

/** Polls until `file` exists through the mount: what an application sees of a bucket's new prefix. */
export async function waitUntilVisible(file: string, seconds: number): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!(await fs.promises.stat(file).then(() => true, () => false))) {
    if (Date.now() > deadline) throw new Error(`${path.basename(file)}, put in the bucket, did not appear in the file system within ${seconds} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Puts `files` objects of `bytes` each under a new prefix beside `dir`'s key, and times how long the
 * new directory takes to appear through the mount ('appear', one sample, from the last PUT): what an
 * application waits for what another wrote to the bucket. Shared by the S3 Files scenarios; the
 * versions put are deleted when `body` is done (a refusal fails the round, naming the keys).
 */
export async function withBucketDirectory(bucket: ProbeBucket, dir: string, name: string, sizes: readonly number[], appearSeconds: number,
  recorder: Recorder, body: (directory: string, files: string[]) => Promise<void>): Promise<void> {
  const directory = path.join(dir, name);
  const files = sizes.map((_, i) => path.join(directory, `f-${i}`));
  let versions = new Map<string, string | undefined>();
  try {
    versions = await bucket.put(files.map((file, i) => ({ key: bucket.keyOf(file), bytes: sizes[i], fill: i % 251 })));
    const put = Date.now();
    await waitUntilVisible(directory, appearSeconds);
    recorder.add('appear', { data: 'none', metadataReads: 0, metadataWrites: 0 }, [Date.now() - put], (Date.now() - put) / 1000, 0, 0);
    await body(directory, files);
  } finally {
    await bucket.remove(versions);
  }
}

/** S3 Files: the first access to a directory imports it (every entry's metadata, small files' data). */
export const s3FilesImport: Scenario<ImportParams> = {
  name: 'import',
  needsBucket: true,
  reproduces: 'the S3 User Guide, "Understanding how synchronization works": the first `ls` of a directory imports the metadata of every '
    + 'entry and the data of files under 128 KiB, so the first access "might have higher latency"; Lambda on S3 Files listed 1,000 files in 39 ms (darryl-ruggles.cloud, 2026-04)',
  description: 'Puts `files` objects of `fileBytes` each in the bucket under a new prefix, waits for the directory to appear through the mount '
    + '(appear: what an application waits for another writer\'s objects), then lists it once (first-listing: the import), '
    + `${WARM_LISTINGS} times more (listing), reads every file (first-read) and reads them again (read). Needs the bucket (--bucket).`,
  params: {
    files: { type: 'integer', default: 200, min: 1, max: 10_000, doc: 'objects put under the new prefix' },
    fileBytes: { type: 'integer', default: 4096, min: 0, max: 1024 * 1024, doc: 'bytes of each (under 128 KiB: imported with the listing)' },
    appearSeconds: { type: 'integer', default: 180, min: 10, max: 900, doc: 'how long to wait for the new directory to appear' },
  },
  // S3 Files shows a bucket change in about 30 s.
  plan: ({ files, fileBytes }) => ({ bytes: 3 * files * fileBytes, roundTrips: WARM_LISTINGS + 1 + 4 * files, waitSeconds: 30 }),
  async run({ dir, params, recorder, bucket }) {
    const sizes = Array.from({ length: params.files }, () => params.fileBytes);
    await withBucketDirectory(bucket!, dir, 'imported', sizes, params.appearSeconds, recorder, async (directory, files) => {
      const list = (operation: string, times: number) => recorder.phase(operation, LISTING, async (time) => {
        for (let i = 0; i < times; i++) await time(() => readdir(directory));
      });
      await list('first-listing', 1);
      await list('listing', WARM_LISTINGS);
      for (const operation of ['first-read', 'read']) {
        await recorder.phase(operation, READ_WHOLE_FILE_REQUESTS, (time) => forEachConcurrently(files, 8, async (file) => {
          await time(() => readWholeFile(file, O_RDONLY, params.fileBytes), params.fileBytes);
        }));
      }
    });
  },
};
