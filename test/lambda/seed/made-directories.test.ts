import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { MADE_MARK, removeMadeDirectories } from '../../../lambda/seed/target/made-directories';

// A mark says "a seed made this directory": one planted by someone else is no proof, and a FIFO at
// its name must not hold the Delete (the seed's Delete reads marks from the place up to the mount).
let mount: string;
beforeEach(() => { mount = fs.mkdtempSync(path.join(os.tmpdir(), 'made-')); });
afterEach(() => fs.rmSync(mount, { recursive: true, force: true }));

function plantMark(dir: string): void {
  fs.writeFileSync(path.join(dir, MADE_MARK), JSON.stringify({ ino: String(fs.statSync(dir).ino) }));
}

test('removes an empty directory its own mark names', async () => {
  fs.mkdirSync(path.join(mount, 'sites'));
  plantMark(path.join(mount, 'sites'));
  expect(await removeMadeDirectories(mount, 'sites', [])).toEqual(['sites']);
  expect(fs.existsSync(path.join(mount, 'sites'))).toBe(false);
});

const asRoot = process.geteuid?.() === 0 ? test : test.skip;
asRoot('leaves a directory whose mark belongs to another user: a planted mark is not proof', async () => {
  const users = path.join(mount, 'users-dir');
  fs.mkdirSync(users);
  plantMark(users);
  fs.chownSync(path.join(users, MADE_MARK), 65534, 65534);
  expect(await removeMadeDirectories(mount, 'users-dir', [])).toEqual([]);
  expect(fs.readdirSync(users)).toEqual([MADE_MARK]);
});

test('a FIFO at the mark\'s name does not hold the Delete, and the directory stays', async () => {
  const dir = path.join(mount, 'fifo-dir');
  fs.mkdirSync(dir);
  execFileSync('mkfifo', [path.join(dir, MADE_MARK)]);
  expect(await removeMadeDirectories(mount, 'fifo-dir', [])).toEqual([]);
  expect(fs.existsSync(dir)).toBe(true);
});
