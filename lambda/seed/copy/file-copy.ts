import { writeFileAtomically, writeSymlinkAtomically, writeUnseenFile } from '../target/atomic-write';
import { CopyWorkers } from './copy-workers';
import { FileEntry, SymlinkEntry } from '../sources/entry';
import { FileSystemCalls } from '../boundary/file-system-calls';
import type { Placement } from '../target/placement';

/** An entry to write, at its checked path (the source's own name for it may differ: './a', 'a//b'). */
export type Job = { kind: 'file'; path: string; entry: FileEntry } | { kind: 'symlink'; path: string; entry: SymlinkEntry };

export interface Copied {
  readonly written: boolean;
  readonly bytes: number;
  /** A written file's identity (see writtenIdentity); links are recognised by their target. */
  readonly identity?: string;
}

export interface FileCopierOptions {
  /** Owner of written files. @default the process's */
  readonly uid?: number;
  readonly gid?: number;
  /**
   * Without a manifest (Distributed Map workers), the file on the target says whether it is current
   * (same size and modification time as the source's), and written files get the source's time.
   */
  readonly byTime: boolean;
  /** Worker threads to write files on (those whose content they can reach). @default - this thread writes */
  readonly workers?: CopyWorkers;
  /** The run's token, in every temporary name (see reserved-names.ts). */
  readonly runToken: string;
}

/**
 * Permission bits a file keeps (the process umask still applies): no setuid or setgid, which a seed
 * running as root would otherwise hand out from an archive.
 */
const FILE_MODE_BITS = 0o777;

/** Copies one entry to its place on the target: the per-file work of a seed, and nothing else. */
export class FileCopier {
  constructor(private readonly calls: FileSystemCalls, private readonly options: FileCopierOptions) {}

  /** Writes `job` at `placement` once `beforeWrite` (the directory's sweep) is done; a dry run has no placement. */
  copy(job: Job, placement: Placement | undefined, beforeWrite: () => Promise<void>): Promise<Copied> {
    if (!placement) {
      if (job.kind === 'file') job.entry.discard?.();
      return Promise.resolve({ written: true, bytes: job.kind === 'file' ? job.entry.size : 0 });
    }
    return job.kind === 'file' ? this.file(job.entry, placement, beforeWrite) : this.symlink(job.entry, placement, beforeWrite);
  }

  private async file(entry: FileEntry, placement: Placement, beforeWrite: () => Promise<void>): Promise<Copied> {
    const { dir, name, inPlace, tempDir } = placement;
    const byTime = this.options.byTime && entry.mtimeMs !== undefined;
    if (byTime) {
      const stat = await this.calls.lstat(dir.at(name)).catch(() => undefined);
      if (stat?.isFile() && stat.size === entry.size && Math.trunc(stat.mtimeMs) === Math.trunc(entry.mtimeMs!)) {
        entry.discard?.();
        return { written: false, bytes: 0 };
      }
    }
    await beforeWrite();
    const { uid, gid, runToken } = this.options;
    const writeOptions = { mode: entry.mode & FILE_MODE_BITS, uid, gid, runToken, expectedSize: entry.size, mtimeMs: byTime ? entry.mtimeMs : undefined };
    const { workers } = this.options;
    // An S3 object a worker can fetch itself is not opened here at all.
    if (workers && entry.remote) return { written: true, ...await workers.write(placement, writeOptions, entry.remote) };
    const content = await entry.open();
    if (workers && CopyWorkers.canTake(content)) return { written: true, ...await workers.write(placement, writeOptions, content) };
    // In place, an interrupted run (or anyone who can write the target) may have left something at the name: replaced, never written through.
    const written = inPlace
      ? await writeUnseenFile(this.calls, dir, name, content, writeOptions, true)
      : await writeFileAtomically(this.calls, dir, name, content, writeOptions, tempDir);
    return { written: true, ...written };
  }

  private async symlink(entry: SymlinkEntry, { dir, name }: Placement, beforeWrite: () => Promise<void>): Promise<Copied> {
    await beforeWrite();
    await writeSymlinkAtomically(this.calls, entry.target, dir, name, this.options.runToken);
    return { written: true, bytes: 0 };
  }
}
