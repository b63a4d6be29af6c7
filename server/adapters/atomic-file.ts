import { closeSync, fsyncSync, openSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Replaces a small private state file so a crash leaves either the old or the new content, never
 * half of one: a 0600 temp file, fsynced, renamed over the target, the directory fsynced.
 */
export function writeFileAtomic(path: string, text: string): void {
  const tmp = `${path}.${String(process.pid)}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  syncPath(tmp);
  renameSync(tmp, path);
  syncPath(dirname(path));
}

function syncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
