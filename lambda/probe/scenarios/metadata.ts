import * as path from 'path';
import { close, forEachConcurrently, open, O_RDONLY, readdir, rename, stat, unlink } from '../io';
import type { NfsRequests } from '../metering';
import { Scenario } from '../scenario';
import { touch, TOUCH_REQUESTS } from './create-files';

export interface MetadataParams {
  readonly files: number;
  readonly threads: number;
  readonly listings: number;
}

/** The metadata operations a web application or CMS makes on every request: stat, open, list, rename, delete. */
export const metadata: Scenario<MetadataParams> = {
  name: 'metadata',
  reproduces: '"The Challenges of EFS" (Noah Zoschke, 2016): cold web servers on EFS answered some requests in 12 s, from the round trips of PHP\'s stat and open calls; the AWS lab "Amazon Elastic File System (EFS) Performance": 8.6 ms per touch',
  description: 'Times each metadata operation alone: create (as touch), stat, open+close, readdir of the directory, rename and unlink, '
    + '`threads` at a time (1 = pure latency). stat can be answered from the client\'s attribute cache; open always asks the server '
    + '(close-to-open consistency), so open is what an uncached request pays per file it touches.',
  params: {
    files: { type: 'integer', default: 256, min: 1, max: 100_000, doc: 'files created, stat\'ed, opened, renamed and deleted' },
    threads: { type: 'integer', default: 1, min: 1, max: 1024, doc: 'operations at once' },
    listings: { type: 'integer', default: 20, min: 1, max: 10_000, doc: 'times the directory is listed' },
  },
  plan: ({ files, threads, listings }) => ({ bytes: 0, roundTrips: Math.ceil(files / threads) * 8 + listings * 2 }),
  async run({ dir, params, recorder }) {
    const files = Array.from({ length: params.files }, (_, i) => path.join(dir, `f-${i}`));
    const each = (operation: string, requests: NfsRequests, fn: (file: string) => Promise<unknown>, list = files) =>
      recorder.phase(operation, requests, (time) => forEachConcurrently(list, params.threads, async (file) => { await time(() => fn(file)); }));
    const metadataOnly = (reads: number, writes: number): NfsRequests => ({ data: 'none', metadataReads: reads, metadataWrites: writes });
    await each('create', TOUCH_REQUESTS, touch);
    await each('stat', metadataOnly(1, 0), stat); // GETATTR
    await each('open-close', metadataOnly(2, 0), async (file) => close(await open(file, O_RDONLY))); // OPEN, CLOSE
    await each('readdir', metadataOnly(1, 0), () => readdir(dir), Array.from({ length: params.listings }, () => dir)); // READDIR
    await each('rename', metadataOnly(0, 1), (file) => rename(file, `${file}.renamed`)); // RENAME
    await each('unlink', metadataOnly(0, 1), (file) => unlink(`${file}.renamed`)); // REMOVE
  },
};
