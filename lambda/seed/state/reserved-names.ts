import { createHash, randomBytes } from 'crypto';
import { threadId } from 'worker_threads';

/**
 * The names the seed gives its own entries in the target, which anyone who can write the target can
 * give theirs too: every one carries the token of the run that made it, and a token is recorded in
 * the run's state directory (run-tokens.ts) before any entry with it is created. A later run removes
 * or adopts an entry only when its token is recorded there: an entry with the prefix and any other
 * token, or none, is someone else's and is left alone.
 */

/** A temporary file or link, renamed to its final name once written: `.cdk-efs-kit-tmp-<token>-<pid>-<thread>-<n>`. */
export const TEMP_PREFIX = '.cdk-efs-kit-tmp-';

/**
 * A directory this run creates is made under this prefix and filled there, then renamed to its name
 * once it is filled (its files need no temporary names): `.cdk-efs-kit-new-<token>-<name>`.
 */
export const NEW_DIRECTORY_PREFIX = '.cdk-efs-kit-new-';

/** What a reserved name is for: a staging directory, or a temporary file or link. */
export type ReservedKind = 'staging' | 'temporary';

const TOKEN = /^[0-9a-f]{16}$/;

/** A new run's token: 64 random bits, so that no other run, and no one guessing, has it. */
export const newRunToken = () => randomBytes(8).toString('hex');

export const isRunToken = (token: unknown): token is string => typeof token === 'string' && TOKEN.test(token);

/** Where the directory `name` is made until it is published (a name too long for the prefix is hashed). */
export function stagingName(token: string, name: string): string {
  const staged = `${NEW_DIRECTORY_PREFIX}${token}-${name}`;
  return Buffer.byteLength(staged) <= 255 ? staged : `${NEW_DIRECTORY_PREFIX}${token}-${createHash('sha256').update(name).digest('hex')}`;
}

let sequence = 0;

/** A temporary name no other writer uses: the run's token, this process's and thread's ids and a counter (O_EXCL guards the rest). */
export function temporaryName(token: string): string {
  return `${TEMP_PREFIX}${token}-${process.pid}-${threadId}-${(sequence++).toString(36)}`;
}

/** The part of a staging name after its prefix and token: the name it is published under, or that name's hash. */
export const stagedAs = (token: string, name: string) => stagingName(token, name).slice(NEW_DIRECTORY_PREFIX.length + token.length + 1);

/** What `name` is if it has a reserved prefix: its kind, and its token where it has the shape of one. */
export function reservedName(name: string): { readonly kind: ReservedKind; readonly token?: string; readonly stagedAs?: string } | undefined {
  const kind = name.startsWith(NEW_DIRECTORY_PREFIX) ? 'staging' : name.startsWith(TEMP_PREFIX) ? 'temporary' : undefined;
  if (!kind) return undefined;
  const rest = name.slice((kind === 'staging' ? NEW_DIRECTORY_PREFIX : TEMP_PREFIX).length);
  const token = rest.slice(0, 16);
  return rest[16] === '-' && TOKEN.test(token) ? { kind, token, stagedAs: rest.slice(17) } : { kind };
}
