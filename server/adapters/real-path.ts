import { realpathSync } from 'node:fs';

/** The real path of `path` (every link resolved), or undefined when it does not exist or cannot be read. */
export function realPathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}
