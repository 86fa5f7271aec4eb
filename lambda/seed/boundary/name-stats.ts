import type * as fs from 'fs';

/**
 * A name's stats as the addon's statx reads them (native/at-calls.c: in Node's order, 14 doubles
 * with times in milliseconds, or 18 int64s with times in seconds and nanoseconds), shaped as fs.Stats
 * and fs.BigIntStats: Node's own constructors are deprecated (DEP0180, at run time from Node.js 22),
 * and its stats objects cannot be made from numbers otherwise. Numbers are computed as Node computes
 * them, so a value read here equals fs.lstat's for the same name.
 */
const S_IFMT = 0o170000;
const TYPES = { file: 0o100000, directory: 0o040000, link: 0o120000, block: 0o060000, character: 0o020000, fifo: 0o010000, socket: 0o140000 };

abstract class NameStatsBase<T extends number | bigint> {
  abstract readonly mode: T;

  isFile(): boolean { return this.type() === TYPES.file; }
  isDirectory(): boolean { return this.type() === TYPES.directory; }
  isSymbolicLink(): boolean { return this.type() === TYPES.link; }
  isBlockDevice(): boolean { return this.type() === TYPES.block; }
  isCharacterDevice(): boolean { return this.type() === TYPES.character; }
  isFIFO(): boolean { return this.type() === TYPES.fifo; }
  isSocket(): boolean { return this.type() === TYPES.socket; }

  private type(): number {
    return Number(this.mode) & S_IFMT;
  }
}

export class NameStats extends NameStatsBase<number> implements fs.Stats {
  static readonly FIELDS = 14;
  /** Where mode and size are among the fields. */
  static readonly MODE = 2;
  static readonly SIZE = 7;
  readonly dev: number;
  readonly ino: number;
  readonly mode: number;
  readonly nlink: number;
  readonly uid: number;
  readonly gid: number;
  readonly rdev: number;
  readonly size: number;
  readonly blksize: number;
  readonly blocks: number;
  readonly atimeMs: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly birthtimeMs: number;

  constructor(raw: Float64Array) {
    super();
    // By index, not by destructuring, which walks the array's iterator: one of these is made per entry listed.
    this.dev = raw[0];
    this.ino = raw[1];
    this.mode = raw[2];
    this.nlink = raw[3];
    this.uid = raw[4];
    this.gid = raw[5];
    this.rdev = raw[6];
    this.size = raw[7];
    this.blksize = raw[8];
    this.blocks = raw[9];
    this.atimeMs = raw[10];
    this.mtimeMs = raw[11];
    this.ctimeMs = raw[12];
    this.birthtimeMs = raw[13];
  }

  get atime(): Date { return new Date(Math.round(this.atimeMs)); }
  get mtime(): Date { return new Date(Math.round(this.mtimeMs)); }
  get ctime(): Date { return new Date(Math.round(this.ctimeMs)); }
  get birthtime(): Date { return new Date(Math.round(this.birthtimeMs)); }
}

export class NameBigIntStats extends NameStatsBase<bigint> implements fs.BigIntStats {
  static readonly FIELDS = 18;
  readonly dev: bigint;
  readonly ino: bigint;
  readonly mode: bigint;
  readonly nlink: bigint;
  readonly uid: bigint;
  readonly gid: bigint;
  readonly rdev: bigint;
  readonly size: bigint;
  readonly blksize: bigint;
  readonly blocks: bigint;
  readonly atimeNs: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
  readonly birthtimeNs: bigint;

  constructor(raw: BigInt64Array) {
    super();
    [this.dev, this.ino, this.mode, this.nlink, this.uid, this.gid, this.rdev, this.size, this.blksize, this.blocks] = raw.subarray(0, 10);
    const ns = (at: number) => raw[at] * 1_000_000_000n + raw[at + 1];
    [this.atimeNs, this.mtimeNs, this.ctimeNs, this.birthtimeNs] = [ns(10), ns(12), ns(14), ns(16)];
  }

  get atimeMs(): bigint { return this.atimeNs / 1_000_000n; }
  get mtimeMs(): bigint { return this.mtimeNs / 1_000_000n; }
  get ctimeMs(): bigint { return this.ctimeNs / 1_000_000n; }
  get birthtimeMs(): bigint { return this.birthtimeNs / 1_000_000n; }
  get atime(): Date { return new Date(Number(this.atimeMs)); }
  get mtime(): Date { return new Date(Number(this.mtimeMs)); }
  get ctime(): Date { return new Date(Number(this.ctimeMs)); }
  get birthtime(): Date { return new Date(Number(this.birthtimeMs)); }
}
