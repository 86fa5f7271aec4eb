import * as fs from 'fs';
import { promisify } from 'util';
import { MiB } from './sizes';

/**
 * File system calls as plain promises, for the seed and the probe: the callback API through
 * promisify. fs.promises' FileHandle objects cost CPU per call, which the probe would report as
 * latency and which, at thousands of files a second, limits a seed on a small machine.
 */
export const open = promisify(fs.open);
export const close = promisify(fs.close);
export const fsync = promisify(fs.fsync);
export const futimes = promisify(fs.futimes);
export const lutimes = promisify(fs.lutimes);
export const fchown = promisify(fs.fchown);
export const fchmod = promisify(fs.fchmod);
export const fstat = promisify(fs.fstat);
export const stat = promisify(fs.stat);
export const lstat = promisify(fs.lstat);
export const rename = promisify(fs.rename);
export const link = promisify(fs.link);
export const unlink = promisify(fs.unlink);
export const rmdir = promisify(fs.rmdir);
export const mkdir = promisify(fs.mkdir);
export const readdir = promisify(fs.readdir);
export const readFile = promisify(fs.readFile);
export const readlink = promisify(fs.readlink);
export const symlink = promisify(fs.symlink);

export function write(fd: number, buffer: Buffer, offset = 0, length = buffer.length): Promise<number> {
  return new Promise((resolve, reject) => fs.write(fd, buffer, offset, length, null, (err, n) => (err ? reject(err) : resolve(n))));
}

export function read(fd: number, buffer: Buffer, position: number): Promise<number> {
  return new Promise((resolve, reject) => fs.read(fd, buffer, 0, buffer.length, position, (err, n) => (err ? reject(err) : resolve(n))));
}

/** Writes all of `buffer` in requests of at most `requestBytes` (EFS clients send up to 1 MiB); returns its length. */
export async function writeAll(fd: number, buffer: Buffer, requestBytes = MiB): Promise<number> {
  let offset = 0;
  while (offset < buffer.length) {
    offset += await write(fd, buffer, offset, Math.min(requestBytes, buffer.length - offset));
  }
  return offset;
}
