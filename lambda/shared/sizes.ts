/** Binary size units, for byte counts written as `16 * MiB`. */
export const KiB = 1024;
export const MiB = 1024 * KiB;
