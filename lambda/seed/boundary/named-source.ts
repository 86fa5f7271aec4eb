import * as fs from 'fs';

/**
 * The local source as the user names it on the command line: a directory or an archive file. It is
 * resolved once, as cp resolves what it is given (through links), then held by its descriptor;
 * nothing below a source directory is reached by a path (see open-beneath.ts).
 */

/** What `spec` is: a directory, anything else (an archive, or a FIFO to stream one from), or undefined where nothing is there. */
export function namedSourceKind(spec: string): 'directory' | 'not a directory' | undefined {
  const stats = fs.statSync(spec, { throwIfNoEntry: false });
  if (!stats) return undefined;
  return stats.isDirectory() ? 'directory' : 'not a directory';
}

/** The source directory, opened to be held. */
export function openNamedDirectory(dir: string): number {
  return fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
}

/**
 * An archive, opened to be read through the handle. One read from its start to its end (a tar) may
 * also be a FIFO another process writes (`mkfifo site.tar; tar -c ... > site.tar &`), waited for as
 * cat waits; one read by ranges (a zip) must be a regular file, and a FIFO there fails at once.
 */
export async function openNamedFile(file: string, streamed = false): Promise<fs.promises.FileHandle> {
  const handle = await fs.promises.open(file, fs.constants.O_RDONLY | (streamed ? 0 : fs.constants.O_NONBLOCK));
  try {
    const stats = await handle.stat();
    if (!stats.isFile() && !(streamed && stats.isFIFO())) throw new Error(`the source ${file} is not a regular file${streamed ? ' or a FIFO' : ''}`);
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}
