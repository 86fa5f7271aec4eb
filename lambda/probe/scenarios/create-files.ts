import * as path from 'path';
import { forEachConcurrently, futimes, mkdir, O_CREAT, O_NONBLOCK, O_WRONLY, withOpenFile } from '../io';
import type { NfsRequests } from '../metering';
import { Scenario } from '../scenario';

export interface CreateFilesParams {
  readonly files: number;
  readonly threads: number;
  readonly directories: number;
}

/** What touch sends: an OPEN that creates, a SETATTR, a CLOSE. */
export const TOUCH_REQUESTS: NfsRequests = { data: 'none', metadataReads: 1, metadataWrites: 2 };

/** Creates an empty file as touch(1) does: open with O_CREAT, set its times, close. */
export function touch(file: string): Promise<void> {
  const now = new Date();
  return withOpenFile(file, O_WRONLY | O_CREAT | O_NONBLOCK, (fd) => futimes(fd, now, now));
}

/** Seed 003, task 1: touch 1,024 files with one thread, with many threads in one directory, and across 32 directories. */
export const createFiles: Scenario<CreateFilesParams> = {
  name: 'create-files',
  reproduces: 'the AWS lab "Amazon Elastic File System (EFS) Performance", task 1: touch 1,024 files took 8.8 s with one thread (116 files/s), 4.5 s with 128 threads in one directory (227/s), 0.9 s across 32 directories (1,129/s)',
  description: 'Creates empty files like touch(1): one at a time; `threads` at once in one directory; and one thread per directory '
    + 'across `directories` directories. Linux holds a directory\'s lock for the whole round trip of a create, so only the last '
    + 'spreads the work: an application that writes many files should spread them over directories too.',
  params: {
    files: { type: 'integer', default: 1024, min: 1, max: 100_000, doc: 'files created by each of the three variants' },
    threads: { type: 'integer', default: 128, min: 1, max: 1024, doc: 'parallel creates in the one-directory variant' },
    directories: { type: 'integer', default: 32, min: 1, max: 1024, doc: 'directories (one thread each) in the many-directories variant' },
  },
  plan: ({ files, directories }) => ({ bytes: 0, roundTrips: files * 2 + files + Math.ceil(files / directories) * 2 + directories }),
  async run({ dir, params, recorder }) {
    const names = (prefix: string) => Array.from({ length: params.files }, (_, i) => path.join(dir, prefix, `f-${i}`));
    const perDirectory = Array.from({ length: params.directories }, (_, d) => path.join(dir, 'many', String(d)));
    await mkdir(path.join(dir, 'serial'));
    await mkdir(path.join(dir, 'one'));
    await mkdir(path.join(dir, 'many'));
    await forEachConcurrently(perDirectory, params.directories, (d) => mkdir(d));

    await recorder.phase('create-serial', TOUCH_REQUESTS, async (time) => {
      for (const file of names('serial')) await time(() => touch(file));
    });
    await recorder.phase('create-one-directory', TOUCH_REQUESTS, (time) =>
      forEachConcurrently(names('one'), params.threads, async (file) => { await time(() => touch(file)); }));
    await recorder.phase('create-many-directories', TOUCH_REQUESTS, (time) =>
      // One thread per directory, as `seq 1 32 | parallel -j 32 touch dir/{}/f-{1..32}` does.
      forEachConcurrently(perDirectory, params.directories, async (d, index) => {
        const share = Math.floor(params.files / params.directories) + (index < params.files % params.directories ? 1 : 0);
        for (let i = 0; i < share; i++) await time(() => touch(path.join(d, `f-${i}`)));
      }));
  },
};
