import * as crypto from 'crypto';
import * as path from 'path';
import { forEachConcurrently } from '../io';
import { Scenario } from '../scenario';
import { BLOCK_WRITE_REQUESTS, writeInBlocks } from './block-sync';
import { MiB } from '../../shared/sizes';

export interface ParallelWritersParams {
  readonly totalBytes: number;
  readonly writers: readonly number[];
  readonly blockBytes: number;
}

/** Seed 003, task 4: the same bytes, synced per block, from 1, 4 and 16 writers at once. */
export const parallelWriters: Scenario<ParallelWritersParams> = {
  name: 'parallel-writers',
  reproduces: 'the AWS lab "Amazon Elastic File System (EFS) Performance", task 4: 2 GB in 1 MB blocks with a sync after each block: 33 MB/s from one writer, 120 MB/s from 4, 196 MB/s from 16',
  description: 'Splits `totalBytes` over N writers, each writing its own file in `blockBytes` blocks synced after each (O_SYNC). '
    + 'EFS spreads data over many servers: throughput grows with the writers, so an application that must sync often should write from many threads.',
  params: {
    totalBytes: { type: 'integer', default: 256 * MiB, min: 1, max: 16 * 1024 * MiB, doc: 'bytes written in each variant, split evenly over the writers' },
    writers: { type: 'integer[]', default: [1, 4, 16], min: 1, max: 256, maxItems: 6, doc: 'numbers of parallel writers' },
    blockBytes: { type: 'integer', default: MiB, min: 512, max: 256 * MiB, doc: 'block (write) size in bytes' },
  },
  plan: ({ totalBytes, writers, blockBytes }) => ({
    bytes: totalBytes * writers.length,
    roundTrips: writers.reduce((sum, n) => sum + Math.ceil(totalBytes / n / blockBytes) * 2 + 4, 0),
  }),
  async run({ dir, params, recorder }) {
    const block = crypto.randomBytes(params.blockBytes);
    for (const writers of params.writers) {
      const perWriter = Math.ceil(params.totalBytes / writers);
      await recorder.phase(`write-${writers}-writers-sync-each-block`, BLOCK_WRITE_REQUESTS, (time) =>
        forEachConcurrently(Array.from({ length: writers }, (_, i) => i), writers, (i) => {
          const bytes = Math.max(0, Math.min(perWriter, params.totalBytes - i * perWriter));
          return bytes > 0 ? writeInBlocks(path.join(dir, `writers-${writers}-${i}`), block, bytes, true, time) : Promise.resolve();
        }));
    }
  },
};
