import * as path from 'path';
import { close, forEachConcurrently, open, O_RDONLY, readdir, rename, stat, unlink } from '../io';
import { Scenario } from '../scenario';
import { touch } from './create-files';

export interface MetadataParams {
  readonly files: number;
  readonly threads: number;
  readonly listings: number;
}

/** The metadata operations a web application or CMS makes on every request: stat, open, list, rename, delete. */
export const metadata: Scenario<MetadataParams> = {
  name: 'metadata',
  reproduces: 'seed 000: cold web servers on EFS answered some requests in 12 s, from the round trips of PHP\'s stat and open calls; seed 003: 8.6 ms per touch',
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
    const each = (operation: string, fn: (file: string) => Promise<unknown>, list = files) =>
      recorder.phase(operation, (time) => forEachConcurrently(list, params.threads, async (file) => { await time(() => fn(file)); }));
    await each('create', touch);
    await each('stat', stat);
    await each('open-close', async (file) => close(await open(file, O_RDONLY)));
    await each('readdir', () => readdir(dir), Array.from({ length: params.listings }, () => dir));
    await each('rename', (file) => rename(file, `${file}.renamed`));
    await each('unlink', (file) => unlink(`${file}.renamed`));
  },
};
