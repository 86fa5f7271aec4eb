import * as fs from 'fs';
import { FileSystemCalls } from './file-system-calls';
import { HeldName } from './held-name';

/**
 * Opening a file of the seed's state to read it (the lock, the manifest, the request claim): never
 * through a link (O_NOFOLLOW), never waiting (O_NONBLOCK: a FIFO planted at the name would hold the
 * open, on the main thread, until a writer came, and with it the lock's wait, the heartbeats and the
 * deadline), and refused unless it is a regular file that belongs to the user the state is for.
 */

/** A file of the seed's state that the seed did not make: not a regular file, or someone else's. */
export class StateFileError extends Error {
  constructor(where: string, why: string) {
    super(`${where} ${why}, which a seed never makes; remove it and run the seed again`);
    this.name = 'StateFileError';
  }
}

/**
 * Opens `at` to read; undefined where nothing is there. Refused (StateFileError) unless a regular
 * file, owned by `owner` where given; a link is left to the caller (ELOOP).
 * @param where the file as the messages name it
 */
export async function openStateFile(calls: FileSystemCalls, at: HeldName, where: string, owner?: number): Promise<{ fd: number; stats: fs.BigIntStats } | undefined> {
  const fd = await calls.open(at, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err.code === 'ENXIO' ? new StateFileError(where, 'is a socket, not a regular file') : err;
  });
  if (fd === undefined) return undefined;
  try {
    const stats = await calls.fstat(fd);
    if (!stats.isFile()) throw new StateFileError(where, `is ${kindOf(stats)}, not a regular file`);
    if (owner !== undefined && Number(stats.uid) !== owner) throw new StateFileError(where, `belongs to uid ${stats.uid}, not to uid ${owner} that owns the seed's state`);
    return { fd, stats };
  } catch (err) {
    await calls.close(fd).catch(() => undefined);
    throw err;
  }
}

function kindOf(stats: fs.BigIntStats): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isDirectory()) return 'a directory';
  return stats.isCharacterDevice() || stats.isBlockDevice() ? 'a device' : 'not a file';
}
