import { readdirSync, statSync } from 'node:fs';
import type { DirEntry, ReadDir } from '../core/hook/glob-expand.js';

/**
 * The folder listing behind a Bash glob's expansion (core/hook/glob-expand.ts): entries with
 * whether each is a folder, a link to a folder counting as one (the shell walks into it for
 * `*\/x`). A folder that cannot be listed is undefined: the shell cannot match names in it either.
 */
export const nodeReadDir: ReadDir = (path) => {
  try {
    return readdirSync(path, { withFileTypes: true }).map((e): DirEntry => {
      const link = e.isSymbolicLink();
      return { name: e.name, link, dir: link ? isDir(`${path.replace(/\/+$/u, '')}/${e.name}`) : e.isDirectory() };
    });
  } catch {
    return undefined;
  }
};

function isDir(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}
