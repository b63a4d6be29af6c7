/**
 * How paths behave on the host (SPEC §5). The core never asks `process.platform`; the
 * composition root passes the flavor in, and tests run every flavor on every OS.
 */
export interface PathFlavor {
  readonly kind: 'posix' | 'win32';
  /** Windows and macOS compare paths case-insensitively (step 10). */
  readonly caseInsensitive: boolean;
  /** macOS file systems treat NFC and NFD spellings of a name as the same file. */
  readonly normalizationInsensitive: boolean;
}

export const LINUX: PathFlavor = { kind: 'posix', caseInsensitive: false, normalizationInsensitive: false };
export const DARWIN: PathFlavor = { kind: 'posix', caseInsensitive: true, normalizationInsensitive: true };
export const WINDOWS: PathFlavor = { kind: 'win32', caseInsensitive: true, normalizationInsensitive: false };

/** The form two paths are compared in on this flavor (step 10). */
export function comparable(text: string, flavor: PathFlavor): string {
  const normal = flavor.normalizationInsensitive ? text.normalize('NFC') : text;
  return flavor.caseInsensitive ? normal.toLowerCase() : normal;
}

export function flavorForPlatform(platform: string): PathFlavor {
  if (platform === 'win32') return WINDOWS;
  if (platform === 'darwin') return DARWIN;
  return LINUX;
}
