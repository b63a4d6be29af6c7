/**
 * How paths behave on the host (SPEC §5). The core never asks `process.platform`; the
 * composition root passes the flavor in, and tests run every flavor on every OS.
 */
export interface PathFlavor {
  readonly kind: 'posix' | 'win32';
  /** Windows and macOS compare paths case-insensitively (step 10). */
  readonly caseInsensitive: boolean;
}

export const LINUX: PathFlavor = { kind: 'posix', caseInsensitive: false };
export const DARWIN: PathFlavor = { kind: 'posix', caseInsensitive: true };
export const WINDOWS: PathFlavor = { kind: 'win32', caseInsensitive: true };

export function flavorForPlatform(platform: string): PathFlavor {
  if (platform === 'win32') return WINDOWS;
  if (platform === 'darwin') return DARWIN;
  return LINUX;
}
