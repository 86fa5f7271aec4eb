import { parentPort } from 'worker_threads';
import { writeFileAtomically, writeUnseenFile } from './target/atomic-write';
import type { CopyRequest, CopyResponse } from './copy/copy-workers';
import { FileContent, LocalFileContent } from './sources/entry';
import { FileSystemCalls } from './boundary/file-system-calls';
import { Directory } from './boundary/held-name';

/**
 * A copy worker (see copy-workers.ts): writes the files it is sent, each as the main thread
 * would, and answers in batches, one message per turn of its event loop.
 */
const source = new FileSystemCalls(FileSystemCalls.SOURCE);
const target = new FileSystemCalls(FileSystemCalls.TARGET);
let answers: CopyResponse[] = [];

function answer(response: CopyResponse): void {
  if (answers.length === 0) setImmediate(() => {
    parentPort!.postMessage(answers);
    answers = [];
  });
  answers.push(response);
}

async function contentOf(content: CopyRequest['content']): Promise<FileContent> {
  if ('bytes' in content) return Buffer.from(content.bytes.buffer, content.bytes.byteOffset, content.bytes.byteLength);
  // The SDK is loaded only by a worker that fetches from S3.
  if ('remote' in content) return (await import('./sources/s3-worker-fetch')).fetchRemoteObject(content.remote);
  return new LocalFileContent(content.root, content.path, content.size, source);
}

async function copy({ id, placement, write, content }: CopyRequest): Promise<void> {
  try {
    const data = await contentOf(content);
    const dir = new Directory(placement.dirFd);
    const written = placement.inPlace
      ? await writeUnseenFile(target, dir, placement.name, data, write, true)
      : await writeFileAtomically(target, dir, placement.name, data, write, placement.tempDirFd === undefined ? dir : new Directory(placement.tempDirFd));
    answer({ id, written });
  } catch (err) {
    answer({ id, error: { message: (err as Error).message, code: (err as NodeJS.ErrnoException).code } });
  }
}

parentPort!.on('message', (requests: CopyRequest[]) => {
  for (const request of requests) void copy(request);
});
