import { Token } from 'aws-cdk-lib';
import { IConstruct } from 'constructs';
import { propName } from './contract/prop-name';
import { ValidationError } from './validation-error';

/**
 * Throws a ValidationError `${where}: ${prop} ${problem}, got ${value}` (the prop in both
 * spellings, see propName), scoped to `scope` (the construct given the prop), unless `value` is a
 * token (resolved at deploy time).
 */
export function check(ok: boolean, where: string, prop: string, value: unknown, problem: string, scope?: IConstruct): void {
  if (ok || Token.isUnresolved(value)) return;
  throw new ValidationError(`${where}: ${propName(prop)} ${problem}, got ${JSON.stringify(value)}.`, scope);
}

/** A POSIX uid or gid: an integer 0..4294967295, as a string or number. */
export function isPosixId(value: string | number): boolean {
  return /^\d+$/.test(String(value)) && Number(value) <= 4294967295;
}

/** An octal file mode such as '750' or '0755'. */
export function isOctalMode(value: string): boolean {
  return /^0?[0-7]{3}$/.test(value);
}

/** An absolute path with no empty, '.' or '..' parts (an EFS access point root, say). */
export function isCleanAbsolutePath(value: string): boolean {
  if (!value.startsWith('/')) return false;
  if (value === '/') return true;
  return value.slice(1).split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

/** A Lambda file system mount path: /mnt/<name>, as Lambda requires (the seed handler checks it too). */
export { LAMBDA_MOUNT_PATH } from '../seed/contract/resource-properties';
