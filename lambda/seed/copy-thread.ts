import { parentPort } from 'worker_threads';
import { writeFileAtomically, writeUnseenFile } from './atomic-write';
import type { CopyRequest, CopyResponse } from './copy-workers';
import { LocalFileContent } from './entry';
import { FileSystemCalls } from './file-system-calls';

/**
 * A copy worker (see copy-workers.ts): writes the files it is sent, each as the engine's own thread
 * would, and answers in batches, one message per turn of its event loop.
 */
const source = new FileSystemCalls();
const target = new FileSystemCalls();
let answers: CopyResponse[] = [];

function answer(response: CopyResponse): void {
  if (answers.length === 0) setImmediate(() => {
    parentPort!.postMessage(answers);
    answers = [];
  });
  answers.push(response);
}

async function copy({ id, placement, write, content }: CopyRequest): Promise<void> {
  try {
    const data = 'bytes' in content ? Buffer.from(content.bytes.buffer, content.bytes.byteOffset, content.bytes.byteLength) : new LocalFileContent(content.path, content.size, source);
    const bytes = placement.inPlace
      ? await writeUnseenFile(target, placement.where, data, write, true)
      : await writeFileAtomically(target, placement.where, data, write, placement.tempDir);
    answer({ id, bytes });
  } catch (err) {
    answer({ id, error: { message: (err as Error).message, code: (err as NodeJS.ErrnoException).code } });
  }
}

parentPort!.on('message', (requests: CopyRequest[]) => {
  for (const request of requests) void copy(request);
});
