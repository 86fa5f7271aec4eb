import * as crypto from 'crypto';
import * as path from 'path';
import { fsync, O_CREAT, O_SYNC, O_TRUNC, O_WRONLY, sizeLabel, withOpenFile, writeAll } from '../io';
import { Scenario } from '../scenario';
import type { NfsRequests } from '../metering';
import type { Timer } from '../recorder';
import { MiB } from '../../shared/sizes';

export interface BlockSyncParams {
  readonly fileBytes: number;
  readonly blockSizesBytes: readonly number[];
}

/** One timed block: its WRITEs (the file's open, fsync and close are once per file, not counted). */
export const BLOCK_WRITE_REQUESTS: NfsRequests = { data: 'write', metadataReads: 0, metadataWrites: 0 };

/**
 * Writes `fileBytes` to a new file in blocks of `blockBytes`, each block timed: with `syncEachBlock`
 * the file is opened O_SYNC (as `dd oflag=sync`), so every block waits for the server; otherwise
 * one fsync at the end (as `dd conv=fsync`) is part of the phase's time but not of the blocks'.
 */
export function writeInBlocks(file: string, block: Buffer, fileBytes: number, syncEachBlock: boolean, time: Timer): Promise<void> {
  return withOpenFile(file, O_WRONLY | O_CREAT | O_TRUNC | (syncEachBlock ? O_SYNC : 0), async (fd) => {
    for (let written = 0; written < fileBytes; written += block.length) {
      const part = fileBytes - written >= block.length ? block : block.subarray(0, fileBytes - written);
      if (!(await time(() => writeAll(fd, part), part.length))) return; // counted; the rest of this file would fail too
    }
    if (!syncEachBlock) await fsync(fd);
  });
}

/** Seed 003, task 3: block size x sync frequency. */
export const blockSync: Scenario<BlockSyncParams> = {
  name: 'block-sync',
  reproduces: 'the AWS lab "Amazon Elastic File System (EFS) Performance", task 3: dd with 1 MB blocks and a sync after each block wrote 33 MB/s, with 16 MB blocks 83 MB/s; one sync per file reached the instance\'s limit (188 MB/s)',
  description: 'Writes one file per block size and sync frequency: synced after every block (O_SYNC, as `dd oflag=sync`) and once at the end '
    + '(as `dd conv=fsync`). Every synced block waits a round trip: an application that fsyncs often (databases, logs) should write large blocks, '
    + 'or sync less often.',
  params: {
    fileBytes: { type: 'integer', default: 256 * MiB, min: 1, max: 16 * 1024 * MiB, doc: 'bytes per file' },
    blockSizesBytes: { type: 'integer[]', default: [MiB, 16 * MiB], min: 512, max: 256 * MiB, maxItems: 4, doc: 'block (write) sizes in bytes' },
  },
  plan: ({ fileBytes, blockSizesBytes }) => ({
    bytes: 2 * fileBytes * blockSizesBytes.length,
    roundTrips: blockSizesBytes.reduce((sum, block) => sum + Math.ceil(fileBytes / block) * 2 + 4, 0),
  }),
  async run({ dir, params, recorder }) {
    for (const blockBytes of params.blockSizesBytes) {
      const block = crypto.randomBytes(Math.min(blockBytes, params.fileBytes));
      for (const syncEachBlock of [true, false]) {
        const operation = `write-${sizeLabel(blockBytes)}-blocks-sync-each-${syncEachBlock ? 'block' : 'file'}`;
        const file = path.join(dir, operation);
        await recorder.phase(operation, BLOCK_WRITE_REQUESTS, (time) => writeInBlocks(file, block, params.fileBytes, syncEachBlock, time));
      }
    }
  },
};
