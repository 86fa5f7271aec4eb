import { hasBrand } from '../core/type-brand';
import type { SharedFileSystem } from './shared-file-system';

/**
 * The brand every SharedFileSystem carries. The probe, seed and monitoring constructs tell one apart
 * with `isSharedFileSystem`, which needs only this module: importing SharedFileSystem as a value
 * would close a runtime circle through its add* factories (the type import here is erased).
 */
export const SHARED_FILE_SYSTEM_BRAND = 'SharedFileSystem';

/** Whether `x` is a SharedFileSystem, made by any copy of this package. */
export function isSharedFileSystem(x: unknown): x is SharedFileSystem {
  return hasBrand(x, SHARED_FILE_SYSTEM_BRAND);
}
