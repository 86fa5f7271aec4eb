/**
 * Limits that stop an archive from filling the file system or the function (a zip or gzip bomb):
 * checked against what each member declares, before any of its bytes are written, so a tripped
 * limit leaves nothing half-written.
 */
export interface ArchiveLimits {
  /** Largest member, in bytes. @default 8 GiB */
  readonly maxMemberBytes?: number;
  /** All members together, in bytes. @default 64 GiB */
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

/** A limit an archive tripped: the run stops here. */
export class ArchiveLimitError extends Error {
  constructor(description: string, member: string, problem: string, limit: keyof ArchiveLimits) {
    super(`${description}: stopped at ${JSON.stringify(member)}: ${problem} (raise ${limit} (${OPTION_NAMES[limit]}) if the archive is trusted)`);
    this.name = 'ArchiveLimitError';
  }
}

/** Counts what the members declare and stops the archive at the first one past a limit. */
export class ArchiveBudget {
  private totalBytes = 0;
  private entries = 0;
  private readonly limits: Required<ArchiveLimits>;

  /** @param archiveBytes the archive's own size, where known (for the compression ratio) */
  constructor(private readonly description: string, limits: ArchiveLimits = {}, private readonly archiveBytes?: number) {
    this.limits = { ...DEFAULT_ARCHIVE_LIMITS, ...definedOnly(limits) };
  }

  /** Counts the member `name` of `bytes`; throws an ArchiveLimitError if it trips a limit. */
  admit(name: string, bytes: number): void {
    const { maxMemberBytes, maxTotalBytes, maxEntries, maxCompressionRatio } = this.limits;
    const stop = (problem: string, limit: keyof ArchiveLimits) => { throw new ArchiveLimitError(this.description, name, problem, limit); };
    if (++this.entries > maxEntries) stop(`the archive has more than ${maxEntries} members`, 'maxEntries');
    if (bytes > maxMemberBytes) stop(`the member is ${bytes} bytes, over the ${maxMemberBytes}-byte limit per member`, 'maxMemberBytes');
    this.totalBytes += bytes;
    if (this.totalBytes > maxTotalBytes) stop(`the archive expands past the ${maxTotalBytes}-byte limit`, 'maxTotalBytes');
    if (this.archiveBytes && this.totalBytes > RATIO_FLOOR_BYTES && this.totalBytes > maxCompressionRatio * this.archiveBytes) {
      stop(`the archive's ${this.archiveBytes} bytes expand to more than ${maxCompressionRatio} times that (${this.totalBytes} bytes so far): a compression bomb?`, 'maxCompressionRatio');
    }
  }
}

function definedOnly(limits: ArchiveLimits): ArchiveLimits {
  return Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
}
