import type { SeedResourceProperties } from '../../../lib/seed/contract/resource-properties';

/**
 * Limits that stop an archive from filling the file system or the function (a zip or gzip bomb):
 * checked against what each member declares, before any of its bytes are written, so a tripped
 * limit leaves nothing half-written; and against what the archive really expands to as it is read
 * (a tar's headers, padding and skipped data count too).
 */
export interface ArchiveLimits {
  /** Largest member, in bytes. @default 8 GiB */
  readonly maxMemberBytes?: number;
  /** All members together, in bytes (a .tar or .tar.gz: every byte it expands to, headers and padding included). @default 64 GiB */
  readonly maxTotalBytes?: number;
  /** Members (files, directories, links) at most. @default 1,000,000 */
  readonly maxEntries?: number;
  /**
   * Bytes the archive expands to per byte of archive, at most (once past 64 MiB: small archives of
   * repetitive text may go higher harmlessly). Real content compresses 2-20 times; zeros, 1,000.
   * @default 100
   */
  readonly maxCompressionRatio?: number;
}

const GiB = 1024 ** 3;
export const DEFAULT_ARCHIVE_LIMITS: Required<ArchiveLimits> = {
  maxMemberBytes: 8 * GiB,
  maxTotalBytes: 64 * GiB,
  maxEntries: 1_000_000,
  maxCompressionRatio: 100,
};
/** The ratio is judged once an archive has expanded this far. */
const RATIO_FLOOR_BYTES = 64 * 1024 ** 2;

/** Each limit's name in FileSystemSeed's archiveLimits and on the command line. */
const OPTION_NAMES: Record<keyof ArchiveLimits, string> = {
  maxMemberBytes: 'archiveLimits.maxMemberSize, --max-member-size',
  maxTotalBytes: 'archiveLimits.maxTotalSize, --max-total-size',
  maxEntries: 'archiveLimits.maxEntries, --max-entries',
  maxCompressionRatio: 'archiveLimits.maxCompressionRatio, --max-ratio',
};

/** A limit an archive tripped: the run stops here (at `member`, or before any member when the archive's own index trips it). */
export class ArchiveLimitError extends Error {
  constructor(description: string, member: string | undefined, problem: string, limit: keyof ArchiveLimits) {
    const where = member === undefined ? '' : `stopped at ${JSON.stringify(member)}: `;
    super(`${description}: ${where}${problem} (raise ${limit} (${OPTION_NAMES[limit]}) if the archive is trusted)`);
    this.name = 'ArchiveLimitError';
  }
}

/**
 * Counts what an archive's members declare and what it expands to, and stops the archive at the
 * first member past a limit. A zip's members are held to their declared sizes, so a zip counts what
 * they declare; a tar counts every byte it expands to, as it is read.
 */
export class ArchiveBudget {
  private expandedBytes = 0;
  private entries = 0;
  private readonly limits: Required<ArchiveLimits>;

  /** @param archiveBytes the archive's own size, where known (for the compression ratio) */
  constructor(private readonly description: string, limits: ArchiveLimits = {}, private readonly archiveBytes?: number) {
    this.limits = { ...DEFAULT_ARCHIVE_LIMITS, ...definedOnly(limits) };
  }

  /** Refuses an archive whose index (a zip's end record) declares more members than allowed, before any is read. */
  declareMembers(count: number): void {
    const { maxEntries } = this.limits;
    if (count > maxEntries) throw new ArchiveLimitError(this.description, undefined, `the archive declares ${count} members, more than ${maxEntries}`, 'maxEntries');
  }

  /**
   * Counts the member `name`, which declares `bytes`, before any of it is read: throws an
   * ArchiveLimitError if it is one member too many, too large, or would take the archive past a limit.
   */
  admit(name: string, bytes: number): void {
    const { maxMemberBytes, maxEntries } = this.limits;
    if (++this.entries > maxEntries) this.stop(name, `the archive has more than ${maxEntries} members`, 'maxEntries');
    if (bytes > maxMemberBytes) this.stop(name, `the member is ${bytes} bytes, over the ${maxMemberBytes}-byte limit per member`, 'maxMemberBytes');
    this.check(name, this.expandedBytes + bytes);
  }

  /** Counts `bytes` more that the archive expanded to (at the member `name`); throws an ArchiveLimitError past a limit. */
  expand(name: string, bytes: number): void {
    this.expandedBytes += bytes;
    this.check(name, this.expandedBytes);
  }

  private check(name: string, total: number): void {
    const { maxTotalBytes, maxCompressionRatio } = this.limits;
    if (total > maxTotalBytes) this.stop(name, `the archive expands past the ${maxTotalBytes}-byte limit`, 'maxTotalBytes');
    if (this.archiveBytes && total > RATIO_FLOOR_BYTES && total > maxCompressionRatio * this.archiveBytes) {
      this.stop(name, `the archive's ${this.archiveBytes} bytes expand to more than ${maxCompressionRatio} times that (${total} bytes so far): a compression bomb?`, 'maxCompressionRatio');
    }
  }

  private stop(name: string, problem: string, limit: keyof ArchiveLimits): never {
    throw new ArchiveLimitError(this.description, name, problem, limit);
  }
}

function definedOnly(limits: ArchiveLimits): ArchiveLimits {
  return Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
}

/** The archive limits the properties set (the rest default). */
export function archiveLimitsOf(props: Pick<SeedResourceProperties, 'MaxMemberBytes' | 'MaxTotalBytes' | 'MaxEntries' | 'MaxCompressionRatio'>): ArchiveLimits {
  const number = (value?: string) => (value === undefined ? undefined : Number(value));
  return {
    maxMemberBytes: number(props.MaxMemberBytes),
    maxTotalBytes: number(props.MaxTotalBytes),
    maxEntries: number(props.MaxEntries),
    maxCompressionRatio: number(props.MaxCompressionRatio),
  };
}
