import * as fs from 'fs';
import { FileSystemCalls } from '../../../lambda/seed/boundary/file-system-calls';
import { emptyManifest } from '../../../lambda/seed/state/manifest';
import { ManifestBook } from '../../../lambda/seed/state/manifest-book';
import { StateDirectory } from '../../../lambda/seed/state/state-directory';
import { TargetTree } from '../../../lambda/seed/boundary/target-tree';
import { tempDir } from '../../helpers/seed-fixtures';

// Staged directories are published after a save of the manifest that records them, and that save
// waits its turn while files are still copied (until what the saves took the JS thread, building their
// bodies, is within a twentieth of the run's time); round trips set no turn. A turn must not hold a run
// that has nothing left to copy.
// The clock is jest's; the saves are real, to a real state directory.

let work: string;
let tree: TargetTree;
beforeEach(async () => {
  work = tempDir('manifest-book-');
  tree = (await TargetTree.open(new FileSystemCalls(FileSystemCalls.TARGET), work))!;
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
});
afterEach(async () => {
  jest.useRealTimers();
  await tree.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/**
 * A book on the target's state directory whose first save takes 10 s by the clock: building its body
 * (before its first await: the wait it sets is 200 s), or only its round trips (after).
 */
async function bookAfterSlowSave(slow: 'work' | 'round trips' = 'work'): Promise<{ book: ManifestBook; state: StateDirectory }> {
  const state = (await StateDirectory.open(tree, true))!;
  const book = new ManifestBook(emptyManifest(), { state, dryRun: false, useManifest: true, lockLost: () => false, warn: (message) => { throw new Error(message); } });
  const save = state.saveManifest.bind(state);
  jest.spyOn(state, 'saveManifest').mockImplementationOnce(async (manifest, running) => {
    if (slow === 'round trips') await Promise.resolve();
    jest.setSystemTime(Date.now() + 10_000);
    await save(manifest, running);
  });
  await book.save(true);
  book.record('a.html', 'identity-a');
  return { book, state };
}

const settled = async (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(() => { done = true; });
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  return done;
};

test('while files are copied, the save before a publish waits its turn; once the copying ends, it goes at once', async () => {
  const { book, state } = await bookAfterSlowSave();
  const saved = book.saveRecorded();
  expect(await settled(saved)).toBe(false);
  book.endCopying();
  expect(await settled(saved)).toBe(true);
  expect([...(await state.readManifest()).files.keys()]).toEqual(['a.html']);
});

test('a save asked for after the copying ended does not wait at all', async () => {
  const { book, state } = await bookAfterSlowSave();
  book.endCopying();
  expect(await settled(book.saveRecorded())).toBe(true);
  expect([...(await state.readManifest()).files.keys()]).toEqual(['a.html']);
});

test('its turn comes by the clock too', async () => {
  const { book, state } = await bookAfterSlowSave();
  const saved = book.saveRecorded();
  expect(await settled(saved)).toBe(false);
  await jest.advanceTimersByTimeAsync(200_000);
  await saved;
  expect([...(await state.readManifest()).files.keys()]).toEqual(['a.html']);
});

test('a save slow only by its round trips sets no turn: the next goes at once while files are copied', async () => {
  const { book, state } = await bookAfterSlowSave('round trips');
  expect(await settled(book.saveRecorded())).toBe(true);
  expect([...(await state.readManifest()).files.keys()]).toEqual(['a.html']);
});
