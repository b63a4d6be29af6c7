import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Names one build of the code running from `moduleUrl`: its file's inode, size and modification
 * time, which change whenever it is rebuilt or reinstalled. For the installed hook the module is
 * the bundle holding all of its code; run from source it is only that module's file, which is
 * enough for tests that each start with a new home.
 */
export function buildId(moduleUrl: string): string {
  try {
    const stat = statSync(fileURLToPath(moduleUrl));
    return `${String(stat.ino)}:${String(stat.size)}:${String(stat.mtimeMs)}`;
  } catch {
    return `unknown:${randomUUID()}`; // a build that cannot be named matches no kept entry
  }
}
