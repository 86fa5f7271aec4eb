import { isRunToken, ReservedKind, reservedName } from './reserved-names';
import { TargetTree } from '../boundary/target-tree';

/**
 * The run tokens a state directory records (see reserved-names.ts): the proof that an entry with a
 * reserved name is the seed's. A run records its token, with the kinds of entry it makes, before it
 * creates any; a complete run that failed nowhere drops the record (a leftover in a directory the
 * source no longer has then loses its proof, and stays). Anyone who could write the
 * record could as well delete what it proves: it is a file of the state directory, private to its
 * owner and read as the others are (never through a link, never a FIFO, only the owner's).
 */
export const RUN_TOKENS = 'run-tokens.json';
/**
 * Tokens kept at most: the oldest beyond it are dropped (their leftovers, if any, are then left alone).
 * Each run that does not complete adds one (a deploy's copy in slices, one per invocation), and a
 * later run adopts its staging directories only while it is recorded.
 */
export const MAX_RUN_TOKENS = 1024;
/** A record larger than this was not written by a seed: nothing in it is proof. */
export const MAX_RUN_TOKENS_BYTES = 64 * 1024;

const KINDS: readonly ReservedKind[] = ['staging', 'temporary'];

export class RunTokens {
  static readonly none = new RunTokens(new Map());

  /** The record as saved; what is not a token of a known kind is no proof of anything, and dropped. */
  static parse(text: string): RunTokens {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return RunTokens.none;
    }
    const tokens = (parsed as { tokens?: unknown })?.tokens;
    const recorded = new Map<string, ReadonlySet<ReservedKind>>();
    if (tokens === null || typeof tokens !== 'object' || Array.isArray(tokens)) return RunTokens.none;
    for (const [token, kinds] of Object.entries(tokens)) {
      if (!isRunToken(token) || !Array.isArray(kinds)) continue;
      recorded.set(token, new Set(KINDS.filter((kind) => kinds.includes(kind))));
    }
    const holder = (parsed as { holder?: unknown }).holder;
    return new RunTokens(recorded, typeof holder === 'string' ? holder : undefined);
  }

  /**
   * @param recorded token -> the kinds of entry its run made, oldest first
   * @param holder the lock holder (see TargetLock) of the run that recorded the newest token: the next
   *   slice of the same deploy request goes on with it, and records nothing
   */
  private constructor(private readonly recorded: ReadonlyMap<string, ReadonlySet<ReservedKind>>, readonly holder?: string) {}

  /** The newest token, where `holder` recorded it (an earlier slice of the same request, which is over). */
  newestOf(holder: string): string | undefined {
    return this.holder === holder ? this.tokens.at(-1) : undefined;
  }

  get tokens(): string[] {
    return [...this.recorded.keys()];
  }

  /** Whether `token` is recorded for entries of `kind`. */
  records(token: string | undefined, kind: ReservedKind): boolean {
    return token !== undefined && this.recorded.get(token)?.has(kind) === true;
  }

  /** With `token` recorded for `kinds` by `holder`, the oldest dropped beyond MAX_RUN_TOKENS. */
  with(token: string, kinds: readonly ReservedKind[], holder: string): RunTokens {
    const recorded = new Map(this.recorded);
    recorded.delete(token);
    recorded.set(token, new Set(kinds));
    while (recorded.size > MAX_RUN_TOKENS) recorded.delete(recorded.keys().next().value!);
    return new RunTokens(recorded, holder);
  }

  serialize(): string {
    return JSON.stringify({ tokens: Object.fromEntries([...this.recorded].map(([token, kinds]) => [token, [...kinds]])), ...this.holder ? { holder: this.holder } : {} });
  }
}

/**
 * This run's token, recorded in the state (beside those recorded before) the first time the run is
 * about to make an entry that carries it: a run that makes none (an unchanged re-run) writes nothing.
 */
export class RunToken {
  private recording?: Promise<void>;

  /**
   * @param save records the token (none where there is no state to record it in, or an earlier slice of the same request did)
   * @param recordedBefore whether the state held tokens when the run started
   */
  constructor(readonly token: string, private readonly save: (() => Promise<void>) | undefined, private readonly recordedBefore: boolean) {}

  /** Settles once the token is recorded: call before making an entry with it. A failed save is tried again by the next call. */
  recorded(): Promise<void> {
    if (!this.save) return Promise.resolve();
    this.recording ??= this.save().catch((err: NodeJS.ErrnoException) => {
      this.recording = undefined;
      // Said as what failed: each entry waiting on it fails with it, and its own name alone would mislead.
      throw Object.assign(new Error(`this run's token could not be recorded in the state's run-tokens.json, so nothing that carries it was made: ${err.message}`), { code: err.code });
    });
    return this.recording;
  }

  /** Whether the state may hold tokens now (a clean run's end then drops them). */
  get onDisk(): boolean {
    return this.recordedBefore || this.recording !== undefined;
  }
}

/** What proves an entry with a reserved name the seed's: its token recorded for its kind, and its owner one the seed gives. */
export interface MadeProof {
  readonly tokens: RunTokens;
  /** The user the seed writes as (its lock's owner), and the owner it gives what it writes, if another. */
  readonly owners: ReadonlySet<number>;
}

/** An entry with a reserved name the seed cannot prove it made: left alone, and reported. */
export interface NotProven {
  /** Its path in the target ('/'-separated, relative). */
  readonly path: string;
  readonly why: string;
}

/**
 * Whether `name` in the directory `key` (known to the tree) is an entry the seed made: its token
 * recorded for its kind; a staging directory a real directory (opened without following a link, and
 * known to the tree from then on), a temporary one a file or a link; and its owner one the seed gives.
 * @returns its kind when proven, else why not
 */
export async function proveMade(tree: TargetTree, key: string, name: string, proof: MadeProof): Promise<ReservedKind | NotProven> {
  const at = key === '' ? name : `${key}/${name}`;
  const reserved = reservedName(name);
  if (!reserved) return { path: at, why: 'not a name the seed gives' };
  if (!proof.tokens.records(reserved.token, reserved.kind)) {
    return { path: at, why: reserved.token ? 'its run token is not one this target\'s seed state records' : 'it carries no run token' };
  }
  const uid = await (reserved.kind === 'staging'
    ? tree.adopt(at, key, name).then(() => tree.using(at, (dir) => tree.calls.fstat(dir.fd)), (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOTDIR' || err.code === 'ELOOP') return 'not a directory' as const;
      throw err;
    })
    : tree.using(key, (dir) => tree.calls.lstatExact(dir.at(name))).then((stats) => (stats.isFile() || stats.isSymbolicLink() ? stats : 'not a file or link' as const)));
  if (typeof uid === 'string') return { path: at, why: `it is ${uid}, which the seed never makes under this name` };
  if (!proof.owners.has(Number(uid.uid))) {
    if (reserved.kind === 'staging') tree.forget(at);
    return { path: at, why: `it belongs to uid ${uid.uid}, not to the user the seed writes as` };
  }
  return reserved.kind;
}

/** The report of entries left alone: how many, the first few named, and why. */
export function describeNotProven(left: readonly NotProven[]): string {
  const shown = left.slice(0, 5).map((l) => `${JSON.stringify(l.path)} (${l.why})`).join(', ');
  return `left ${left.length} entr${left.length === 1 ? 'y' : 'ies'} named like the seed's own staging or temporary entries that it cannot prove it made: `
    + `${shown}${left.length > 5 ? ', ...' : ''}; the seed never deletes, adopts or writes into them: if they are not yours, ask who made them, else remove them`;
}
