import * as crypto from 'crypto';
import * as path from 'path';
import { sizeLabel, WRITE_WHOLE_FILE_REQUESTS, writeWholeFile } from '../io';
import { Scenario } from '../scenario';
import { MiB } from '../../shared/sizes';

export interface WriteSizesParams {
  readonly files: number;
  readonly sizesBytes: readonly number[];
}

/** Seed 004: a Lambda writing 10 files of 1 KB, 1 MB and 100 MB, the way an application saves uploads. */
export const writeSizes: Scenario<WriteSizesParams> = {
  name: 'write-sizes',
  reproduces: '"AWS EFS Elastic vs Burstable throughput (benchmark)" (Dzhuneyt, 2022): 10 files of 1 KB / 1 MB / 100 MB written from Lambda took 95 / 366 / 12,161 ms on Elastic, 101 / 370 / 17,081 ms on Bursting',
  description: 'Writes `files` files of each size, one after another (open, 1 MiB writes, close: NFS sends the data by close). '
    + 'Latency is per file; ten times its mean is that benchmark\'s figure (it timed 10 files). Small files show the round-trip cost, 100 MiB files the throughput the mode allows.',
  params: {
    files: { type: 'integer', default: 10, min: 1, max: 1000, doc: 'files of each size' },
    sizesBytes: { type: 'integer[]', default: [1024, MiB, 100 * MiB], min: 1, max: 1024 * MiB, maxItems: 8, doc: 'file sizes in bytes' },
  },
  plan: ({ files, sizesBytes }) => ({
    bytes: files * sizesBytes.reduce((a, b) => a + b, 0),
    roundTrips: files * sizesBytes.length * 2,
  }),
  async run({ dir, params, recorder }) {
    for (const size of params.sizesBytes) {
      const content = crypto.randomBytes(size); // before the clock starts
      await recorder.phase(`write-${sizeLabel(size)}-file`, WRITE_WHOLE_FILE_REQUESTS, async (time) => {
        for (let i = 0; i < params.files; i++) {
          await time(() => writeWholeFile(path.join(dir, `${sizeLabel(size)}-${i}`), content), size);
        }
      });
    }
  },
};
