import { hasBrand } from '../core/type-brand';
import type { SharedFileSystem } from './shared-file-system';
import type { ISharedFileSystem } from './shared-file-system-base';

/**
 * The brands SharedFileSystems carry. The probe, seed and monitoring constructs tell one apart
 * with these functions, which need only this module: importing the classes as values would close
 * a runtime circle through their add* factories (the type imports here are erased).
 */
export const SHARED_FILE_SYSTEM_BRAND = 'SharedFileSystem';
/** Carried by every ISharedFileSystem of this package: a created SharedFileSystem and an imported one. */
export const SHARED_FILE_SYSTEM_LIKE_BRAND = 'ISharedFileSystem';

/** Whether `x` is a SharedFileSystem, made by any copy of this package. */
export function isSharedFileSystem(x: unknown): x is SharedFileSystem {
  return hasBrand(x, SHARED_FILE_SYSTEM_BRAND);
}

/** Whether `x` is a SharedFileSystem or an imported one, made by any copy of this package. */
export function isSharedFileSystemLike(x: unknown): x is ISharedFileSystem {
  return hasBrand(x, SHARED_FILE_SYSTEM_LIKE_BRAND);
}
