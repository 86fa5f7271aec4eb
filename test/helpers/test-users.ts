import { execFileSync } from 'child_process';
import { randomBytes } from 'crypto';

/**
 * Real users for the tests that run the seed as root on another user's files: made with useradd
 * (each with a group of its own, no home, no login shell), removed with userdel. Needs root.
 */
export interface TestUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
}

const made: TestUser[] = [];

/** A new user `cekt<random>` with a private group; removed by removeTestUsers(). */
export function addTestUser(): TestUser {
  const name = `cekt${randomBytes(4).toString('hex')}`;
  execFileSync('useradd', ['--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', name]);
  const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
  const user = { name, uid: id('-u'), gid: id('-g') };
  made.push(user);
  return user;
}

/** Removes every user addTestUser() made (and its private group). */
export function removeTestUsers(): void {
  for (const user of made.splice(0)) execFileSync('userdel', [user.name]);
}
