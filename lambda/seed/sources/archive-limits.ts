/** Limits that stop an archive from filling the file system or the function (a zip bomb). */
export interface ArchiveLimits {
  /** Largest member. @default 64 GiB */
  readonly maxEntryBytes?: number;
  /** All members together. @default 1 TiB */
  readonly maxTotalBytes?: number;
}

export const DEFAULT_MAX_ENTRY_BYTES = 64 * 1024 ** 3;
export const DEFAULT_MAX_TOTAL_BYTES = 1024 ** 4;

/** Counts declared sizes and says why a member is refused, if it is. */
export class ArchiveBudget {
  private total = 0;
  private readonly maxEntry: number;
  private readonly maxTotal: number;

  constructor(limits: ArchiveLimits = {}) {
    this.maxEntry = limits.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES;
    this.maxTotal = limits.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES;
  }

  refusal(size: number): string | undefined {
    if (size > this.maxEntry) return `the member is ${size} bytes, over the ${this.maxEntry}-byte limit per member`;
    this.total += size;
    if (this.total > this.maxTotal) return `the archive expands past the ${this.maxTotal}-byte limit`;
    return undefined;
  }
}
