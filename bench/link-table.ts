import type { Entry, LinkReader } from '../server/core/paths/resolve.js';

/**
 * The bench's stand-in for the file system (SPEC §14: decide() is measured "excluding file-system
 * resolution"): every file the corpus names, its parent directories implied, in one Map. A lookup
 * is a hash probe, with no system call and nothing recorded, so the resolver's walk is measured
 * and lstat/readlink are not. (tests/fixtures/memory-fs.ts records every call for assertions,
 * which a bench of 10,000 actions must not pay for.)
 */
export function linkTable(files: Iterable<string>): LinkReader {
  const table = new Map<string, Entry>();
  const dir: Entry = { kind: 'dir' };
  const file: Entry = { kind: 'file' };
  const missing: Entry = { kind: 'missing' };
  for (const path of files) {
    table.set(path, file);
    for (let i = path.indexOf('/', 1); i !== -1; i = path.indexOf('/', i + 1)) {
      const parent = path.slice(0, i);
      if (!table.has(parent)) table.set(parent, dir);
    }
  }
  return { entry: (path) => table.get(path) ?? missing };
}
