import * as path from 'path';
import { fsync, O_CREAT, O_TRUNC, O_WRONLY, withOpenFile, writeAll } from '../io';
import { Scenario } from '../scenario';

export interface ExportLagParams {
  readonly files: number;
  readonly fileBytes: number;
  readonly spacingMs: number;
  readonly timeoutSeconds: number;
}

/** How often the bucket is listed while files are awaited. */
const POLL_MS = 250;

/** S3 Files: how long a file written through the mount takes to reach the bucket. */
export const s3FilesExportLag: Scenario<ExportLagParams> = {
  name: 'export-lag',
  needsBucket: true,
  reproduces: 'the S3 User Guide, "Understanding how synchronization works": changes are copied back to the bucket as new object versions; '
    + 'third parties measured the write-back at about 60 s, in batches',
  description: 'Writes `files` files of `fileBytes` through the mount (each closed after an fsync), `spacingMs` apart so that they land at '
    + 'different points of the write-back window, and lists the bucket every 250 ms until each object is there with its size: export is each '
    + 'file\'s wait from its close, and a file still missing after `timeoutSeconds` is an error. Needs the bucket (--bucket).',
  params: {
    files: { type: 'integer', default: 10, min: 1, max: 1000, doc: 'files written' },
    fileBytes: { type: 'integer', default: 1024, min: 1, max: 64 * 1024 * 1024, doc: 'bytes of each' },
    spacingMs: { type: 'integer', default: 3000, min: 0, max: 60_000, doc: 'pause between two writes' },
    timeoutSeconds: { type: 'integer', default: 300, min: 10, max: 900, doc: 'how long a file may take to reach the bucket' },
  },
  // The write-back runs about every 60 s.
  plan: ({ files, fileBytes, spacingMs }) => ({ bytes: files * fileBytes, roundTrips: 4 * files, waitSeconds: 60 + (files * spacingMs) / 1000 }),
  async run({ dir, params, recorder, bucket }) {
    const keyPrefix = bucket!.keyOf(path.join(dir, 'f-')).slice(0, -'f-'.length);
    const closed = new Map<string, number>();
    const lags: number[] = [];
    const started = Date.now();
    let writing = true;
    const poll = (async () => {
      let deadline = Infinity;
      while (writing || closed.size > 0) {
        if (!writing && deadline === Infinity) deadline = Date.now() + params.timeoutSeconds * 1000;
        if (Date.now() > deadline) return;
        const present = await bucket!.list(keyPrefix);
        for (const [key, at] of [...closed]) {
          if (present.get(key) === params.fileBytes) {
            lags.push(Date.now() - at);
            closed.delete(key);
          }
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    })();
    poll.catch(() => undefined); // awaited below; a failed listing must not go unhandled meanwhile
    const content = Buffer.alloc(params.fileBytes, 7);
    try {
      for (let i = 0; i < params.files; i++) {
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, params.spacingMs));
        const file = path.join(dir, `f-${i}`);
        await withOpenFile(file, O_WRONLY | O_CREAT | O_TRUNC, async (fd) => { await writeAll(fd, content); await fsync(fd); });
        closed.set(bucket!.keyOf(file), Date.now());
      }
    } catch (err) {
      closed.clear(); // nothing more to wait for
      throw err;
    } finally {
      writing = false;
    }
    await poll;
    recorder.add('export', { data: 'write', metadataReads: 1, metadataWrites: 2 }, lags, (Date.now() - started) / 1000, lags.length * params.fileBytes, closed.size);
    if (closed.size > 0) throw new Error(`${closed.size} of ${params.files} files did not reach the bucket within ${params.timeoutSeconds} s`);
  },
};
