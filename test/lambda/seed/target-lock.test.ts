import * as fs from 'fs';
import * as path from 'path';
import { FileSystemCalls } from '../../../lambda/seed/boundary/file-system-calls';
import { StateDirectory } from '../../../lambda/seed/state/state-directory';
import { TargetTree } from '../../../lambda/seed/boundary/target-tree';
import { tempDir } from '../../helpers/seed-fixtures';

// The lock lives in the target's state directory, which anyone who can write the target can rename:
// a second run would then make a new one, lock it, and run beside the first. The first run's
// heartbeat sees that its state directory is no longer the target's, and it stops.

let work: string;
let tree: TargetTree;
beforeEach(async () => {
  work = tempDir('lock-');
  tree = (await TargetTree.open(new FileSystemCalls(FileSystemCalls.TARGET), work))!;
});
afterEach(async () => {
  await tree.close();
  fs.rmSync(work, { recursive: true, force: true });
});

async function lockedRun(holder: string) {
  const state = (await StateDirectory.open(tree, true))!;
  return state.lock({ holder, waitMs: 0 });
}

test('a lock is held while its state directory stays in place', async () => {
  const lock = await lockedRun('first');
  expect(await lock.heartbeat()).toBe(true);
  await lock.release();
});

test('a lock whose state directory was renamed away is lost at the next heartbeat', async () => {
  const lock = await lockedRun('first');
  fs.renameSync(path.join(work, '.cdk-efs-kit'), path.join(work, 'moved'));
  expect(await lock.heartbeat()).toBe(false);
});

test('a lock whose state directory was replaced by another of the same name is lost at the next heartbeat', async () => {
  const lock = await lockedRun('first');
  fs.renameSync(path.join(work, '.cdk-efs-kit'), path.join(work, 'moved'));
  fs.mkdirSync(path.join(work, '.cdk-efs-kit'), { mode: 0o700 });
  expect(await lock.heartbeat()).toBe(false);
});
