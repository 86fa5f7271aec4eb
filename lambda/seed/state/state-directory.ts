import { randomBytes } from 'crypto';
import * as fs from 'fs';
import { MiB } from '../../shared/sizes';
import { emptyManifest, jsonStringCount, Manifest, MAX_MANIFEST_FILES, MAX_MANIFEST_STRINGS, parseManifest, serializeManifest } from './manifest';
import { removeTree } from '../target/removal';
import { MAX_RUN_TOKENS_BYTES, RUN_TOKENS, RunTokens } from './run-tokens';
import { openStateFile, StateFileError } from '../boundary/state-file';
import { LockOptions, TargetLock } from './target-lock';
import { MadeDirectory, TargetTree } from '../boundary/target-tree';

/**
 * The seed's state in its target: `.cdk-efs-kit/`, holding the manifest, the lock and the scratch
 * directories. Anyone who can write the target can plant things here, so it is reached like every
 * other directory (opened without following a link), it must belong to the user the seed writes as
 * (a state directory or manifest someone else made is refused), and it is kept private (0700, the
 * manifest 0600).
 */
export const STATE_DIR = '.cdk-efs-kit';
const MANIFEST = 'seed-manifest.json';
/** Which deploy request the place is for now (see StateDirectory.claim). */
const CLAIM = 'request.json';
/** The directories of the place's path a seed made (see StateDirectory.recordMadePlace). */
const MADE_PLACE = 'made-place.json';
/**
 * The largest manifest the seed reads: parsed in about 2 s and 0.6 GB on a 2 GB Lambda function, for
 * about 600,000 entries (100 bytes each). A larger one was not written by a seed of a size a single
 * function copies: it is ignored (every file is checked and rewritten), never parsed.
 */
export const MAX_MANIFEST_BYTES = 64 * MiB;

/** The temporary file of a save: a random hex part (a save killed before its rename leaves it). */
const saveTempName = (name: string) => `${name}.${randomBytes(6).toString('hex')}.tmp`;
const SAVE_TEMP = /^(seed-manifest|request|run-tokens|made-place)\.json\.[0-9a-f]+\.tmp$/;
/** Stale locks moved aside by a takeover that was interrupted. */
const STALE_LOCK = /^lock\.stale-[0-9a-f]+$/;

/** The state directory belongs to someone else than the user the seed writes as. */
export class StateOwnerError extends Error {
  constructor(where: string, what: string, uid: number, expected: number) {
    super(`${where}/${STATE_DIR}${what} belongs to uid ${uid}, not to uid ${expected} that this seed writes as: someone else made it, `
      + `and the seed trusts only state it wrote itself; if you trust it, remove ${STATE_DIR} (the next run checks every file again) and run the seed again`);
    this.name = 'StateOwnerError';
  }
}

/** The deploy request a place is for, and the resource (physical id) that made it. */
export interface PlaceClaim {
  readonly request: string;
  /** The resource the request is for (resource-identity.ts). */
  readonly resource: string;
  /** Its resource was deleted without removing the content: another resource may take the place. */
  readonly released?: boolean;
  /**
   * The resource of the same stack the place was taken over from (a renamed construct), while it
   * may still exist: CloudFormation deletes it once the new one is created, or, should the deploy
   * roll back, deletes the new one and keeps it. Whichever Delete comes first settles the place.
   */
  readonly previous?: string;
}

/** The target's `.cdk-efs-kit` is no longer the state directory the run holds: renamed away or replaced while it ran. */
export class StateMovedError extends Error {
  constructor(where: string) {
    super(`${where}/${STATE_DIR} is no longer the state directory this run holds (it was renamed away or replaced while the seed ran): `
      + 'the run stopped, writing nothing more; another run may have made a new one, and what this run staged stays for it to judge; run the seed again');
    this.name = 'StateMovedError';
  }
}

export class StateDirectory {
  /**
   * The target's state directory, made (private) if missing with `create`; undefined when there is
   * none and none is made. A symlink, or anything but a directory, in its place stops the run.
   */
  static async open(tree: TargetTree, create: boolean): Promise<StateDirectory | undefined> {
    if (create) {
      await tree.calls.mkdir(tree.root.at(STATE_DIR), 0o700).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      });
    }
    const state = await tree.find(STATE_DIR);
    if (state === 'missing') return undefined;
    if (state === 'not a directory') {
      throw new Error(`${tree.where}/${STATE_DIR} is not a directory (a symlink there is never followed); remove it and run the seed again`);
    }
    return new StateDirectory(tree);
  }

  /** The held directory's device and inode (see heldIdentity). */
  private held?: Promise<{ dev: bigint; ino: bigint }>;

  private constructor(private readonly tree: TargetTree) {}

  /** Takes the target's lock (see TargetLock), then makes sure the directory is the seeding user's own and private. */
  async lock(options: LockOptions): Promise<TargetLock> {
    const lock = await TargetLock.acquire(this.tree, STATE_DIR, options);
    try {
      await this.tree.using(STATE_DIR, async (dir) => {
        const stats = await this.tree.calls.fstat(dir.fd);
        if (Number(stats.uid) !== lock.uid) throw new StateOwnerError(this.tree.where, '', Number(stats.uid), lock.uid);
        // An earlier version made it world-writable.
        if ((Number(stats.mode) & 0o077) !== 0) await this.tree.calls.fchmod(dir.fd, 0o700);
      });
    } catch (err) {
      await lock.release();
      throw err;
    }
    return lock;
  }

  /**
   * The manifest, checked: a symlink in its place, one larger than MAX_MANIFEST_BYTES, with more than
   * MAX_MANIFEST_STRINGS strings (MAX_MANIFEST_FILES files), or one that is not JSON is ignored (and reported: every file is then checked and rewritten); one that is not a
   * regular file (a FIFO, say: see openStateFile) or belongs to another user than `owner` (the lock's)
   * is refused.
   */
  async readManifest(owner?: number): Promise<Manifest> {
    const { calls } = this.tree;
    const ignored = (why: string) => {
      const manifest = emptyManifest();
      manifest.problems.push(`ignored the manifest (${why}); every file is checked and rewritten`);
      return manifest;
    };
    return this.tree.using(STATE_DIR, async (dir) => {
      const opened = await openStateFile(calls, dir.at(MANIFEST), `${this.tree.where}/${STATE_DIR}/${MANIFEST}`).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ELOOP') return 'ELOOP' as const;
        throw err;
      });
      if (opened === undefined) return emptyManifest();
      if (opened === 'ELOOP') return ignored('it is a symlink');
      const { fd, stats } = opened;
      try {
        if (owner !== undefined && Number(stats.uid) !== owner) throw new StateOwnerError(this.tree.where, `/${MANIFEST}`, Number(stats.uid), owner);
        if (stats.size > MAX_MANIFEST_BYTES) return ignored(`it is ${stats.size} bytes, more than the ${MAX_MANIFEST_BYTES} a seed reads`);
        const buffer = Buffer.allocUnsafe(Number(stats.size));
        let read = 0;
        while (read < buffer.length) {
          const n = await calls.read(fd, buffer.subarray(read), read);
          if (n === 0) break;
          read += n;
        }
        // Memory follows the strings, not the bytes: too many are not parsed at all.
        const strings = jsonStringCount(buffer.subarray(0, read));
        if (strings > MAX_MANIFEST_STRINGS) {
          return ignored(`it holds ${strings} strings, more than the ${MAX_MANIFEST_STRINGS} of the ${MAX_MANIFEST_FILES} files a seed reads a manifest of`);
        }
        return parseManifest(buffer.toString('utf8', 0, read));
      } finally {
        await calls.close(fd).catch(() => undefined);
      }
    });
  }

  /**
   * Whether the target's `.cdk-efs-kit` is still the directory this object holds (the same device and
   * inode): a run whose state directory was renamed away must not go on beside one that made a new one.
   */
  async inPlace(): Promise<boolean> {
    const [held, named] = await Promise.all([this.heldIdentity(), this.tree.calls.lstatExact(this.tree.root.at(STATE_DIR)).catch(() => undefined)]);
    return held !== undefined && named?.dev === held.dev && named.ino === held.ino;
  }

  /**
   * The device and inode of the directory held: read once (a descriptor's never change, and one
   * opened again is refused unless it is the same directory), not at every save; a failed read is
   * tried again next time.
   */
  private heldIdentity(): Promise<{ dev: bigint; ino: bigint } | undefined> {
    this.held ??= this.tree.using(STATE_DIR, (dir) => this.tree.calls.fstat(dir.fd)).then(({ dev, ino }) => ({ dev, ino }));
    return this.held.catch(() => {
      this.held = undefined;
      return undefined;
    });
  }

  /**
   * The run tokens the state records (see run-tokens.ts), read as the manifest is: a FIFO or another
   * user's file there is refused (StateFileError); a link, one too large or one that is not JSON
   * proves nothing (no token).
   */
  async readTokens(owner: number): Promise<RunTokens> {
    const { calls } = this.tree;
    return this.tree.using(STATE_DIR, async (dir) => {
      const opened = await openStateFile(calls, dir.at(RUN_TOKENS), `${this.tree.where}/${STATE_DIR}/${RUN_TOKENS}`, owner).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ELOOP') return undefined;
        throw err;
      });
      if (opened === undefined) return RunTokens.none;
      try {
        if (opened.stats.size > MAX_RUN_TOKENS_BYTES) return RunTokens.none;
        const buffer = Buffer.alloc(Number(opened.stats.size));
        const n = await calls.read(opened.fd, buffer, 0);
        return RunTokens.parse(buffer.toString('utf8', 0, n));
      } finally {
        await calls.close(opened.fd).catch(() => undefined);
      }
    });
  }

  /** Records `tokens` (whole or not at all): before any entry with a new token is created. */
  async saveTokens(tokens: RunTokens): Promise<void> {
    await this.writeAtomically(RUN_TOKENS, Buffer.from(tokens.serialize()), 0o600);
  }

  /** Drops every recorded token (a clean run's end: their entries are gone). */
  async forgetTokens(): Promise<void> {
    if (!await this.inPlace()) throw new StateMovedError(this.tree.where);
    await this.tree.using(STATE_DIR, (dir) => this.tree.calls.unlink(dir.at(RUN_TOKENS))).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }

  /**
   * Writes the manifest atomically (a new private file, then a rename over the old one). `running`
   * marks a checkpoint of a run still under way. The body is built before the first await (ManifestBook
   * times that part as the save's work on the JS thread).
   */
  async saveManifest(manifest: Manifest, running: boolean): Promise<void> {
    await this.writeAtomically(MANIFEST, Buffer.from(serializeManifest(manifest, running)), 0o600);
  }

  /**
   * Writes `name` whole or not at all: a new private file, then renamed over the old one; refused
   * (StateMovedError) once the target's `.cdk-efs-kit` is not the directory held any more.
   */
  private async writeAtomically(name: string, body: Buffer, mode: number): Promise<void> {
    const { calls } = this.tree;
    if (!await this.inPlace()) throw new StateMovedError(this.tree.where);
    await this.tree.using(STATE_DIR, async (dir) => {
      const tmp = saveTempName(name);
      if (calls.native && !calls.fast && body.length <= MiB) {
        // Made, written and closed in one trip to the thread pool (removed by the writer on failure), then renamed.
        await calls.native.writeNewFile(dir, tmp, mode, body);
        await calls.rename(dir.at(tmp), dir.at(name)).catch(async (err) => {
          await calls.unlink(dir.at(tmp)).catch(() => undefined);
          throw err;
        });
        return;
      }
      const fd = await calls.open(dir.at(tmp), fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, mode);
      try {
        try {
          await calls.writeAll(fd, body, MiB);
        } finally {
          await calls.close(fd);
        }
        await calls.rename(dir.at(tmp), dir.at(name));
      } catch (err) {
        await calls.unlink(dir.at(tmp)).catch(() => undefined);
        throw err;
      }
    });
  }

  /**
   * Claims the place for a deploy request (written atomically, without waiting for the lock): a run
   * for any other request sees at its next heartbeat, or its next slice, that it is not current any
   * more, and stops. CloudFormation's newest request for a resource is the one that counts.
   */
  async claim(claim: PlaceClaim): Promise<void> {
    await this.writeAtomically(CLAIM, Buffer.from(JSON.stringify(claim)), 0o600);
  }

  /** The request the place is claimed for, if any: a claim that is not JSON counts as none; a FIFO or another user's file there is refused (StateFileError). */
  async claimed(): Promise<PlaceClaim | undefined> {
    const { calls } = this.tree;
    return this.tree.using(STATE_DIR, async (dir) => {
      // A FIFO or someone else's file there is refused, not read (see openStateFile); anything else unreadable counts as no claim.
      const opened = await openStateFile(calls, dir.at(CLAIM), `${this.tree.where}/${STATE_DIR}/${CLAIM}`, Number((await calls.fstat(dir.fd)).uid));
      if (opened === undefined) return undefined;
      const { fd } = opened;
      try {
        const buffer = Buffer.alloc(4096);
        const parsed = JSON.parse(buffer.toString('utf8', 0, await calls.read(fd, buffer, 0)));
        if (typeof parsed?.request !== 'string') return undefined;
        return {
          request: parsed.request, resource: String(parsed.resource ?? ''),
          ...parsed.released === true ? { released: true } : {}, ...typeof parsed.previous === 'string' ? { previous: parsed.previous } : {},
        };
      } finally {
        await calls.close(fd).catch(() => undefined);
      }
    }).catch((err) => {
      if (err instanceof StateFileError) throw err;
      return undefined;
    });
  }

  /**
   * Adds `made` (directories of the place's path a seed just made: the place itself, and parents
   * that were missing) to the record removeOnDelete reads once the place is empty.
   */
  async recordMadePlace(made: MadeDirectory[]): Promise<void> {
    const byPath = new Map((await this.madePlace()).map((dir) => [dir.path, dir]));
    for (const dir of made) byPath.set(dir.path, dir);
    await this.writeAtomically(MADE_PLACE, Buffer.from(JSON.stringify([...byPath.values()])), 0o600);
  }

  /** The directories of the place's path a seed made, as recorded (`below` the mount: entries off that path are dropped). */
  async madePlace(below?: string): Promise<MadeDirectory[]> {
    const { calls } = this.tree;
    const read = await this.tree.using(STATE_DIR, async (dir) => {
      const opened = await openStateFile(calls, dir.at(MADE_PLACE), `${this.tree.where}/${STATE_DIR}/${MADE_PLACE}`, Number((await calls.fstat(dir.fd)).uid));
      if (opened === undefined) return [];
      try {
        const buffer = Buffer.alloc(Math.min(Number(opened.stats.size), 64 * 1024));
        return JSON.parse(buffer.toString('utf8', 0, await calls.read(opened.fd, buffer, 0))) as unknown;
      } finally {
        await calls.close(opened.fd).catch(() => undefined);
      }
    }).catch(() => []);
    // Input like the rest of the state: only directories on the place's own path, each named once.
    return (Array.isArray(read) ? read : []).filter((dir): dir is MadeDirectory => typeof dir?.path === 'string' && typeof dir?.ino === 'string'
      && (below === undefined || below === dir.path || below.startsWith(`${dir.path}/`)));
  }

  /** A private directory of the state directory (made if missing; never a link), known to the tree as `STATE_DIR/name`. */
  async subdirectory(name: string): Promise<string> {
    const key = `${STATE_DIR}/${name}`;
    await this.tree.using(STATE_DIR, (dir) => this.tree.calls.mkdir(dir.at(name), 0o700)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
    await this.tree.adopt(key, STATE_DIR, name);
    return key;
  }

  /**
   * At the end of a run, removes what only a running seed needs (names matching `transient`), what
   * killed saves of the manifest left, and stale locks set aside; the manifest and the lock stay.
   */
  async tidy(transient: RegExp): Promise<void> {
    const entries = await this.tree.using(STATE_DIR, (dir) => this.tree.calls.readdir(dir.self)).catch(() => []);
    await Promise.all(entries.filter((d) => transient.test(d.name) || SAVE_TEMP.test(d.name) || STALE_LOCK.test(d.name)).map((d) => (d.isDirectory()
      ? removeTree(this.tree, STATE_DIR, d.name)
      : this.tree.using(STATE_DIR, (dir) => this.tree.calls.unlink(dir.at(d.name)))).catch(() => undefined)));
  }

  /** Removes the whole state directory (removeOnDelete, once everything the seed wrote is gone). */
  async remove(): Promise<void> {
    await removeTree(this.tree, '', STATE_DIR);
  }
}
